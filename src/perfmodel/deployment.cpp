#include "perfmodel/deployment.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/diagnostic.hpp"
#include "perfmodel/profile_adjustment.hpp"
#include "perfmodel/recipe_memory.hpp"
#include "perfmodel/sglang_memory.hpp"

namespace infermark::perfmodel {

namespace {

InputError Bad(const std::string& field, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{}, "", field, rule});
}

}  // namespace

EfficiencyFactors ChooseEfficiency(const EngineData& data, const FrameworkProfile& framework,
                                   const HardwareSpec& hardware, std::string* source,
                                   std::vector<std::string>* classes) {
  std::vector<std::string> names{framework.name};
  if (!framework.calibration_fallback.empty()) names.push_back(framework.calibration_fallback);
  for (const auto& fw : names) {
    for (const std::string& scope : {hardware.name, hardware.vendor}) {
      if (const CalibratedProfile* c = data.FindCalibrated(fw, scope)) {
        if (source != nullptr) *source = c->path;
        if (classes != nullptr) *classes = c->kernel_classes;
        EfficiencyFactors e = c->efficiency;
        // A borrowed profile keeps this framework's own fixed overheads: they are what differs.
        if (fw != framework.name) {
          e.step_overhead_us = framework.efficiency.step_overhead_us;
          e.seq_overhead_us = framework.efficiency.seq_overhead_us;
        }
        return e;
      }
    }
  }
  if (source != nullptr) *source = PriorsSource(framework);
  return framework.efficiency;
}

std::string PriorsSource(const FrameworkProfile& framework) {
  return "frameworks.yaml priors (" + framework.name + ")";
}

