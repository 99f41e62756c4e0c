// Serving frameworks as data (data/engine/frameworks.yaml): scheduler defaults and efficiency
// priors of vLLM, SGLang, TensorRT-LLM and transformers' continuous batching.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "perfmodel/efficiency.hpp"

namespace infermark::perfmodel {

/// What a framework's memory fraction is a fraction of, and so what the KV cache gets.
enum class MemoryRule {
  /// vLLM --gpu-memory-utilization: util × total − weights − activation reserve.
  kTotal,
  /// TensorRT-LLM free_gpu_memory_fraction: util × (total − weights − activation reserve).
  kFreeAfterWeights,
  /// SGLang --mem-fraction-static, the share of total memory for weights and KV pool together:
  /// util × total − weights (the rest of memory is the activations' and CUDA graphs').
  kStatic,
};

/// Scheduler settings a framework starts with (flags override them).
struct SchedulerDefaults {
  int max_num_seqs = 1024;            ///< Most sequences in one batch.
  int max_num_batched_tokens = 8192;  ///< Token budget of one forward pass (chunked prefill).
  int block_size = 16;                ///< Tokens per KV-cache block.
  /// Fraction of memory the engine may use (see `memory_rule`); unset: the framework derives it
  /// from the GPU and the deployment (SGLang's default mem-fraction-static, MemFractionStatic).
  std::optional<double> gpu_memory_utilization = 0.9;
  MemoryRule memory_rule = MemoryRule::kTotal;  ///< What the fraction applies to.
  double activation_reserve_bytes =
      4e9;                     ///< Memory kept for activations, graphs, workspace (kTotal, kFreeAfterWeights).
  bool prefix_caching = true;  ///< Reuse KV blocks of identical prompt prefixes.
  int stream_interval = 1;     ///< Tokens per streamed chunk.
};

/// How a framework's attention kernel covers a batch.
enum class AttentionScope {
  /// Each sequence's queries read that sequence's own KV (paged attention kernels: vLLM, SGLang,
  /// TensorRT-LLM, flash-attention's varlen path).
  kPerSequence,
  /// The batch's KV is gathered out of the paged cache into one contiguous copy and one masked
  /// SDPA runs every query of the pass against every gathered key, the block-diagonal causal mask
  /// discarding the other sequences' keys after they were computed (transformers' continuous
  /// batching without a flash-attention package): query-key pairs grow as tokens × all context.
  kWholeBatch,
};

/// One framework.
struct FrameworkProfile {
  std::string name;                  ///< `vllm`, `sglang`, `trt`.
  std::string description;           ///< Human-readable name.
  SchedulerDefaults scheduler;       ///< Scheduler defaults.
  EfficiencyFactors efficiency;      ///< Priors used until calibrated.
  std::string calibration_fallback;  ///< Framework whose calibrated profiles to borrow (may be empty).
  AttentionScope attention = AttentionScope::kPerSequence;  ///< What one attention kernel covers.
};

/// Reads frameworks.yaml; throws InputError with every problem.
std::vector<FrameworkProfile> LoadFrameworksFile(const std::string& path);

}  // namespace infermark::perfmodel
