// `infermark bench agentic`: the whole measured run of an agentic-coding point. Loads the trace
// corpus and the tokenizer, connects to the server, scrapes its /metrics over the profiling
// window, replays the sessions on one client core, and judges the run (InferenceX's validity
// rules plus the client's own: how late each call went out against its intended time).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "agentic/replay.hpp"
#include "agentic/trace_reader.hpp"
#include "core/json_text.hpp"
#include "loadgen/target.hpp"

namespace infermark::agentic {

/// The client's settings (aiperf's flags, as InferenceX passes them).
struct AgenticBenchConfig {
  std::string base_url;                           ///< --base-url / --url.
  std::string endpoint = "/v1/chat/completions";  ///< --endpoint.
  std::string model;                              ///< --model: sent in requests unless served_model_name.
  std::string served_model_name;                  ///< --served-model-name.
  std::string tokenizer;                          ///< --tokenizer (default: the model).
  std::string traces;                             ///< --traces: file, folder or dataset name.
  std::int64_t max_context_length = 0;            ///< --max-context-length (0: the server's).
  ReplayOptions replay;                           ///< Lanes, duration, warm-up, caps, seed.
  std::vector<std::string> server_metrics_urls;   ///< --server-metrics: scraped beside BASE/metrics.
  double scrape_interval_s = 5;                   ///< Seconds between /metrics scrapes.
  double min_duration_s = 900;                    ///< Shorter runs are invalid unless unsafe_override.
  bool unsafe_override = false;                   ///< --unsafe-override: InferenceX marks such runs invalid.
  double max_send_lag_p99_ms = 1.0;               ///< The client's own check.
  std::vector<int> cpus;                          ///< --cpus: the client's event loop pinned here.
};

/// What a measured agentic run left behind.
struct AgenticBench {
  TraceLoad traces;
  ReplayRun run;
  loadgen::TargetReport report;  ///< The target's view (the built-in engine's self-check among it).
  double unix_at_zero = 0;       ///< Unix seconds of the executor clock's 0.
  std::string tokenizer_source;  ///< The tokenizer file used ("" when none).
  /// The server's metrics over the profiling window, as aiperf's server_metrics_export.json.
  Json server_metrics = Json::object();
  std::size_t metrics_scrapes = 0;          ///< Scrapes taken (every URL, every interval).
  std::size_t metrics_scrape_failures = 0;  ///< Of them, those that did not answer 200.
  /// Per profiled call: sent minus intended (its prerequisite's end plus the recorded gap); the
  /// opening wave (every lane's start turn, all due as profiling opens) apart.
  std::vector<double> send_lag_ms;
  std::vector<double> opening_lag_ms;        ///< The opening wave's: how long putting it on the wire took.
  std::vector<std::string> invalid_reasons;  ///< Empty: the run is valid.
};

/// Runs the point. Throws InputError for bad settings, loadgen::ServerUnreachable when the
/// server cannot be reached before the run.
AgenticBench RunAgenticBench(const AgenticBenchConfig& config);

/// The `p`-th percentile of `values`, interpolated linearly at k = (n − 1)·p/100 (0 when empty).
double LinearPercentile(std::vector<double> values, double p);

/// InferenceX's validity rules and the client's own, over a finished replay: the reasons it is
/// invalid (empty: valid).
std::vector<std::string> JudgeReplay(const ReplayRun& run, double duration_s, double min_duration_s,
                                     bool unsafe_override, const std::vector<double>& send_lag_ms,
                                     double max_send_lag_p99_ms);

}  // namespace infermark::agentic