void PlanMemory(Deployment& d) {
  const ModelSpec& m = d.model;
  const ParamCounts p = CountParams(m);
  const ResolvedPrecision& q = d.precision;
  const double dense_b = q.experts_only ? 2.0 : q.quant_bytes;  // attention and dense FFN
  const int tp_attn = d.dp_attention ? 1 : d.tp;
  const int expert_shards = d.ep > 1 ? d.ep : d.tp;
  const double moe_layers = m.MoeLayers();
  double w = m.layers * p.attention_per_layer * dense_b / tp_attn;
  w += m.dense_layers * p.dense_ffn_per_layer * dense_b / d.tp;
  w += moe_layers * (m.moe.experts * p.expert * q.quant_bytes / expert_shards + p.shared_per_layer * dense_b / d.tp +
                     p.router_per_layer * 2.0);
  w += (p.embedding + p.lm_head) * 2.0 / d.tp;
  if (d.scheduler.spec_tokens > 0 && m.mtp_layers > 0) {
    // An MTP module is one more decoder layer (MoE where the model is) plus a projection.
    const double layer = p.attention_per_layer * dense_b / tp_attn +
                         (m.moe.experts > 0 ? m.moe.experts * p.expert * q.quant_bytes / expert_shards
                                            : p.dense_ffn_per_layer * dense_b / d.tp) +
                         2.0 * m.hidden * m.hidden * 2.0 / d.tp;
    w += layer * std::min(m.mtp_layers, d.scheduler.spec_tokens);
  }
  d.memory.weight_bytes_per_gpu = w;

  // KV bytes per token on the GPU that holds the sequence: sliding-window layers keep only their
  // window per sequence and are left out of the per-token cost.
  const AttentionSpec& a = m.attention;
  double per_layer = 0;
  if (a.kind == AttentionSpec::Kind::kMla) {
    per_layer = (a.kv_lora_rank + a.qk_rope_head_dim) * q.kv_bytes;  // latent, replicated over TP
  } else {
    const int kv_heads_rank = std::max(1, a.kv_heads / tp_attn);
    per_layer = 2.0 * kv_heads_rank * a.head_dim * q.kv_bytes;
  }
  const int full_layers = m.layers - a.sliding_layers;
  double kv_token = full_layers * per_layer;
  if (a.sparse.enabled)
    kv_token += (m.layers - a.sparse.first_layer) * a.sparse.index_heads * a.sparse.index_head_dim * q.kv_bytes;
  d.memory.kv_bytes_per_token = kv_token;

  // The framework's own rule (docs/engine-model.md, "Memory"): the fraction it is given, or the
  // one it derives, of the memory the GPU reports.
  const SchedulerDefaults& s = d.framework.scheduler;
  const double total = d.hardware.memory_bytes;
  const double util = s.gpu_memory_utilization.value_or(
      SglangDefaultMemFractionStatic({total, d.tp, d.dp_attention, d.scheduler.spec_tokens > 0}));
  double pool = 0;
  std::string budget;  // how the pool was reached, for the refusal
  char buf[160];
  switch (s.memory_rule) {
    case MemoryRule::kTotal:
      pool = util * total - w - s.activation_reserve_bytes;
      std::snprintf(buf, sizeof buf, "gpu-memory-utilization %.3g (%s) of %.1f GB, less %.1f GB of activations", util,
                    d.memory.memory_fraction_source.c_str(), total / 1e9, s.activation_reserve_bytes / 1e9);
      break;
    case MemoryRule::kFreeAfterWeights:
      pool = util * (total - w - s.activation_reserve_bytes);
      std::snprintf(buf, sizeof buf,
                    "free-gpu-memory-fraction %.3g (%s) of %.1f GB less weights and %.1f GB of activations", util,
                    d.memory.memory_fraction_source.c_str(), total / 1e9, s.activation_reserve_bytes / 1e9);
      break;
    case MemoryRule::kStatic:
      pool = util * total - w;
      std::snprintf(buf, sizeof buf, "mem-fraction-static %.3g (%s) of %.1f GB = %.1f GB for weights and KV", util,
                    d.memory.memory_fraction_source.c_str(), total / 1e9, util * total / 1e9);
      break;
  }
  budget = buf;
  d.memory.memory_fraction = util;
  d.memory.kv_pool_bytes_per_gpu = pool;
  if (pool <= 0) {
    std::snprintf(buf, sizeof buf, "%.1f GB per GPU", w / 1e9);
    throw Bad("--tp",
              std::string("the weights (") + buf + ") leave no room for the KV cache on " + d.hardware.name +
                  " under " + d.framework.name + "'s memory rule (" + budget +
                  "); use more GPUs, a smaller precision or a larger " +
                  (s.memory_rule == MemoryRule::kStatic ? "--mem-fraction-static" : "--gpu-memory-utilization"));
  }
  // With attention data-parallel every GPU caches its own sequences; otherwise the TP group
  // holds one shared pool (each GPU a slice of every token).
  const double groups = d.dp_attention ? d.tp : 1;
  d.memory.kv_capacity_tokens = static_cast<std::int64_t>(groups * pool / kv_token);
  d.scheduler.num_blocks = d.memory.kv_capacity_tokens / d.scheduler.block_size;
  if (d.scheduler.num_blocks < 1) throw Bad("--tp", "no KV block fits in memory");

  // The host tier: each GPU offloads the KV it holds over its own host link. Without attention
  // data-parallel every GPU holds a slice (or, with MLA, a copy) of every token, so a token moves
  // over all links at once; with it, each GPU moves its own sequences' tokens, links in parallel.
  SchedulerConfig& sc = d.scheduler;
  const double holders = d.dp_attention ? 1 : d.tp;
  sc.host_kv_bytes_per_token = kv_token * holders;
  sc.host_link_seconds_per_token = kv_token / (d.hardware.host_link_bytes_per_s * (d.dp_attention ? d.tp : 1));
  if (sc.host_kv_bytes > 0) {
    sc.host_kv_tokens = static_cast<std::int64_t>(sc.host_kv_bytes / sc.host_kv_bytes_per_token);
  } else if (sc.host_kv_ratio > 0) {
    sc.host_kv_tokens = static_cast<std::int64_t>(sc.host_kv_ratio * double(sc.num_blocks * sc.block_size));
  } else {
    sc.host_kv_tokens = 0;
  }
}

