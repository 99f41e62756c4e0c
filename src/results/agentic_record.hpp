// InferenceX's agentic aggregate (`<RESULT_FILENAME>.json` of an agentic-coding row, InferenceX's
// own or infermark's) as a processed record: the aggregate kept key for key, with the flat metric
// keys the dashboard's ingestion derives from its nested blocks appended (per-GPU throughput,
// `median_*`/`p90_*` latency and interactivity, cache hit rates, server token totals), the users and
// offload mode, and its validity. InferenceX never runs process_result.py on these; this record is
// what `results process` writes for one and what the store keeps.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::results {

/// True when `doc` is an agentic aggregate or a processed agentic record: an object whose
/// `scenario_type` is `agentic-coding`, or that holds `request_metrics`.
bool IsAgenticAggregate(const Json& doc);

/// aiperf's run summary beside an aggregate: `aiperf_artifacts/profile_export_aiperf.json` in the
/// aggregate's folder (or in that folder's only sub-folder holding one), as the runner lays it out.
/// Null when there is none; throws InputError naming the summary when it is not a JSON object.
Json ReadAgenticSummaryBeside(const std::string& aggregate_path);

/// The failed-request threshold of InferenceX's agentic gate (`validate_agentic_result.py`).
inline constexpr double kAgenticFailedRequestThreshold = 0.10;

/// The processed record for `aggregate` (see the file comment); `summary` is aiperf's run summary
/// (null when unknown). Keys appended after the aggregate's own, each only when its source is present:
/// - `benchmark_type` (`agentic_traces`), `users` (= conc), `offload_mode` (`on`/`off`);
/// - `tput_per_gpu`, `output_tput_per_gpu`, `input_tput_per_gpu` (from `request_metrics.throughput.per_gpu`),
///   `total_tput_tps`, `output_tput_tps`, `input_tput_tps`, `duration_seconds`;
/// - `{mean,median,p75,p90,p95,p99,std}_{ttft,e2el,itl,tpot,intvty,e2e_norm_intvty,full_response_itl,
///   full_response_intvty,qps}` (p50 written as median); where full-response figures exist they are
///   also the canonical `*_itl`/`*_intvty`, as the dashboard makes them (the streaming ones stay in
///   `request_metrics.latency`);
/// - `theoretical_cache_hit_rate`, `server_{overall,gpu,cpu,external}_cache_hit_rate`,
///   `gpu_kv_cache_usage_pct`, `total_prompt_tokens`, `total_generation_tokens`, `total_requests_completed`;
/// - `submission_valid` and `submission_invalid_reasons`: the aggregate's own verdict if it has one,
///   aiperf's (`metadata.submission_valid`), and InferenceX's gate (errors / completed requests at
///   most kAgenticFailedRequestThreshold, from the summary's counts or else the request accounting).
/// Normalizing a processed record again gives the same record. Throws InputError (file `path`, the
/// field's dotted path, the rule) for a malformed aggregate.
Json NormalizeAgenticAggregate(const Json& aggregate, const Json& summary, const std::string& path);

/// The agentic figures of a processed record that tables, the store and the CSV export show.
struct AgenticFields {
  long long users = 0;                               ///< Concurrent users (live session trees).
  std::string kv_offloading;                         ///< `none` or `dram`.
  std::string kv_offload_backend;                    ///< Backend name; empty without offloading.
  std::optional<double> allocated_cpu_dram_gb;       ///< Host DRAM given to the KV tier, GB.
  std::optional<double> duration_s;                  ///< Profiled window, s.
  std::optional<double> theoretical_cache_hit_rate;  ///< Prefix-cache hit rate an infinite cache would reach (0–1).
  std::optional<double> server_cache_hit_rate;       ///< Server-measured overall hit rate (else its GPU one), 0–1.
  std::optional<double> server_gpu_cache_hit_rate;   ///< Server-measured GPU-tier hit rate, 0–1.
  std::optional<double> server_cpu_cache_hit_rate;   ///< Server-measured host-tier hit rate, 0–1.
  std::optional<long long> kv_cache_pool_tokens;     ///< The GPU KV pool, tokens.
  std::optional<long long> requests_total;           ///< Records (warm-up and failures included).
  std::optional<long long> requests_successful;      ///< Profiled, successful requests.
  std::optional<long long> requests_error;           ///< Failed requests.
  std::vector<std::string> warnings;                 ///< The aggregate's warnings.
};

/// The agentic figures of processed record `record` (absent ones stay empty).
AgenticFields AgenticFieldsOf(const Json& record);

/// `VALID`, or `INVALID: ` and the reasons, from a processed record's `submission_valid`.
std::string AgenticVerdict(const Json& record);

}  // namespace infermark::results
