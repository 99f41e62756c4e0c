// The result file: the reference client's `--save-result` JSON (same keys in the same order, same
// units and quirks such as the `"request_goodput:"` key, Python's json.dumps text) so that
// InferenceX's process_result.py reads it unchanged, followed by infermark's own fields. Our
// additions never end in "ms" and never contain "tpot" at the top level, because the post-processor
// converts every such key (and would divide by a zero TPOT).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"
#include "metrics/benchmark_metrics.hpp"
#include "metrics/host_error.hpp"
#include "metrics/request_record.hpp"
#include "metrics/verdict.hpp"

namespace infermark::metrics {

/// The settings a result file states before its numbers.
struct ResultHeader {
  std::string date{};                                           ///< Local time, "%Y%m%d-%H%M%S".
  std::string backend{};                                        ///< --backend.
  std::string model_id{};                                       ///< --model.
  std::string tokenizer_id{};                                   ///< --tokenizer (the model when not given).
  int best_of = 1;                                              ///< --best-of.
  std::size_t num_prompts = 0;                                  ///< --num-prompts.
  std::vector<std::pair<std::string, std::string>> metadata{};  ///< --metadata KEY=VALUE, in order.
  std::optional<double> request_rate{};                         ///< --request-rate; nullopt: "inf".
  double burstiness = 1.0;                                      ///< --burstiness.
  std::optional<int> max_concurrency{};                         ///< --max-concurrency; nullopt: null.
  double duration_s = 0.0;                                      ///< Measured window, seconds.
  double start_time_unix = 0.0;                                 ///< Wall clock at the window's start.
  double end_time_unix = 0.0;                                   ///< Wall clock at its end.
  /// Metrics given mean/median/std/percentile keys (--percentile-metrics), in the reference's order.
  std::vector<std::string> percentile_metrics{"ttft", "tpot", "itl", "e2el"};
  bool detailed = false;  ///< Add the per-request arrays ttfts, itls, generated_texts, errors.
};

/// Version of the metric definitions a result file was computed with.
inline constexpr int kMetricsVersion = 1;

/// The result document. `infermark` is appended under the key "infermark" (phases, ignored flags,
/// client self-measurements …; any JSON object).
Json BuildResultJson(const ResultHeader& header, const BenchmarkMetrics& metrics,
                     std::span<const RequestRecord> records, const Verdict& verdict, bool complete,
                     Json infermark = Json::object());

/// infermark's own metrics (first-text TTFT, intended-time latencies, tokens per chunk, token
/// counts) as a JSON object, for BuildResultJson's `infermark` section.
Json OwnMetricsJson(const BenchmarkMetrics& metrics);

/// `infermark.host_error`: `{result key: {"abs": …, "rel": … or null}}` in the result's key order.
Json HostErrorJson(const HostError& error);

/// `infermark.host_timing`: where the host's time went, when the engine's epoch was known:
/// `request_path_ms` (send to entry into the model, per request) and `emission_to_arrival_ms`
/// (modelled time to arrival here, per chunk), each a summary; null otherwise.
Json HostTimingJson(const HostError& error);

/// `infermark.host_error_marks`: one object per marked statistic (key, abs, rel, headline, cause).
Json FigureMarksJson(std::span<const FigureMark> marks);

/// One request as a JSON object (a line of the per-request JSONL file).
Json RequestRecordJson(const RequestRecord& record);

/// The reference's percentile key word: "90", "99", "99.9".
std::string PercentileWord(double p);

/// Writes `result` as Python's json.dumps writes it, atomically (temporary file, then rename).
void WriteResultJson(const std::string& path, const Json& result);

/// Writes one JSON object per line for `records`, atomically.
void WriteRecordsJsonl(const std::string& path, std::span<const RequestRecord> records);

}  // namespace infermark::metrics
