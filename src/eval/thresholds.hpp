// The accuracy gate: minimum scores per task with per-model overrides, in the format of
// InferenceX's utils/evals/thresholds.yaml (data/evals/thresholds.yaml), applied by the rules of
// its validate_scores.py: the model prefix's own threshold for a task, else the task's default,
// else a fallback minimum; every `exact_match,<filter>` score of every task in a results file is
// checked (stderr entries and non-numbers skipped), and a file with none checked fails.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::eval {

/// validate_scores.py's --min-score default: the threshold when neither the model nor the
/// defaults name the task.
inline constexpr double kFallbackMinScore = 0.85;

/// Minimum scores, as thresholds.yaml holds them.
struct Thresholds {
  std::string file;                                             ///< Where they were read.
  std::map<std::string, double> defaults;                       ///< Task → minimum score.
  std::map<std::string, std::map<std::string, double>> models;  ///< Model prefix → task → minimum score.
};

/// Reads a thresholds file: `default:` and `models:` mappings, or a flat task → score mapping
/// (validate_scores.py's legacy format, all defaults). Throws InputError (file:line, field, rule).
Thresholds LoadThresholds(const std::string& path);

/// The built-in thresholds (data/evals/thresholds.yaml). Throws InputError when missing.
Thresholds BuiltInThresholds();

/// A task's threshold and where it came from.
struct ThresholdRule {
  double value = kFallbackMinScore;  ///< The minimum score.
  /// "models.<prefix>", "default" or "min-score" (the fallback), as validate_scores.py names them.
  std::string source = "min-score";
};

/// The threshold for `task` under `model_prefix` (empty or "unknown": none), most specific first.
ThresholdRule ResolveThreshold(const Thresholds& thresholds, const std::string& model_prefix, const std::string& task,
                               double fallback = kFallbackMinScore);

/// One checked score.
struct GateCheck {
  std::string task;    ///< "gsm8k".
  std::string metric;  ///< "exact_match,strict-match".
  double score = 0;    ///< The score.
  ThresholdRule rule;  ///< The threshold applied.
  bool passed = true;  ///< score >= threshold.
};

/// A results file judged.
struct GateVerdict {
  std::vector<GateCheck> checks;      ///< Every score checked, in the file's order.
  std::vector<std::string> failures;  ///< One sentence per failed check (or "no exact_match score").
  bool passed = false;                ///< Every check passed and at least one was made.
};

/// Judges an lm-eval results file's JSON (its `results` block) under `model_prefix`.
GateVerdict JudgeResults(const Json& results_file, const Thresholds& thresholds, const std::string& model_prefix);

/// A failed check for people: "gsm8k 0.62 < 0.92 (minimaxm2.5)" for the strict-match score
/// (other filters named: "gsm8k flexible-extract 0.64 < …"); the source is the model prefix for
/// its own threshold, else "default, <prefix> has no override" or "min-score".
std::string FailureText(const GateCheck& check, const std::string& model_prefix);

}  // namespace infermark::eval
