// A repeated point's figures in its processed record: `results process` (and ingest) of a combined
// result (metrics/repeat_result.hpp) adds a `repeats` object to the agg record, with every figure of
// the record computed for each repeat as process_result.py computes it (per GPU, in seconds, as
// interactivity), so that each figure's median, interval and range are in the record's own units.
// InferenceX's keys keep their meaning: each is the combined result's figure (for an odd number
// of repeats exactly the median of the repeats' figures).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "core/repeat_stats.hpp"

namespace infermark::results {

struct Point;

/// One figure of a repeated point: every repeat's value, and their median with its interval.
struct RepeatFigure {
  std::vector<double> values;  ///< In repeat order.
  MedianInterval interval;     ///< Median, interval, coverage and range of `values`.
};

/// `repeats` for the agg record of `result`: `{count, server, files, verdicts, confidence_level,
/// method, values: {agg key: [v1…vn]}, intervals: {agg key: {median, low, high, confidence, min,
/// max}}}` over the record's figures (identity fields such as conc, tp or isl left out). `process`
/// turns one client result into its agg record (ProcessClientResult with the caller's settings).
/// Null when `result` has no repeats.
template <typename Process>
Json RepeatRecordBlock(const Json& result, const Process& process);

/// The repeats' client results a combined `result` states: the combined result with each number
/// replaced by repeat k's (its repeats block removed), in repeat order; empty without repeats.
std::vector<Json> RepeatClientResults(const Json& result);

/// The `repeats` block of processed records `records` (one per repeat, in order) with the
/// combined result's `block` (server, files, verdicts).
Json RepeatRecordFromRecords(const std::vector<Json>& records, const Json& block);

/// How many repeats an agg record's point has (1 without a `repeats` block).
int RepeatCount(const Json& agg);

/// The repeats of figure `key` of `agg` as stored (not de-scaled), or nothing for a point measured
/// once or a figure the block lacks.
std::optional<RepeatFigure> RepeatFigureOf(const Json& agg, const std::string& key);

/// The same, de-scaled as DeScaled de-scales the figure (throughputs and interactivities divided by
/// the point's time scale, latencies multiplied, anything else as stored).
std::optional<RepeatFigure> DeScaledRepeatFigure(const Point& point, const std::string& key);

template <typename Process>
Json RepeatRecordBlock(const Json& result, const Process& process) {
  const std::vector<Json> repeats = RepeatClientResults(result);
  if (repeats.empty()) return Json();
  std::vector<Json> records;
  records.reserve(repeats.size());
  for (const Json& r : repeats) records.push_back(process(r));
  return RepeatRecordFromRecords(records, result["infermark"]["repeats"]);
}

}  // namespace infermark::results