namespace {

// The host tier, spelled as each framework spells it.
void ResolveHostTier(const DeploymentOptions& o, Deployment& d) {
  SchedulerConfig& s = d.scheduler;
  const bool vllm_flags = o.kv_offloading_size_gib.has_value() || !o.kv_offloading_backend.empty();
  const bool sglang_flags = o.hierarchical_cache || o.hicache_size_gb.has_value() || o.hicache_ratio.has_value();
  if (vllm_flags && d.framework.name != "vllm")
    throw Bad(
        "--kv-offloading-size",
        "is vLLM's host-DRAM offload; " + d.framework.name +
            (d.framework.name == "sglang" ? " uses --enable-hierarchical-cache with --hicache-size or --hicache-ratio"
                                          : " has no host tier in this model"));
  if (sglang_flags && d.framework.name != "sglang")
    throw Bad("--enable-hierarchical-cache",
              "is SGLang's HiCache; " + d.framework.name +
                  (d.framework.name == "vllm" ? " uses --kv-offloading-size GiB with --kv-offloading-backend native"
                                              : " has no host tier in this model"));
  if (vllm_flags) {
    if (!o.kv_offloading_size_gib)
      throw Bad("--kv-offloading-backend", "needs --kv-offloading-size (GiB of host memory)");
    if (!(*o.kv_offloading_size_gib > 0)) throw Bad("--kv-offloading-size", "must be a positive number of GiB");
    if (!o.kv_offloading_backend.empty() && o.kv_offloading_backend != "native" && o.kv_offloading_backend != "lmcache")
      throw Bad("--kv-offloading-backend", "must be native or lmcache");
    if (!s.prefix_caching)
      throw Bad("--kv-offloading-size", "offloads prefix-cached blocks: it needs prefix caching on");
    s.host_kv_bytes = *o.kv_offloading_size_gib * 1073741824.0;
  }
  if (sglang_flags) {
    if (!o.hierarchical_cache) throw Bad("--hicache-size", "needs --enable-hierarchical-cache");
    if (!s.prefix_caching)
      throw Bad("--enable-hierarchical-cache", "extends the radix cache: it cannot go with --disable-radix-cache");
    if (o.hicache_size_gb && !(*o.hicache_size_gb > 0)) throw Bad("--hicache-size", "must be a positive number of GB");
    if (o.hicache_ratio && !(*o.hicache_ratio > 0)) throw Bad("--hicache-ratio", "must be positive");
    // SGLang: --hicache-size is per rank and wins; otherwise the host pool is ratio × the GPU pool.
    if (o.hicache_size_gb && *o.hicache_size_gb > 0)
      s.host_kv_bytes = *o.hicache_size_gb * 1e9 * d.tp;
    else
      s.host_kv_ratio = o.hicache_ratio.value_or(2.0);
  }
}

}  // namespace

