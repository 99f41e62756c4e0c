// The collective tests of `infermark gpu probe --collectives`: NCCL all-reduce, all-gather,
// reduce-scatter and all-to-all (grouped send/receive, as the frameworks' expert dispatch runs it)
// over the first 1, 2, 4 and 8 local GPUs, one process driving every GPU (ncclCommInitAll), NVLink
// multicast off (NCCL_NVLS_ENABLE=0). Each size is timed as batches of back-to-back calls, captured
// as one CUDA graph per GPU where capture works, with CUDA events on every GPU's stream; a batch
// counts as long as its slowest GPU took. Sizes follow nccl-tests: docs/engine-model.md, "Collectives".
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace infermark::gpu::probe {

/// One collective at one message size.
struct CollectiveSpec {
  std::string op;         ///< `all_reduce`, `all_gather`, `reduce_scatter` or `all_to_all`.
  std::size_t bytes = 0;  ///< all_reduce: the buffer; all_gather: the gathered output; reduce_scatter:
                          ///< the input; all_to_all: what one rank sends in all (1/n to each rank).
};

/// What to run.
struct CollectivePlan {
  std::string nccl_library;           ///< Path of libnccl.so.2.
  std::vector<int> gpu_counts;        ///< Communicator sizes; those above the local GPU count are skipped.
  std::vector<CollectiveSpec> tests;  ///< Every size is run at every GPU count.
  int warmup = 5;                     ///< Untimed calls before sizing the batch.
  int windows = 10;                   ///< Timed batches; the median per call is over them.
  double min_batch_s = 2e-3;          ///< Calls per batch grow until one batch lasts this long.
  int max_calls = 400;                ///< Upper bound on calls per batch.
  bool verbose = false;               ///< One line per result on stderr.
};

/// Bytes of `spec` as run on `gpus` ranks: the size rounded up so that every rank's share is a whole
/// number of elements (bf16 for the reductions and gathers, bytes for all-to-all).
std::size_t RunBytes(const CollectiveSpec& spec, int gpus);

/// Runs the plan; returns {nccl_version, nccl_library, devices, runs: [{index, op, gpus, bytes,
/// seconds, spread, calls, batches, graph} or {index, op, gpus, error}], skipped: [gpu counts]}. Throws
/// ProbeError when NCCL cannot be loaded or a communicator cannot be made.
nlohmann::json RunCollectives(const CollectivePlan& plan);

}  // namespace infermark::gpu::probe
