#include "runner/row_engine.hpp"

#include <algorithm>
#include <cstdio>

namespace infermark::runner {

std::string EngineFramework(const std::string& framework) {
  if (framework.find("sglang") != std::string::npos) return "sglang";
  if (framework.find("trt") != std::string::npos) return "trt";
  return "vllm";
}

std::string LabelHardware(const SiteConfig& site, const std::string& label) {
  const RunnerSite* r = site.FindRunner(label);
  if (r != nullptr && r->target.kind == TargetKind::kEngine) return r->target.hardware;
  std::string gpu = label.rfind("cluster:", 0) == 0 ? label.substr(8) : label;
  return gpu.substr(0, gpu.find('-'));
}

std::string LauncherRecipe(const matrix::MatrixRow& row) {
  std::string gpu = row.runner;
  if (gpu.rfind("cluster:", 0) == 0) gpu = gpu.substr(8);
  gpu = gpu.substr(0, gpu.find('-'));
  const std::string exp = row.exp_name.substr(0, row.exp_name.find('_'));
  return exp + "_" + row.precision + "_" + gpu + (row.spec_decoding == "mtp" ? "_mtp" : "");
}

perfmodel::DeploymentOptions RowDeployment(const matrix::MatrixRow& row, const std::string& hardware,
                                           const ModelSite& model) {
  perfmodel::DeploymentOptions d;
  d.model = model.builtin;
  d.hardware = hardware;
  d.framework = EngineFramework(row.framework);
  d.precision = model.precision.empty() ? row.precision : model.precision;
  d.kv_cache_dtype = model.kv_cache_dtype;
  d.tp = row.tp;
  d.ep = row.ep;
  d.dp_attention = row.dp_attn;
  d.max_model_len = row.max_model_len;
  d.spec_decoding = row.spec_decoding == "mtp" ? "mtp" : "none";
  if (!row.Agentic() && !row.prefill) d.recipe = LauncherRecipe(row);
  if (row.Agentic()) {
    // Agentic recipes keep the prefix cache on and, with kv-offloading dram, give the engine a
    // host tier of the row's DRAM budget: SGLang as HiCache per rank, vLLM (any backend: the
    // built-in engine models one host tier whatever the connector) as --kv-offloading-size.
    d.prefix_caching = true;
    if (row.kv_offloading == "dram" && row.total_cpu_dram_gb > 0) {
      if (d.framework == "sglang") {
        d.hierarchical_cache = true;
        d.hicache_size_gb = row.total_cpu_dram_gb / std::max(1, row.tp);
      } else {
        d.kv_offloading_size_gib = row.total_cpu_dram_gb;
        d.kv_offloading_backend = row.kv_offload_backend == "lmcache" ? "lmcache" : "native";
      }
    }
  }
  return d;
}

std::vector<std::string> EngineServeArgv(const std::string& infermark, const perfmodel::DeploymentOptions& d,
                                         const std::string& served_name, const std::string& tokenizer, int port,
                                         double time_scale, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {infermark,
                                   "engine",
                                   "serve",
                                   "--model",
                                   d.model,
                                   "--hardware",
                                   d.hardware,
                                   "--tp",
                                   std::to_string(d.tp),
                                   "--ep",
                                   std::to_string(d.ep),
                                   "--precision",
                                   d.precision,
                                   "--kv-cache-dtype",
                                   d.kv_cache_dtype,
                                   "--framework",
                                   d.framework,
                                   "--port",
                                   std::to_string(port)};
  if (d.dp_attention) argv.push_back("--dp-attn");
  if (d.max_model_len) {
    argv.push_back("--max-model-len");
    argv.push_back(std::to_string(*d.max_model_len));
  }
  if (d.spec_decoding == "mtp") {
    argv.push_back("--spec-decoding");
    argv.push_back("mtp");
  }
  auto number = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  if (!d.recipe.empty()) argv.insert(argv.end(), {"--recipe", d.recipe});
  if (d.prefix_caching && *d.prefix_caching) argv.push_back("--enable-prefix-caching");
  if (d.kv_offloading_size_gib) {
    argv.insert(argv.end(), {"--kv-offloading-size", number(*d.kv_offloading_size_gib), "--kv-offloading-backend",
                             d.kv_offloading_backend.empty() ? std::string("native") : d.kv_offloading_backend});
  }
  if (d.hierarchical_cache) {
    argv.push_back("--enable-hierarchical-cache");
    if (d.hicache_size_gb) argv.insert(argv.end(), {"--hicache-size", number(*d.hicache_size_gb)});
  }
  // Clients name the model as the row does; the engine answers to that name.
  argv.push_back("--served-model-name");
  argv.push_back(served_name);
  if (!tokenizer.empty()) {
    argv.push_back("--tokenizer");
    argv.push_back(tokenizer);
  }
  if (time_scale != 1) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", time_scale);
    argv.push_back("--time-scale");
    argv.push_back(buf);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

}  // namespace infermark::runner