Deployment ResolveDeployment(const EngineData& data, const DeploymentOptions& o) {
  Deployment d;
  d.model = data.FindModel(o.model);
  d.hardware = data.FindHardware(o.hardware);
  d.framework = data.FindFramework(o.framework);
  // The launcher's flags (recipe_memory.yaml) stand in for the ones a user leaves out.
  std::optional<RecipeMemory> recipe;
  if (!o.recipe.empty()) recipe = FindRecipeMemory(data.recipe_memory, o.recipe, d.framework.name, o.tp);
  const bool recipe_kv =
      recipe && !recipe->kv_cache_dtype.empty() && (o.kv_cache_dtype.empty() || o.kv_cache_dtype == "auto");
  d.precision = ResolvePrecision(data.quant, o.precision, recipe_kv ? recipe->kv_cache_dtype : o.kv_cache_dtype,
                                 d.hardware, d.model);
  const int domain = d.hardware.domain_gpus;
  if (o.tp < 1) throw Bad("--tp", "must be at least 1");
  if (o.tp > domain && (o.tp % domain != 0 || d.hardware.scale_out_bytes_per_s <= 0))
    throw Bad("--tp", "a group beyond one scale-up domain (" + std::to_string(domain) +
                          " GPUs) must span whole domains joined by the scale-out network: use up to " +
                          std::to_string(domain) + " or a multiple of it");
  if (o.ep < 1 || (o.ep > 1 && o.ep != o.tp))
    throw Bad("--ep", "expert parallelism spans the TP GPUs: use 1 or " + std::to_string(o.tp));
  if (o.ep > 1 && d.model.moe.experts == 0) throw Bad("--ep", "the model has no experts");
  d.tp = o.tp;
  d.ep = o.ep;
  d.dp_attention = o.dp_attention;
  if (o.use_calibration) {
    d.efficiency = ChooseEfficiency(data, d.framework, d.hardware, &d.efficiency_source, &d.calibrated_classes);
    d.calibrated = d.efficiency_source != PriorsSource(d.framework);
  } else {
    d.efficiency = d.framework.efficiency;
    d.efficiency_source = PriorsSource(d.framework);
  }
  if (!o.hardware_profile.empty()) {
    const HardwareProfile profile = LoadHardwareProfile(o.hardware_profile);
    // The reference probe of this GPU kind, when the project ships one.
    const std::filesystem::path ref_path = std::filesystem::path(data.dir) / "profiles" / (d.hardware.name + ".yaml");
    std::optional<HardwareProfile> reference;
    if (std::filesystem::exists(ref_path)) reference = LoadHardwareProfile(ref_path.string());
    d.profile_changes = ApplyHardwareProfile(d, profile, reference ? &*reference : nullptr).changes;
  }
  SchedulerConfig& s = d.scheduler;
  const SchedulerDefaults& f = d.framework.scheduler;
  s.block_size = o.block_size.value_or(f.block_size);
  s.max_num_seqs = o.max_num_seqs.value_or(f.max_num_seqs);
  s.max_num_batched_tokens = o.max_num_batched_tokens.value_or(f.max_num_batched_tokens);
  s.prefix_caching = o.prefix_caching.value_or(f.prefix_caching);
  s.stream_interval = o.stream_interval.value_or(f.stream_interval);
  s.max_model_len = o.max_model_len.value_or(static_cast<int>(std::min<std::int64_t>(d.model.max_context, 1 << 30)));
  if (s.block_size < 1 || s.max_num_seqs < 1 || s.max_num_batched_tokens < 1 || s.stream_interval < 1)
    throw Bad("--block-size", "block size, max-num-seqs, max-num-batched-tokens and stream interval must be >= 1");
  if (o.gpu_memory_utilization) {
    if (!(*o.gpu_memory_utilization > 0 && *o.gpu_memory_utilization <= 1))
      throw Bad("--gpu-memory-utilization", "must be in (0, 1]");
    d.framework.scheduler.gpu_memory_utilization = *o.gpu_memory_utilization;
  }
  d.memory.memory_fraction_source = "default";
  if (o.gpu_memory_utilization || o.mem_fraction_static) {
    d.memory.memory_fraction_source = "flag";
  } else if (recipe) {
    d.framework.scheduler.gpu_memory_utilization = recipe->fraction;
    d.memory.memory_fraction_source = "recipe " + o.recipe;
  }
  if (o.mem_fraction_static) {
    if (d.framework.scheduler.memory_rule != MemoryRule::kStatic)
      throw Bad("--mem-fraction-static", "is SGLang's share of memory for weights and KV; " + d.framework.name +
                                             " takes --gpu-memory-utilization");
    if (!(*o.mem_fraction_static > 0 && *o.mem_fraction_static <= 1))
      throw Bad("--mem-fraction-static", "must be in (0, 1]");
    d.framework.scheduler.gpu_memory_utilization = *o.mem_fraction_static;
  }
  if (o.spec_decoding == "mtp") {
    s.spec_tokens = o.num_speculative_tokens > 0 ? o.num_speculative_tokens : std::max(1, d.model.mtp_layers);
    std::vector<double> acc = o.acceptance;
    if (acc.empty()) acc.assign(static_cast<std::size_t>(s.spec_tokens), 0.7);
    if (acc.size() == 1) acc.assign(static_cast<std::size_t>(s.spec_tokens), acc[0]);
    if (acc.size() != static_cast<std::size_t>(s.spec_tokens))
      throw Bad("--acceptance", "give one rate, or one per speculative token");
    // Expected tokens per verify step: 1 + sum over positions of the chance all drafts up to it
    // were accepted.
    double chain = 1, expected = 1;
    for (double a : acc) {
      if (!(a >= 0 && a <= 1)) throw Bad("--acceptance", "rates must be in [0, 1]");
      chain *= a;
      expected += chain;
    }
    s.tokens_per_step = expected;
  } else if (o.spec_decoding != "none" && !o.spec_decoding.empty()) {
    throw Bad("--spec-decoding", "must be none or mtp");
  }
  ResolveHostTier(o, d);
  PlanMemory(d);
  return d;
}

}  // namespace infermark::perfmodel
