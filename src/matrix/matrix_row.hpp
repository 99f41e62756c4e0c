// One matrix row as the runner uses it: the fields read once, typed and checked, with the row's
// JSON kept beside them for the edges that pass it on as it is (the launcher environment, result
// file names, row states, provenance). A row that lacks a field or carries the wrong type is
// reported once, naming the row and the field, before anything runs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"

namespace infermark::matrix {

/// One worker pool of a disaggregated row.
struct WorkerPool {
  int num_worker = 1;    ///< Workers in the pool (decode: 0 for an aggregated multi-node row).
  int tp = 1;            ///< Tensor-parallel GPUs per worker.
  int ep = 1;            ///< Expert-parallel degree.
  bool dp_attn = false;  ///< Attention data-parallel.
};

/// A matrix row.
struct MatrixRow {
  Json raw;                                     ///< The row as generated (key order kept).
  std::string runner;                           ///< Runner label.
  std::string model;                            ///< Model id.
  std::string model_prefix;                     ///< Model prefix.
  std::string exp_name;                         ///< Experiment name.
  std::string image;                            ///< Serving image.
  std::string framework;                        ///< Serving framework.
  std::string precision;                        ///< Precision.
  std::string spec_decoding = "none";           ///< Speculative decoding.
  std::string scenario_type = "fixed-seq-len";  ///< fixed-seq-len or agentic-coding.
  int tp = 1;                                   ///< Tensor-parallel GPUs (single-node rows).
  int ep = 1;                                   ///< Expert-parallel degree.
  bool dp_attn = false;                         ///< Attention data-parallel.
  std::vector<int> conc;                        ///< Concurrency: one for single-node rows, the list for multi-node.
  int isl = 0;                                  ///< Input length (0 for agentic rows).
  int osl = 0;                                  ///< Output length (0 for agentic rows).
  std::optional<int> max_model_len;             ///< When the row sets it.
  bool disagg = false;                          ///< Disaggregated prefill/decode.
  std::optional<WorkerPool> prefill;            ///< Multi-node rows.
  std::optional<WorkerPool> decode;             ///< Multi-node rows.
  std::string kv_offloading = "none";           ///< Agentic rows: none or dram.
  std::string kv_offload_backend;               ///< Agentic rows with dram: the backend's name (hicache, lmcache…).
  double total_cpu_dram_gb = 0;                 ///< Agentic rows: the host DRAM budget for KV offload.
  int duration = 3600;                          ///< Agentic rows: seconds of the profiling phase.

  /// An agentic-coding row.
  [[nodiscard]] bool Agentic() const { return scenario_type == "agentic-coding"; }
  /// The concurrency of a single-node row (the first of a list).
  [[nodiscard]] int Conc() const { return conc.empty() ? 0 : conc.front(); }
  /// "1k1k", "8k1k", … ("" for agentic rows).
  [[nodiscard]] std::string SeqLen() const;
};

/// Reads `row`; problems are added to `problems` as `where` (file), `entry` (the row's name) and
/// the field, and the fields that could be read are returned.
MatrixRow ReadMatrixRow(const Json& row, const SourceMark& where, const std::string& entry,
                        std::vector<Diagnostic>& problems);

/// Reads every row (e.g. the generator's output, or a matrix file), throwing one InputError with
/// every problem found; `source` names where they came from.
std::vector<MatrixRow> ReadMatrixRows(const std::vector<Json>& rows, const std::string& source);

}  // namespace infermark::matrix
