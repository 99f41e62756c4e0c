// The engine server's Prometheus metrics, under the modelled framework's names so dashboards and
// scrapers made for it read them unchanged: vLLM's (the default; TRT-LLM too) or SGLang's.
// Running/waiting requests, KV-cache usage, token counters, prefix-cache queries and hits (GPU
// and host tier), host offload traffic, request counts by finish reason, and histograms of TTFT,
// time per output token and end-to-end latency (real seconds, i.e. the modelled time divided by
// the time scale); infermark's own series say how late the engine ran. Owned by the engine's
// loop thread: updated there and rendered there for GET /metrics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace infermark::engine {

/// A Prometheus histogram with fixed upper bounds.
class Histogram {
 public:
  /// Buckets with these upper bounds (ascending; +Inf is implied).
  explicit Histogram(std::vector<double> bounds);
  /// Adds one observation.
  void Observe(double value);
  /// Appends `name_bucket{labels,le=…}`, `name_sum` and `name_count` lines.
  void Render(std::string& out, const std::string& name, const std::string& labels) const;
  /// Observations so far.
  [[nodiscard]] std::uint64_t count() const { return count_; }
  /// The upper bound of the bucket holding the `p`-th percentile observation (p in (0, 100]);
  /// +infinity past the last bound, 0 when empty.
  [[nodiscard]] double UpperBoundAt(double p) const;

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; last = +Inf
  double sum_ = 0;
  std::uint64_t count_ = 0;
};

/// Gauges and counters read from the scheduler when rendering.
struct SchedulerGauges {
  std::size_t running = 0;                ///< Sequences in the batch.
  std::size_t waiting = 0;                ///< Sequences queued.
  double kv_usage = 0;                    ///< Fraction of KV blocks in use (0–1).
  std::int64_t preemptions = 0;           ///< Preemptions so far.
  std::int64_t kv_capacity_tokens = 0;    ///< Tokens the GPU KV pool holds.
  bool prefix_caching = false;            ///< The prefix cache is on.
  bool host_tier = false;                 ///< A host-DRAM tier is configured.
  std::int64_t prefix_queries = 0;        ///< Prompt tokens looked up (first admissions).
  std::int64_t prefix_hits = 0;           ///< Of which found on the GPU.
  std::int64_t host_queries = 0;          ///< Prompt tokens looked up with the host tier present.
  std::int64_t host_hits = 0;             ///< Of which loaded back from the host.
  std::int64_t prompt_computed = 0;       ///< Prompt tokens computed (first admissions).
  std::int64_t host_used_tokens = 0;      ///< Tokens the host tier holds.
  std::int64_t host_capacity_tokens = 0;  ///< Tokens the host tier can hold.
  double offload_bytes = 0;               ///< Bytes written GPU → host.
  double offload_seconds = 0;             ///< Link seconds of those writes (modelled).
  double onload_bytes = 0;                ///< Bytes loaded host → GPU.
  double onload_seconds = 0;              ///< Link seconds of those loads (modelled).
  std::int64_t evicted_tokens = 0;        ///< Cached tokens evicted from the GPU.
};

/// Every metric of one server.
struct ServeMetrics {
  ServeMetrics();
  std::uint64_t prompt_tokens = 0;      ///< vllm:prompt_tokens_total.
  std::uint64_t generation_tokens = 0;  ///< vllm:generation_tokens_total.
  std::uint64_t finished_length = 0;    ///< vllm:request_success_total{finished_reason="length"}.
  std::uint64_t finished_stop = 0;      ///< vllm:request_success_total{finished_reason="stop"}.
  std::uint64_t aborted = 0;            ///< vllm:request_success_total{finished_reason="abort"} (client left).
  std::uint64_t rejected = 0;           ///< infermark:requests_rejected_total (queue bound).
  Histogram ttft;                       ///< vllm:time_to_first_token_seconds.
  Histogram tpot;                       ///< vllm:time_per_output_token_seconds.
  Histogram e2e;                        ///< vllm:e2e_request_latency_seconds.
  /// infermark:step_lateness_seconds: how late each pass ended against the modelled schedule, in
  /// real seconds (real-time serving only; at max speed there is no schedule to be late for).
  Histogram step_lateness;
  double step_lateness_max = 0;   ///< infermark:step_lateness_max_seconds (since start).
  std::uint64_t clock_slips = 0;  ///< infermark:clock_slips_total: the schedule restarted from now.
  double clock_slip_seconds = 0;  ///< infermark:clock_slip_seconds_total: real time lost to slips.
  bool sglang = false;            ///< Name the series as SGLang does (else as vLLM does).

  /// The Prometheus text exposition for model `model_name`.
  [[nodiscard]] std::string Render(const std::string& model_name, const SchedulerGauges& gauges) const;

 private:
  void RenderVllm(std::string& out, const std::string& labels, const SchedulerGauges& g) const;
  void RenderSglang(std::string& out, const std::string& labels, const SchedulerGauges& g) const;
};

}  // namespace infermark::engine
