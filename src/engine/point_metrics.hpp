// Serving metrics of one benchmark point from per-request latencies, with the reference
// client's definitions (shared/reference/inferencex-spec.md §4.5 and §5.1): numpy medians
// (linear interpolation), TPOT = (E2EL − TTFT)/(output − 1) over requests with more than one
// output token, throughputs over the benchmark duration, per GPU.
#pragma once

#include <vector>

#include "engine/request_record.hpp"

namespace infermark::engine {

/// InferenceX's processed figures of one point (seconds, tokens/s/GPU, tokens/s/user).
struct PointMetrics {
  int completed = 0;               ///< Successful requests.
  double duration_s = 0;           ///< Benchmark duration.
  double total_input_tokens = 0;   ///< Prompt tokens of successful requests.
  double total_output_tokens = 0;  ///< Output tokens of successful requests.
  double tput_per_gpu = 0;         ///< (input + output) tokens/s per GPU.
  double output_tput_per_gpu = 0;  ///< Output tokens/s per GPU.
  double input_tput_per_gpu = 0;   ///< Input tokens/s per GPU.
  double median_ttft = 0;          ///< Seconds.
  double median_tpot = 0;          ///< Seconds.
  double median_e2el = 0;          ///< Seconds.
  double median_intvty = 0;        ///< 1 / median TPOT, tokens/s/user.
  double p90_ttft = 0;             ///< Seconds.
  double p99_ttft = 0;             ///< Seconds.
  double p90_tpot = 0;             ///< Seconds.
  double p99_tpot = 0;             ///< Seconds.
};

/// numpy.percentile(values, p) with linear interpolation; 0 for an empty list. Reorders `values`.
double Percentile(std::vector<double>& values, double p);

/// Metrics from latency lists (seconds); `tpot` holds only requests with more than one token.
PointMetrics SummarizeLatencies(std::vector<double> ttft, std::vector<double> tpot, std::vector<double> e2el,
                                double total_input, double total_output, double duration_s, int num_gpus,
                                int completed);

/// Metrics from per-request records.
PointMetrics SummarizeRecords(const std::vector<RequestRecord>& records, double duration_s, int num_gpus);

}  // namespace infermark::engine
