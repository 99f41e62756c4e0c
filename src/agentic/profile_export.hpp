// aiperf's per-request and run-summary artifacts, as an agentic run leaves them in its artifact
// folder: `profile_export.jsonl` (one record per request, warm-up and profiling alike) and
// `profile_export_aiperf.json` (the run summary). InferenceX's agentic aggregation reads both;
// infermark writes them for its own runs and reads them (its own or aiperf's) to aggregate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::agentic {

/// One per-request metric: `{"value": …, "unit": …}`.
struct ProfileMetric {
  std::string name;
  std::optional<double> value;  ///< Empty when the value is not a number (aiperf also writes lists).
  std::string unit;             ///< "ms", "tokens", … (may be empty).
};

/// One line of profile_export.jsonl.
struct ProfileRecord {
  std::optional<std::string> conversation_id;    ///< aiperf's session id (`<trace>[::sa:<agent>…]`).
  std::optional<std::int64_t> turn_index;        ///< Position of the call in its session.
  std::string x_correlation_id;                  ///< The request's correlation id (may be empty).
  std::optional<std::int64_t> request_start_ns;  ///< Unix ns when the request was sent.
  std::optional<std::int64_t> request_end_ns;    ///< Unix ns when its last byte arrived.
  std::optional<std::string> benchmark_phase;    ///< "warmup" | "profiling"; absent in old artifacts.
  std::vector<ProfileMetric> metrics;            ///< In file order.
  /// The error as written (`{"type", "code", "message"}`, a string, or null when the request
  /// succeeded). Kept verbatim because the aggregation's error categories read any of its forms.
  Json error = nullptr;

  /// The numeric value of metric `name`, if present and numeric.
  [[nodiscard]] std::optional<double> Metric(std::string_view name) const;
  /// Sets (or replaces) metric `name`.
  void SetMetric(std::string_view name, double value, std::string_view unit);
};

/// An error object as aiperf writes it: `{"type": type, "code": code, "message": message}`.
Json RequestError(std::string_view type, std::optional<int> code, std::string_view message);

/// The JSON object of one record (metadata, metrics, error), keys in aiperf's order.
Json ProfileRecordJson(const ProfileRecord& record);
/// Reads one record from its JSON object; `where` (`file:line`) prefixes the messages. Throws
/// InputError naming the field and the rule when a field has the wrong type.
ProfileRecord ProfileRecordFromJson(const Json& object, const std::string& file, int line);

/// Writes `records` to `path` as JSON lines (atomically).
void WriteProfileExport(const std::string& path, const std::vector<ProfileRecord>& records);
/// Reads profile_export.jsonl; blank lines are skipped. Throws InputError (file:line, field, rule)
/// on a line that is not a JSON object or a field of the wrong type.
std::vector<ProfileRecord> ReadProfileExport(const std::string& path);

/// `theoretical_prefix_cache_hit` of the summary: hit blocks over looked-up blocks.
struct PrefixCacheHit {
  std::optional<double> sum;    ///< Hit blocks.
  std::optional<double> count;  ///< Looked-up blocks.
  std::optional<double> avg;    ///< Their ratio, in `unit`.
  std::string unit;             ///< "%" when `avg` is a percentage.
};

/// profile_export_aiperf.json: the fields of aiperf's run summary that InferenceX reads.
struct ProfileSummary {
  std::optional<double> request_count;            ///< `request_count.avg`: successful requests.
  std::optional<double> error_request_count;      ///< `error_request_count.avg`.
  std::optional<double> completed_request_count;  ///< `completed_request_count.avg`: both.
  std::optional<PrefixCacheHit> theoretical_prefix_cache_hit;
  std::string start_time;                               ///< Profiling start, ISO 8601 (aiperf writes naive local time).
  std::string end_time;                                 ///< Profiling end.
  Json dataset = nullptr;                               ///< `metadata.dataset` (an object), null when absent.
  std::optional<bool> submission_valid;                 ///< `metadata.submission_valid`.
  std::vector<std::string> submission_invalid_reasons;  ///< `metadata.submission_invalid_reasons`.
};

/// The summary's JSON object.
Json ProfileSummaryJson(const ProfileSummary& summary);
/// Reads the summary from its JSON object (`file` names it in messages).
ProfileSummary ProfileSummaryFromJson(const Json& object, const std::string& file);
/// Writes profile_export_aiperf.json (atomically, indented).
void WriteProfileSummary(const std::string& path, const ProfileSummary& summary);
/// Reads profile_export_aiperf.json; throws InputError when it is not JSON or a field has the wrong type.
ProfileSummary ReadProfileSummary(const std::string& path);

}  // namespace infermark::agentic
