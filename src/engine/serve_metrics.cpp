#include "engine/serve_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace infermark::engine {
namespace {

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Label values escape backslash, double quote and newline.
std::string LabelValue(const std::string& v) {
  std::string out;
  for (const char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// A family's HELP and TYPE lines.
void Header(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void Metric(std::string& out, const char* name, const char* type, const char* help, const std::string& labels,
            double value) {
  Header(out, name, type, help);
  out += name;
  out += '{';
  out += labels;
  out += "} ";
  out += Num(value);
  out += '\n';
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  ++counts_[static_cast<std::size_t>(it - bounds_.begin())];
  sum_ += value;
  ++count_;
}

void Histogram::Render(std::string& out, const std::string& name, const std::string& labels) const {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += name + "_bucket{" + labels + ",le=\"" + (i < bounds_.size() ? Num(bounds_[i]) : std::string("+Inf")) +
           "\"} " + std::to_string(cumulative) + '\n';
  }
  out += name + "_sum{" + labels + "} " + Num(sum_) + '\n';
  out += name + "_count{" + labels + "} " + std::to_string(count_) + '\n';
}

double Histogram::UpperBoundAt(double p) const {
  if (count_ == 0) return 0;
  // The rank of the percentile's observation, counted from 1.
  const auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * double(count_)));
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    if (cumulative >= std::max<std::uint64_t>(rank, 1)) return bounds_[i];
  }
  return std::numeric_limits<double>::infinity();
}

// vLLM's bucket bounds for these histograms.
ServeMetrics::ServeMetrics()
    : ttft({0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
            1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}),
      tpot({0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}),
      e2e({0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
           30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}),
      // 1-2-5 steps from 10 µs to 10 s, so that the verdict's 1 ms bound is a bucket edge.
      step_lateness({0.00001, 0.00002, 0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2,
                     0.5, 1.0, 2.0, 5.0, 10.0}) {}

namespace {

// One family of several labelled series (`extra` is appended to the common labels).
void Family(std::string& out, const char* name, const char* type, const char* help, const std::string& labels,
            const std::vector<std::pair<std::string, double>>& series) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
  for (const auto& [extra, value] : series) {
    out += name;
    out += '{';
    out += labels;
    out += ',';
    out += extra;
    out += "} ";
    out += Num(value);
    out += '\n';
  }
}

// One histogram family: its HELP and TYPE lines, then its buckets, sum and count.
void HistogramFamily(std::string& out, const Histogram& h, const char* name, const char* help,
                     const std::string& labels) {
  Header(out, name, "histogram", help);
  h.Render(out, name, labels);
}

}  // namespace

