// A point measured several times (repeats) as one result file: each repeat keeps its own file,
// `<stem>.repeat-<k>.json` beside the combined `<stem>.json`, and the combined file is a client
// result like any other — InferenceX's keys, with each number the median over the repeats — so
// process_result.py and every reader of one result read it unchanged. What the repeats add sits in
// `infermark.repeats`: how they were run, their files and verdicts, every repeat's value of every
// number, and each number's median with its confidence interval (core/repeat_stats.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "core/repeat_stats.hpp"

namespace infermark::metrics {

/// How a point's repeats were measured.
struct RepeatSetup {
  /// A new server for each repeat; false: one server, the repeats back to back (the default).
  bool fresh_server = false;
  /// Each repeat's result file name (no folder), in repeat order, beside the combined file.
  std::vector<std::string> files;
  /// Spoiled attempts measured again (host retries), per repeat, in repeat order (may be empty).
  std::vector<int> retries;
};

/// `<stem>.repeat-<k>.json` for the result file `name` (`<stem>.json`), k from 1.
std::string RepeatFileName(const std::string& name, int repeat);

/// `<stem>.repeat-<k>.attempt-<a>.json`: attempt `a` of repeat `k` that the host spoiled and that was
/// measured again (kept, never combined).
std::string RepeatAttemptFileName(const std::string& name, int repeat, int attempt);

/// When `name` is a repeat's file name (or a spoiled attempt's), `<stem>.json` of the point it
/// belongs to; else nothing.
std::optional<std::string> RepeatOwnerName(const std::string& name);

/// The combined result of `repeats` (at least one client result, in repeat order):
/// - every top-level number: the median over the repeats (an integer the lower median, so a count
///   stays a count one repeat had; `power_valid` the least, valid only when every repeat's is); a
///   number some repeat lacks is left out; text, settings and `input_lens`/`output_lens` from the
///   first repeat; per-request arrays (`--save-detailed`) are left to the repeats' files;
/// - the window: the first repeat's start to the last repeat's end (`duration` stays a median);
/// - `complete` when every repeat is; `verdict` VALID when every repeat is, else INVALID with each
///   INVALID repeat's reasons as `repeat k of n: reason`;
/// - `infermark`: the first repeat's provenance (version, commit, host, time scale, kind, dataset,
///   limits, ignored flags, matrix row and recipe), not its per-run diagnostics, plus `repeats`:
///   `{count, server: "same"|"fresh", files, verdicts, retries, confidence_level, method:
///   "order-statistics", values: {key: [v1…vn]}, intervals: {key: {median, low, high, confidence,
///   min, max}}}` over every top-level number whose repeats all have it.
Json CombineRepeatResults(const std::vector<Json>& repeats, const RepeatSetup& setup);

/// The `infermark.repeats` block of a result, or nullptr when it has none.
const Json* RepeatsBlock(const Json& result);

/// The setup a combined result's repeats block states (server, files, retries).
RepeatSetup RepeatSetupOf(const Json& block);

}  // namespace infermark::metrics
