// Metrics of one run computed from its request records. The compatible part follows the reference
// client's `calculate_metrics` to the letter (what counts as completed, TTFT/TPOT/ITL/E2EL, output
// tokens from the server's usage with 0 when it sent none, throughputs over the run's duration,
// goodput); infermark's own part adds what the reference cannot see (first-text TTFT, latencies
// from the intended send time, tokens per chunk, client-vs-server token counts).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "metrics/request_record.hpp"

namespace infermark::metrics {

/// What to compute.
struct MetricsOptions {
  /// Percentiles reported per metric (the reference's `--metric-percentiles`).
  std::vector<double> percentiles{90.0, 99.0, 99.9};
  /// Service-level objectives in ms by metric ("ttft", "tpot", "e2el") for goodput; empty: no goodput.
  std::map<std::string, double> goodput_slo_ms{};
};

/// mean, median, std and percentiles of one latency series, in milliseconds (or plain units for
/// series that are not times, e.g. tokens per chunk).
struct MetricSummary {
  std::size_t count = 0;                                 ///< Samples.
  double mean = 0.0;                                     ///< np.mean.
  double median = 0.0;                                   ///< np.median.
  double std = 0.0;                                      ///< np.std (population).
  double max = 0.0;                                      ///< Largest sample (0 when none).
  std::vector<std::pair<double, double>> percentiles{};  ///< (p, value) per requested percentile.
};

/// Everything a result file reports about a run.
struct BenchmarkMetrics {
  // --- the reference client's metrics ---
  std::size_t completed = 0;                ///< Successful requests.
  std::size_t failed = 0;                   ///< Requests that failed.
  std::int64_t total_input = 0;             ///< Σ prompt_tokens over successful requests.
  std::int64_t total_output = 0;            ///< Σ output tokens (server usage, 0 when unreported) over successes.
  double request_throughput = 0.0;          ///< completed / duration.
  double output_throughput = 0.0;           ///< total_output / duration.
  double total_token_throughput = 0.0;      ///< (total_input + total_output) / duration.
  std::optional<double> request_goodput{};  ///< good / duration, when SLOs were given.
  std::vector<std::int64_t> input_lens{};   ///< prompt_tokens of every request.
  std::vector<std::int64_t> output_lens{};  ///< Output tokens of every request (0 for failures).
  MetricSummary ttft{};                     ///< Time to first chunk with choices, from the actual send, ms.
  MetricSummary tpot{};                     ///< (E2EL − TTFT)/(output − 1) for requests with output > 1, ms.
  MetricSummary itl{};                      ///< Every gap between successive choice chunks of every request, ms.
  MetricSummary e2el{};                     ///< Send to the reference's latency end, ms.
  // --- infermark's own ---
  MetricSummary first_text_ttft{};            ///< Send to the first chunk with content or reasoning text, ms.
  MetricSummary intended_ttft{};              ///< Intended send time to first chunk, ms (free of coordinated omission).
  MetricSummary intended_e2el{};              ///< Intended send time to latency end, ms.
  MetricSummary send_lag{};                   ///< Actual minus intended send time after the opening wave, ms.
  MetricSummary opening_wave_send_lag{};      ///< The same for the opening wave (all due at the start), ms.
  MetricSummary tokens_per_chunk{};           ///< Output tokens per choice chunk (continuous usage stats), tokens.
  std::size_t chunks = 0;                     ///< Choice chunks received by successful requests.
  std::size_t requests_with_chunk_usage = 0;  ///< Successful requests whose chunks carried token counts.
  std::int64_t server_output_tokens = 0;      ///< Σ usage.completion_tokens over successes.
  std::int64_t client_output_tokens = 0;      ///< Σ the client's own output counts over successes.
  std::size_t output_usage_missing = 0;       ///< Successes whose server sent no usage.
  std::size_t output_token_mismatches = 0;    ///< Successes where client and server output counts differ.
  std::size_t prompt_token_mismatches = 0;    ///< Successes where usage.prompt_tokens ≠ the client's count.
  std::int64_t prompt_token_difference = 0;   ///< Σ (server − client) prompt tokens over those.
  std::map<std::string, std::size_t> failures_by_kind{};  ///< Failed requests per error kind.
};

/// Computes the metrics of `records` (the measured requests, warm-ups excluded) over a run of
/// `duration_s` seconds.
BenchmarkMetrics ComputeMetrics(std::span<const RequestRecord> records, double duration_s,
                                const MetricsOptions& options = {});

/// Summary of `samples` (already in the unit to report) with `percentiles`.
MetricSummary Summarize(std::span<const double> samples, std::span<const double> percentiles);

}  // namespace infermark::metrics
