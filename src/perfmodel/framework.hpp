// Serving frameworks as data (data/engine/frameworks.yaml): scheduler defaults and efficiency
// priors of vLLM, SGLang, TensorRT-LLM.
#pragma once

#include <string>
#include <vector>

#include "perfmodel/efficiency.hpp"

namespace infermark::perfmodel {

/// Scheduler settings a framework starts with (flags override them).
struct SchedulerDefaults {
  int max_num_seqs = 1024;                ///< Most sequences in one batch.
  int max_num_batched_tokens = 8192;      ///< Token budget of one forward pass (chunked prefill).
  int block_size = 16;                    ///< Tokens per KV-cache block.
  double gpu_memory_utilization = 0.9;    ///< Fraction of memory the engine may use.
  bool fraction_of_free = false;          ///< The fraction applies to memory left after weights (TRT-LLM).
  double activation_reserve_bytes = 4e9;  ///< Memory kept for activations, graphs, workspace.
  bool prefix_caching = true;             ///< Reuse KV blocks of identical prompt prefixes.
  int stream_interval = 1;                ///< Tokens per streamed chunk.
};

/// One framework.
struct FrameworkProfile {
  std::string name;                  ///< `vllm`, `sglang`, `trt`.
  std::string description;           ///< Human-readable name.
  SchedulerDefaults scheduler;       ///< Scheduler defaults.
  EfficiencyFactors efficiency;      ///< Priors used until calibrated.
  std::string calibration_fallback;  ///< Framework whose calibrated profiles to borrow (may be empty).
};

/// Reads frameworks.yaml; throws InputError with every problem.
std::vector<FrameworkProfile> LoadFrameworksFile(const std::string& path);

}  // namespace infermark::perfmodel
