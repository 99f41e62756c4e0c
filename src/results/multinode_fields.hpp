// The multi-node fields of a processed record (InferenceX's agg format for a deployment of prefill
// and decode worker pools, `is_multinode: true`): each pool's workers and parallelism, the GPUs of
// each role, and the label a disaggregated series is drawn and compared under ("disagg 1P1D tp4/tp4").
#pragma once

#include <optional>
#include <string>

#include "core/json_text.hpp"

namespace infermark::results {

struct Point;

/// One worker pool of a multi-node deployment (`prefill_*` or `decode_*` of the record).
struct WorkerPool {
  long long num_workers = 0;  ///< Workers (replicas) in the pool.
  long long tp = 0;           ///< Tensor parallelism per worker (0: a pool without GPUs).
  long long pp = 1;           ///< Pipeline parallelism per worker.
  long long dcp_size = 1;     ///< Decode context parallelism (shares the TP ranks).
  long long pcp_size = 1;     ///< Prefill context parallelism.
  long long ep = 0;           ///< Expert parallelism.
  bool dp_attention = false;  ///< Data-parallel attention.

  /// The pool's parallelism as a label part: `tp4`, `tp8ep8dpa`, `tp4pp2` (sizes of 1 left out).
  [[nodiscard]] std::string Parallelism() const;
};

/// A multi-node record's deployment.
struct MultiNodeFields {
  bool disagg = false;            ///< Prefill and decode on separate workers (`disagg`).
  WorkerPool prefill;             ///< Prefill pool (the whole deployment when not disaggregated).
  WorkerPool decode;              ///< Decode pool (no GPUs when not disaggregated).
  long long num_prefill_gpu = 0;  ///< GPUs of the prefill pool (`num_prefill_gpu`).
  long long num_decode_gpu = 0;   ///< GPUs of the decode pool (`num_decode_gpu`).
  std::string prefill_hw;         ///< Prefill hardware when the record names it (`prefill_hw`).
  std::string decode_hw;          ///< Decode hardware when the record names it (`decode_hw`).

  /// The series label: `disagg 1P1D tp4/tp4` (x prefill workers, y decode workers, their
  /// parallelism), or `multinode 2x tp8` for a multi-node deployment that is not disaggregated.
  [[nodiscard]] std::string Label() const;
};

/// The multi-node fields of `record`, or nothing when it is not a multi-node record
/// (`is_multinode` absent or false). Missing fields keep their defaults; `dp_attention` is read
/// from "true"/"false" (as InferenceX writes it) or a boolean.
std::optional<MultiNodeFields> MultiNodeFieldsOf(const Json& record);

/// The series a point is drawn and its frontier compared in: its group (hardware, framework,
/// precision, speculative decoding, offload mode), followed by the multi-node label for multi-node
/// points, so disaggregated deployments get their own series beside the aggregated ones.
std::string SeriesGroup(const Point& point);

}  // namespace infermark::results
