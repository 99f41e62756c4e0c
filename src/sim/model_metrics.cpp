#include "sim/model_metrics.hpp"

#include <cstdio>

namespace infermark::sim {
namespace {

void Line(std::string& out, const char* family, const char* type, const std::string& sample, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " %.17g\n", value);
  out += std::string("# TYPE ") + family + " " + type + "\n" + sample + buf;
}

}  // namespace

std::string ModelMetricsText(const perfmodel::SchedulerStats& s, const perfmodel::Deployment& d) {
  std::string out;
  const std::string model = "model_name=\"" + d.model.name + "\"";
  const auto q = [&](const char* name, const std::string& labels = {}) {
    return std::string(name) + "{" + model + (labels.empty() ? "" : "," + labels) + "}";
  };
  const bool host = d.scheduler.host_kv_tokens > 0;
  const auto computed = static_cast<double>(s.prompt_computed);
  if (d.framework.name == "sglang") {
    Line(out, "sglang:prompt_tokens", "counter", q("sglang:prompt_tokens_total"),
         static_cast<double>(s.prefix_queries));
    out += "# TYPE sglang:cached_tokens counter\n";
    out += q("sglang:cached_tokens_total", "cache_source=\"device\"") + " " + std::to_string(s.prefix_hits) + "\n";
    out += q("sglang:cached_tokens_total", "cache_source=\"host\"") + " " + std::to_string(s.host_hits) + "\n";
    Line(out, "sglang:max_total_num_tokens", "gauge", q("sglang:max_total_num_tokens"),
         static_cast<double>(d.memory.kv_capacity_tokens));
    if (host) {
      Line(out, "sglang:hicache_host_used_tokens", "gauge", q("sglang:hicache_host_used_tokens"),
           static_cast<double>(s.host_used_tokens));
      Line(out, "sglang:hicache_host_total_tokens", "gauge", q("sglang:hicache_host_total_tokens"),
           static_cast<double>(d.scheduler.host_kv_tokens));
    }
    return out;
  }
  Line(out, "vllm:prompt_tokens", "counter", q("vllm:prompt_tokens_total"), static_cast<double>(s.prefix_queries));
  Line(out, "vllm:prefix_cache_queries", "counter", q("vllm:prefix_cache_queries_total"),
       static_cast<double>(s.prefix_queries));
  Line(out, "vllm:prefix_cache_hits", "counter", q("vllm:prefix_cache_hits_total"), static_cast<double>(s.prefix_hits));
  out += "# TYPE vllm:prompt_tokens_by_source counter\n";
  out += q("vllm:prompt_tokens_by_source_total", "source=\"local_compute\"") + " " + std::to_string(computed) + "\n";
  out += q("vllm:prompt_tokens_by_source_total", "source=\"local_cache_hit\"") + " " + std::to_string(s.prefix_hits) +
         "\n";
  out += q("vllm:prompt_tokens_by_source_total", "source=\"external_kv_transfer\"") + " " +
         std::to_string(s.host_hits) + "\n";
  if (host) {
    Line(out, "vllm:external_prefix_cache_queries", "counter", q("vllm:external_prefix_cache_queries_total"),
         static_cast<double>(s.host_queries));
    Line(out, "vllm:external_prefix_cache_hits", "counter", q("vllm:external_prefix_cache_hits_total"),
         static_cast<double>(s.host_hits));
    Line(out, "vllm:kv_offload_bytes_gpu_to_cpu", "counter", q("vllm:kv_offload_bytes_gpu_to_cpu_total"),
         s.host.offload_bytes);
    Line(out, "vllm:kv_offload_bytes_cpu_to_gpu", "counter", q("vllm:kv_offload_bytes_cpu_to_gpu_total"),
         s.host.onload_bytes);
    Line(out, "vllm:kv_offload_time_gpu_to_cpu", "counter", q("vllm:kv_offload_time_gpu_to_cpu_total"),
         s.host.offload_seconds);
    Line(out, "vllm:kv_offload_time_cpu_to_gpu", "counter", q("vllm:kv_offload_time_cpu_to_gpu_total"),
         s.host.onload_seconds);
  }
  return out;
}

}  // namespace infermark::sim
