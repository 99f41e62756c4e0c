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

void Metric(std::string& out, const char* name, const char* type, const char* help, const std::string& labels,
            double value) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
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

std::string ServeMetrics::Render(const std::string& model_name, const SchedulerGauges& g) const {
  const std::string labels = "model_name=\"" + LabelValue(model_name) + "\"";
  std::string out;
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
  out +=
      "# HELP vllm:request_success_total Count of finished requests by finish reason.\n"
      "# TYPE vllm:request_success_total counter\n";
  out +=
      "vllm:request_success_total{" + labels + ",finished_reason=\"length\"} " + std::to_string(finished_length) + '\n';
  out += "vllm:request_success_total{" + labels + ",finished_reason=\"stop\"} " + std::to_string(finished_stop) + '\n';
  out += "vllm:request_success_total{" + labels + ",finished_reason=\"abort\"} " + std::to_string(aborted) + '\n';
  Metric(out, "infermark:requests_rejected_total", "counter", "Requests refused because the waiting queue was full.",
         labels, double(rejected));
  out +=
      "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.\n"
      "# TYPE vllm:time_to_first_token_seconds histogram\n";
  ttft.Render(out, "vllm:time_to_first_token_seconds", labels);
  out +=
      "# HELP vllm:time_per_output_token_seconds Histogram of time per output token in seconds.\n"
      "# TYPE vllm:time_per_output_token_seconds histogram\n";
  tpot.Render(out, "vllm:time_per_output_token_seconds", labels);
  out +=
      "# HELP vllm:e2e_request_latency_seconds Histogram of end to end request latency in seconds.\n"
      "# TYPE vllm:e2e_request_latency_seconds histogram\n";
  e2e.Render(out, "vllm:e2e_request_latency_seconds", labels);
  out +=
      "# HELP infermark:step_lateness_seconds How late each forward pass ended against the modelled schedule, in "
      "real seconds.\n"
      "# TYPE infermark:step_lateness_seconds histogram\n";
  step_lateness.Render(out, "infermark:step_lateness_seconds", labels);
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
