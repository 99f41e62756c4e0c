#include "cli/deployment_flags.hpp"

#include <sstream>

#include "core/diagnostic.hpp"

namespace infermark::cli {

void AddDeploymentFlags(CLI::App* cmd, DeploymentFlags& flags) {
  perfmodel::DeploymentOptions& d = flags.options;
  cmd->add_option("--model", d.model, "Built-in model (name or HF id) or path to an HF config.json")->required();
  cmd->add_option("--hardware", d.hardware, "GPU: h100, h200, b200, b300, gb200, gb300, mi300x, mi325x, mi355x")
      ->required();
  cmd->add_option("--framework", d.framework, "vllm, sglang, trt or transformers")->capture_default_str();
  cmd->add_option("--precision", d.precision, "bf16, fp8, fp4 or int4")->capture_default_str();
  cmd->add_option("--kv-cache-dtype", d.kv_cache_dtype, "auto, bf16 or fp8")->capture_default_str();
  cmd->add_option("--tp", d.tp, "Tensor-parallel GPUs")->capture_default_str();
  cmd->add_option("--ep", d.ep, "Expert-parallel degree (1 or the TP size)")->capture_default_str();
  cmd->add_flag("--dp-attn", d.dp_attention, "Attention data-parallel over the TP GPUs");
  cmd->add_option("--block-size", d.block_size, "KV block size (default: the framework's)");
  cmd->add_option("--max-num-seqs", d.max_num_seqs, "Most running sequences (default: the framework's)");
  cmd->add_option("--max-num-batched-tokens", d.max_num_batched_tokens, "Token budget per forward pass");
  cmd->add_option("--gpu-memory-utilization", d.gpu_memory_utilization,
                  "Fraction of GPU memory the engine uses (under the framework's own rule)");
  cmd->add_option("--recipe", d.recipe,
                  "InferenceX launcher (<exp>_<precision>_<gpu>[_mtp]) whose memory flag applies "
                  "(data/engine/recipe_memory.yaml)");
  cmd->add_option("--mem-fraction-static", d.mem_fraction_static,
                  "SGLang: share of GPU memory for weights and KV pool (default: SGLang's, from the GPU and TP)");
  cmd->add_option("--stream-interval", d.stream_interval, "Tokens per streamed chunk");
  cmd->add_option("--max-model-len", d.max_model_len, "Longest prompt + output accepted");
  cmd->add_flag("--no-enable-prefix-caching", flags.no_prefix_caching, "Disable prefix caching");
  cmd->add_flag("--enable-prefix-caching", flags.enable_prefix_caching, "Enable prefix caching");
  cmd->add_flag("--disable-radix-cache", flags.disable_radix_cache, "SGLang: disable the radix (prefix) cache");
  cmd->add_option("--page-size", flags.page_size, "SGLang: KV page size (tokens per block)");
  cmd->add_option("--kv-offloading-size", d.kv_offloading_size_gib,
                  "vLLM: host DRAM for offloaded KV blocks, GiB over all TP ranks");
  cmd->add_option("--kv-offloading-backend", d.kv_offloading_backend, "vLLM: KV offloading backend (native, lmcache)");
  cmd->add_flag("--enable-hierarchical-cache", d.hierarchical_cache,
                "SGLang: HiCache, a host-DRAM tier of the radix cache");
  cmd->add_option("--hicache-size", d.hicache_size_gb, "SGLang: HiCache host pool per rank, GB (wins over the ratio)");
  cmd->add_option("--hicache-ratio", d.hicache_ratio, "SGLang: HiCache host pool as a multiple of the GPU pool (2)");
  cmd->add_option("--hardware-profile", d.hardware_profile,
                  "A measured profile of the GPU (infermark gpu probe): its ceilings and grouped-GEMM efficiency "
                  "replace the datasheet's and the priors (docs/engine-model.md, \"Hardware profiles\")");
  cmd->add_option("--spec-decoding", d.spec_decoding, "none or mtp")->capture_default_str();
  cmd->add_option("--num-speculative-tokens", d.num_speculative_tokens, "Draft tokens per step (mtp)");
  cmd->add_option("--acceptance", flags.acceptance, "Acceptance rate, or one per draft position, comma-separated");
  cmd->add_flag(
      "--no-calibration", [&d](std::int64_t) { d.use_calibration = false; },
      "Use the framework's prior factors, not data/engine/calibrated/");
}

perfmodel::DeploymentOptions ResolveDeploymentFlags(const DeploymentFlags& flags) {
  perfmodel::DeploymentOptions d = flags.options;
  if (!flags.acceptance.empty()) {
    d.acceptance.clear();
    std::stringstream in(flags.acceptance);
    std::string item;
    while (std::getline(in, item, ',')) {
      try {
        d.acceptance.push_back(std::stod(item));
      } catch (const std::exception&) {
        throw InputError(
            Diagnostic{SourceMark{}, "", "--acceptance", "expected numbers in [0, 1], got '" + item + "'"});
      }
    }
  }
  if (flags.enable_prefix_caching && (flags.no_prefix_caching || flags.disable_radix_cache))
    throw InputError(Diagnostic{SourceMark{}, "", "--enable-prefix-caching",
                                "contradicts --no-enable-prefix-caching / --disable-radix-cache"});
  if (flags.no_prefix_caching || flags.disable_radix_cache) d.prefix_caching = false;
  if (flags.enable_prefix_caching) d.prefix_caching = true;
  if (flags.page_size) {
    if (d.block_size && *d.block_size != *flags.page_size)
      throw InputError(Diagnostic{SourceMark{}, "", "--page-size", "differs from --block-size; give one of them"});
    d.block_size = flags.page_size;
  }
  return d;
}

}  // namespace infermark::cli