// The names are the engines' own, and those InferenceX's agentic aggregation reads
// (SemiAnalysisAI/InferenceX utils/agentic/aggregation/server_metrics.py, backends/vllm.py,
// backends/sglang.py): vllm:prefix_cache_{queries,hits}, vllm:external_prefix_cache_{queries,hits},
// vllm:prompt_tokens_by_source{source}, vllm:kv_cache_usage_perc, vllm:cpu_kv_cache_usage_perc,
// vllm:kv_offload_{bytes,time}_{gpu_to_cpu,cpu_to_gpu}, vllm:prompt_tokens, vllm:generation_tokens;
// sglang:cached_tokens{cache_source}, sglang:prompt_tokens, sglang:generation_tokens,
// sglang:token_usage, sglang:max_total_num_tokens, sglang:hicache_host_{used,total}_tokens,
// sglang:realtime_tokens{mode="prefill_compute"}, sglang:cache_hit_rate. Counters carry the
// `_total` suffix in HELP, TYPE and samples, as Python's prometheus_client writes them; scrapers
// (aiperf) read the family without it.
void ServeMetrics::RenderVllm(std::string& out, const std::string& labels, const SchedulerGauges& g) const {
  Metric(out, "vllm:num_requests_running", "gauge", "Number of requests in model execution batches.", labels,
         double(g.running));
  Metric(out, "vllm:num_requests_waiting", "gauge", "Number of requests waiting to be processed.", labels,
         double(g.waiting));
  Metric(out, "vllm:gpu_cache_usage_perc", "gauge", "GPU KV-cache usage. 1 means 100 percent usage.", labels,
         g.kv_usage);
  Metric(out, "vllm:kv_cache_usage_perc", "gauge", "KV-cache usage. 1 means 100 percent usage.", labels, g.kv_usage);
  Metric(out, "vllm:num_preemptions_total", "counter", "Cumulative number of preemptions.", labels,
         double(g.preemptions));
  Metric(out, "vllm:prompt_tokens_total", "counter", "Number of prefill tokens processed.", labels,
         double(prompt_tokens));
  Metric(out, "vllm:generation_tokens_total", "counter", "Number of generation tokens processed.", labels,
         double(generation_tokens));
  if (g.prefix_caching) {
    Metric(out, "vllm:prefix_cache_queries_total", "counter",
           "Prefix cache queries, in terms of number of queried tokens.", labels, double(g.prefix_queries));
    Metric(out, "vllm:prefix_cache_hits_total", "counter", "Prefix cache hits, in terms of number of cached tokens.",
           labels, double(g.prefix_hits));
    Family(out, "vllm:prompt_tokens_by_source_total", "counter", "Number of prompt tokens by source.", labels,
           {{"source=\"local_compute\"", double(g.prompt_computed)},
            {"source=\"local_cache_hit\"", double(g.prefix_hits)},
            {"source=\"external_kv_transfer\"", double(g.host_hits)}});
  }
  if (g.host_tier) {
    Metric(out, "vllm:external_prefix_cache_queries_total", "counter",
           "External prefix cache queries from KV connector cross-instance cache sharing, in terms of number of "
           "queried tokens.",
           labels, double(g.host_queries));
    Metric(out, "vllm:external_prefix_cache_hits_total", "counter",
           "External prefix cache hits from KV connector cross-instance cache sharing, in terms of number of cached "
           "tokens.",
           labels, double(g.host_hits));
    const double cpu_usage =
        g.host_capacity_tokens > 0 ? double(g.host_used_tokens) / double(g.host_capacity_tokens) : 0.0;
    Metric(out, "vllm:cpu_kv_cache_usage_perc", "gauge", "CPU KV-cache usage. 1 means 100 percent usage.", labels,
           cpu_usage);
    Metric(out, "vllm:kv_offload_cpu_cache_usage_perc", "gauge", "CPU KV-cache usage. 1 means 100 percent usage.",
           labels, cpu_usage);
    Family(out, "vllm:kv_offload_total_bytes_total", "counter", "Number of bytes offloaded by KV connector.", labels,
           {{"transfer_type=\"GPU_to_CPU\"", g.offload_bytes}, {"transfer_type=\"CPU_to_GPU\"", g.onload_bytes}});
    Family(out, "vllm:kv_offload_total_time_total", "counter", "Total time measured by all KV offloading operations.",
           labels,
           {{"transfer_type=\"GPU_to_CPU\"", g.offload_seconds}, {"transfer_type=\"CPU_to_GPU\"", g.onload_seconds}});
    Metric(out, "vllm:kv_offload_bytes_gpu_to_cpu_total", "counter", "Bytes of KV blocks written to host memory.",
           labels, g.offload_bytes);
    Metric(out, "vllm:kv_offload_bytes_cpu_to_gpu_total", "counter", "Bytes of KV blocks loaded from host memory.",
           labels, g.onload_bytes);
    Metric(out, "vllm:kv_offload_time_gpu_to_cpu_total", "counter", "Seconds spent writing KV blocks to host memory.",
           labels, g.offload_seconds);
    Metric(out, "vllm:kv_offload_time_cpu_to_gpu_total", "counter", "Seconds spent loading KV blocks from host memory.",
           labels, g.onload_seconds);
  }
  out +=
      "# HELP vllm:request_success_total Count of finished requests by finish reason.\n"
      "# TYPE vllm:request_success_total counter\n";
  out +=
      "vllm:request_success_total{" + labels + ",finished_reason=\"length\"} " + std::to_string(finished_length) + '\n';
  out += "vllm:request_success_total{" + labels + ",finished_reason=\"stop\"} " + std::to_string(finished_stop) + '\n';
  out += "vllm:request_success_total{" + labels + ",finished_reason=\"abort\"} " + std::to_string(aborted) + '\n';
  Metric(out, "infermark:requests_rejected_total", "counter", "Requests refused because the waiting queue was full.",
         labels, double(rejected));
  HistogramFamily(out, ttft, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                  labels);
  HistogramFamily(out, tpot, "vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.",
                  labels);
  HistogramFamily(out, e2e, "vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.",
                  labels);
}

