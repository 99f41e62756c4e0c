// Accuracy thresholds as InferenceX's utils/evals/thresholds.yaml holds them and its
// validate_scores.py resolves them: `default: {task: min}` and `models: {prefix: {task: min}}`,
// or a flat `{task: min}` mapping (the legacy form, all defaults); a task's threshold is the model
// prefix's own, else the task's default, else a fallback minimum (--min-score, 0.85). The one
// reader of that file: the accuracy gate (src/eval) and the results store's default for
// evaluations that name no threshold (src/results) both use it, and core is the module both may
// depend on.
#pragma once

#include <map>
#include <string>

namespace infermark {

/// validate_scores.py's --min-score default: the threshold when neither the model nor the
/// defaults name the task.
inline constexpr double kFallbackMinScore = 0.85;

/// A task's threshold and where it came from.
struct ThresholdRule {
  double value = kFallbackMinScore;  ///< The minimum score.
  /// "models.<prefix>", "default" or "min-score" (the fallback), as validate_scores.py names them.
  std::string source = "min-score";

  /// The source as eval_status.json and the store record it: the model prefix, "default" or
  /// "min-score".
  [[nodiscard]] std::string SourceName() const;
};

/// Minimum scores, as a thresholds file holds them.
struct EvalThresholds {
  std::string file;                                             ///< Where they were read.
  std::map<std::string, double> defaults;                       ///< Task → minimum score.
  std::map<std::string, std::map<std::string, double>> models;  ///< Model prefix → task → minimum score.

  /// The threshold for `task` under `model_prefix` (empty or "unknown": none), most specific
  /// first, else `fallback` (source "min-score").
  [[nodiscard]] ThresholdRule Resolve(const std::string& task, const std::string& model_prefix,
                                      double fallback = kFallbackMinScore) const;
};

/// Reads a thresholds file (YAML; JSON is YAML too). Throws InputError (file:line:column, field,
/// rule) for a root that is not a mapping, a top-level key other than `default`/`models` beside
/// them, a section that is not a mapping, or a threshold that is not a number between 0 and 1.
EvalThresholds LoadEvalThresholds(const std::string& path);

}  // namespace infermark
