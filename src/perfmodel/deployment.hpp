// One modelled deployment: a model on N GPUs of one kind, served by one framework at one
// precision, with the scheduler settings and efficiency factors resolved from the data catalog
// and the user's flags. Everything the step-time model and the scheduler need.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "perfmodel/engine_data.hpp"

namespace infermark::perfmodel {

/// What the user asked for (flags of `engine serve` and `predict`).
struct DeploymentOptions {
  std::string model;                             ///< Name, alias or path to config.json.
  std::string hardware;                          ///< GPU name or alias.
  std::string framework = "vllm";                ///< vllm, sglang, trt.
  std::string precision = "bf16";                ///< bf16, fp8, fp4, int4.
  std::string kv_cache_dtype = "auto";           ///< auto = the checkpoint's.
  int tp = 1;                                    ///< Tensor-parallel GPUs.
  int ep = 1;                                    ///< Expert-parallel degree (1 = experts split by TP).
  bool dp_attention = false;                     ///< Attention data-parallel over the TP GPUs.
  std::optional<int> block_size;                 ///< KV block size override.
  std::optional<int> max_num_seqs;               ///< Max running sequences override.
  std::optional<int> max_num_batched_tokens;     ///< Token budget override.
  std::optional<double> gpu_memory_utilization;  ///< Memory fraction override (the framework's rule applies it).
  /// SGLang --mem-fraction-static: its share of memory for weights and KV pool (SGLang only).
  std::optional<double> mem_fraction_static;
  /// The InferenceX launcher serving this deployment (`dsr1_fp8_b200`): its memory flag
  /// (recipe_memory.yaml) applies when no fraction is given; empty: the framework's default.
  std::string recipe;
  std::optional<bool> prefix_caching;  ///< Prefix caching override.
  /// vLLM --kv-offloading-size: host DRAM for KV blocks, GiB summed over the TP ranks.
  std::optional<double> kv_offloading_size_gib;
  std::string kv_offloading_backend;      ///< vLLM --kv-offloading-backend: native or lmcache (empty: native).
  bool hierarchical_cache = false;        ///< SGLang --enable-hierarchical-cache (HiCache host tier).
  std::optional<double> hicache_size_gb;  ///< SGLang --hicache-size: host pool per rank, GB (wins over the ratio).
  std::optional<double> hicache_ratio;    ///< SGLang --hicache-ratio: host pool over the GPU pool (default 2).
  std::optional<int> stream_interval;     ///< Tokens per streamed chunk override.
  std::optional<int> max_model_len;       ///< Longest sequence accepted (default: the model's).
  std::string spec_decoding = "none";     ///< none or mtp (speculative decoding with draft tokens).
  int num_speculative_tokens = 0;         ///< Draft tokens per step (mtp; default 1 or the model's).
  std::vector<double> acceptance;         ///< Per-position acceptance rates (default 0.7 each).
  bool use_calibration = true;            ///< Use data/engine/calibrated/ when a profile matches.
  std::string hardware_profile;           ///< A measured hardware profile (`gpu probe`) of the GPU deployed.
};

/// Scheduler settings after defaults, flags and memory are resolved.
struct SchedulerConfig {
  int block_size = 16;                ///< Tokens per KV block.
  std::int64_t num_blocks = 0;        ///< KV blocks available (all ranks together).
  int max_num_seqs = 1024;            ///< Most sequences in one batch.
  int max_num_batched_tokens = 8192;  ///< Tokens per forward pass.
  bool prefix_caching = true;         ///< Reuse identical prompt-prefix blocks.
  int stream_interval = 1;            ///< Tokens per streamed chunk.
  int max_model_len = 0;              ///< Longest prompt + output accepted.
  int spec_tokens = 0;                ///< Draft tokens verified per decode step.
  double tokens_per_step = 1;         ///< Expected tokens a decode step yields (1 + accepted drafts).
  /// Host-DRAM tier of the prefix cache (vLLM --kv-offloading-size, SGLang HiCache), in bytes
  /// over the whole deployment (0: none).
  double host_kv_bytes = 0;
  double host_kv_ratio = 0;            ///< Else the host tier as a multiple of the GPU pool (SGLang --hicache-ratio).
  std::int64_t host_kv_tokens = 0;     ///< Tokens the host tier holds.
  double host_kv_bytes_per_token = 0;  ///< Bytes one token's KV moves between GPU and host, all GPUs together.
  double host_link_seconds_per_token = 0;  ///< Link time of one token's KV per direction (GPUs' links in parallel).
};

/// Where the memory goes on one GPU.
struct MemoryPlan {
  double weight_bytes_per_gpu = 0;      ///< Weights resident on one GPU.
  double kv_bytes_per_token = 0;        ///< KV bytes one token costs on the GPU(s) holding it.
  double memory_fraction = 0;           ///< The framework's memory fraction applied (given or derived).
  std::string memory_fraction_source;   ///< Where it came from: "flag", "recipe NAME" or "default".
  double kv_pool_bytes_per_gpu = 0;     ///< Memory left for the KV cache.
  std::int64_t kv_capacity_tokens = 0;  ///< Tokens the whole deployment can cache.
};

/// A resolved deployment.
struct Deployment {
  ModelSpec model;                ///< Architecture.
  HardwareSpec hardware;          ///< GPU.
  FrameworkProfile framework;     ///< Framework profile.
  ResolvedPrecision precision;    ///< Weight and KV formats.
  int tp = 1;                     ///< Tensor-parallel GPUs (GPUs serving the model).
  int ep = 1;                     ///< Expert-parallel degree.
  bool dp_attention = false;      ///< Attention data-parallel.
  EfficiencyFactors efficiency;   ///< Factors in force.
  std::string efficiency_source;  ///< Which file they came from (calibrated profile or prior).
  bool calibrated = false;        ///< The factors are a calibrated profile's (false: the framework's priors).
  /// Kernel classes the chosen calibrated profile was fitted on (empty: priors, nothing measured).
  std::vector<std::string> calibrated_classes;
  std::vector<std::string> profile_changes;  ///< What --hardware-profile changed, one line per figure.
  SchedulerConfig scheduler;                 ///< Scheduler settings.
  MemoryPlan memory;                         ///< Memory plan.

  /// GPUs the deployment occupies.
  [[nodiscard]] int NumGpus() const { return tp; }
};

/// The factors for `framework` on `hardware`: its calibrated profile, else the vendor's, else the
/// fallback framework's, else the framework's priors. `source` names the choice.
EfficiencyFactors ChooseEfficiency(const EngineData& data, const FrameworkProfile& framework,
                                   const HardwareSpec& hardware, std::string* source,
                                   std::vector<std::string>* classes = nullptr);

/// What `efficiency_source` says of factors that are `framework`'s priors.
std::string PriorsSource(const FrameworkProfile& framework);

/// Resolves options against the catalog; throws InputError for unknown names, impossible
/// parallelism or a model that does not fit in memory.
Deployment ResolveDeployment(const EngineData& data, const DeploymentOptions& options);

/// Recomputes `deployment.memory`, the KV block count and the host tier's size in tokens (after
/// changing the scheduler defaults).
void PlanMemory(Deployment& deployment);

}  // namespace infermark::perfmodel
