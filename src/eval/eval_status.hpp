// An eval's summary beside its lm-eval files: `eval_status.json` (schema infermark.eval_status/1),
// what became of the eval (scored, not run, INVALID, incomplete), its gated score with stderr and
// sample count, the threshold applied and the verdict. The runner writes one for every eval it
// runs or records (`<result-dir>/evals/<name>/eval_status.json`; in a batched folder, one per
// concurrency, `eval_status_conc<N>.json`, named as InferenceX names a batch's files) whatever ran
// the eval, so the results store reads one shape (docs/evals.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "eval/thresholds.hpp"

namespace infermark::eval {

/// The status file's name.
inline constexpr const char* kEvalStatusFile = "eval_status.json";

/// The status file of `conc` in a batched folder, `eval_status_conc<N>.json`; without a
/// concurrency, kEvalStatusFile.
std::string EvalStatusFileName(std::optional<long long> batched_conc);

/// The gated metric, as validate_scores.py's default prefix and the strict filter name it.
inline constexpr const char* kGatedMetric = "exact_match,strict-match";

/// What eval_status.json holds.
struct EvalStatus {
  std::string task = "gsm8k";             ///< The task.
  std::string status = "not_run";         ///< "scored", "not_run", "invalid" or "incomplete".
  std::vector<std::string> reasons;       ///< Why not run / INVALID / incomplete / failed; empty otherwise.
  std::string metric = kGatedMetric;      ///< The gated metric.
  std::optional<double> score;            ///< The gated metric's value (scored, invalid, incomplete).
  std::optional<double> stderr_;          ///< Its standard error.
  std::optional<long long> n;             ///< Documents scored.
  std::optional<double> flexible_score;   ///< exact_match,flexible-extract.
  std::optional<double> flexible_stderr;  ///< Its standard error.
  std::optional<double> threshold;        ///< The threshold applied (null: none applies).
  std::string threshold_source;           ///< The model prefix, "default" or "min-score" (empty with no threshold).
  std::optional<bool> passed;             ///< The gate's verdict (null: not scored).
  long long concurrency = 0;              ///< The eval's request concurrency.
  std::string result_filename;            ///< The row's RESULT_FILENAME.
  std::string results_file;               ///< The results file's name in the folder (empty: none).
  std::string started_utc;                ///< When the eval started (ISO 8601, Z).
  double duration_s = 0;                  ///< How long it took.
  std::string server;                     ///< What answered ("built-in engine", "command …", "launcher script …").

  /// The eval failed the row: INVALID, incomplete, or below its threshold.
  [[nodiscard]] bool Failed() const { return status == "invalid" || status == "incomplete" || passed == false; }
  /// One line for people: "scored gsm8k 0.9431 ± 0.0064 (n 1319), passed (>= 0.90 default)", or the
  /// status with its reasons.
  [[nodiscard]] std::string Summary() const;
};

/// The status as JSON.
Json EvalStatusJson(const EvalStatus& status);

/// Writes the status file (atomically; the folder is created when missing): `<dir>/eval_status.json`,
/// or in a batched folder `<dir>/eval_status_conc<N>.json` for the status's concurrency.
void WriteEvalStatus(const std::string& dir, const EvalStatus& status, bool batched = false);

/// Reads `<dir>/eval_status.json`, or `eval_status_conc<N>.json` for `batched_conc`; nullopt when
/// missing or not a status file.
std::optional<EvalStatus> ReadEvalStatus(const std::string& dir, std::optional<long long> batched_conc = {});

/// Judges the lm-eval files in `dir` (the newest results_*.json by modification time, as
/// collect_eval_results.py takes it, else invalid_results_… / incomplete_results_…): status,
/// scores and, for a finished run, the gate under `model_prefix`. With `batched_conc`, the files of
/// that concurrency in a batched folder (`…_conc<N>[_k].json`), and a concurrency its meta_env.json
/// lists as failed is INVALID whatever its files say (collect_eval_results.py takes none of them).
/// A folder without a results file is INVALID ("no results file"). The caller fills concurrency,
/// the row, the times and the server.
EvalStatus JudgeEvalFolder(const std::string& dir, const EvalThresholds& thresholds, const std::string& model_prefix,
                           std::optional<long long> batched_conc = {});

}  // namespace infermark::eval