void ServeMetrics::RenderSglang(std::string& out, const std::string& labels, const SchedulerGauges& g) const {
  Metric(out, "sglang:num_running_reqs", "gauge", "The number of running requests.", labels, double(g.running));
  Metric(out, "sglang:num_queue_reqs", "gauge", "The number of requests in the waiting queue.", labels,
         double(g.waiting));
  Metric(out, "sglang:token_usage", "gauge", "The token usage.", labels, g.kv_usage);
  Metric(out, "sglang:num_used_tokens", "gauge", "The number of used tokens.", labels,
         g.kv_usage * double(g.kv_capacity_tokens));
  Metric(out, "sglang:max_total_num_tokens", "gauge", "Maximum total number of tokens in the KV cache pool.", labels,
         double(g.kv_capacity_tokens));
  const double cached = double(g.prefix_hits + g.host_hits);
  Metric(out, "sglang:cache_hit_rate", "gauge", "The prefix cache hit rate.", labels,
         g.prefix_queries > 0 ? cached / double(g.prefix_queries) : 0.0);
  Metric(out, "sglang:prompt_tokens_total", "counter", "Number of prefill tokens processed.", labels,
         double(prompt_tokens));
  Metric(out, "sglang:generation_tokens_total", "counter", "Number of generation tokens processed.", labels,
         double(generation_tokens));
  Family(out, "sglang:cached_tokens_total", "counter", "Number of cached prompt tokens.", labels,
         {{"cache_source=\"device\"", double(g.prefix_hits)}, {"cache_source=\"host\"", double(g.host_hits)}});
  Family(out, "sglang:realtime_tokens_total", "counter", "Tokens processed, by mode.", labels,
         {{"mode=\"prefill_compute\"", double(g.prompt_computed)},
          {"mode=\"prefill_cache\"", cached},
          {"mode=\"decode\"", double(generation_tokens)}});
  Metric(out, "sglang:evicted_tokens_total", "counter", "Tokens evicted from the device cache.", labels,
         double(g.evicted_tokens));
  if (g.host_tier) {
    Metric(out, "sglang:hicache_host_used_tokens", "gauge", "Tokens held in the HiCache host pool.", labels,
           double(g.host_used_tokens));
    Metric(out, "sglang:hicache_host_total_tokens", "gauge", "Capacity of the HiCache host pool in tokens.", labels,
           double(g.host_capacity_tokens));
    Metric(out, "sglang:load_back_tokens_total", "counter", "Tokens loaded back from the host pool.", labels,
           double(g.host_hits));
  }
  Metric(out, "sglang:num_requests_total", "counter", "Number of requests processed.", labels,
         double(finished_length + finished_stop + aborted));
  Metric(out, "sglang:num_aborted_requests_total", "counter", "Number of requests aborted.", labels, double(aborted));
  Metric(out, "infermark:requests_rejected_total", "counter", "Requests refused because the waiting queue was full.",
         labels, double(rejected));
  HistogramFamily(out, ttft, "sglang:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
                  labels);
  HistogramFamily(out, tpot, "sglang:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.",
                  labels);
  HistogramFamily(out, e2e, "sglang:e2e_request_latency_seconds", "Histogram of end-to-end request latency in seconds.",
                  labels);
}

std::string ServeMetrics::Render(const std::string& model_name, const SchedulerGauges& g) const {
  const std::string labels = "model_name=\"" + LabelValue(model_name) + "\"";
  std::string out;
  if (sglang)
    RenderSglang(out, labels, g);
  else
    RenderVllm(out, labels, g);
  HistogramFamily(out, step_lateness, "infermark:step_lateness_seconds",
                  "How late each forward pass ended against the modelled schedule, in real seconds.", labels);
  Metric(out, "infermark:step_lateness_max_seconds", "gauge", "The latest a pass has ended, in real seconds.", labels,
         step_lateness_max);
  Metric(out, "infermark:clock_slips_total", "counter",
         "Times the engine fell more than 5 ms behind and restarted its schedule from now.", labels,
         double(clock_slips));
  Metric(out, "infermark:clock_slip_seconds_total", "counter", "Real time lost to clock slips.", labels,
         clock_slip_seconds);
  return out;
}

}  // namespace infermark::engine
