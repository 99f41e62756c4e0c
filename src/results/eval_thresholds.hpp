// Accuracy thresholds as InferenceX's thresholds.yaml holds them and validate_scores.py resolves
// them: `default: {task: min}` and `models: {prefix: {task: min}}`, the model's override first. The
// store applies them to evaluations whose source names no threshold (lm-eval folders without
// infermark's status file, InferenceX-app rows), so every scored evaluation can pass or fail.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace infermark::results {

/// A threshold and where it came from.
struct ResolvedThreshold {
  double value = 0;    ///< The minimum score.
  std::string source;  ///< `default` or the model prefix whose override applies.
};

/// The thresholds of one file.
struct EvalThresholds {
  std::map<std::string, double> defaults;                       ///< Per task.
  std::map<std::string, std::map<std::string, double>> models;  ///< Per model prefix, per task.

  /// The threshold for `task` on `model_prefix`: the model's override, else the task's default;
  /// nullopt when neither names the task.
  [[nodiscard]] std::optional<ResolvedThreshold> For(const std::string& task, const std::string& model_prefix) const;
};

/// Reads a thresholds file. A file without `default`/`models` is a flat `{task: min}` map (the
/// legacy form validate_scores.py accepts). Throws InputError (file:line, field, rule) for anything
/// else: a value that is not a number in [0, 1], a section that is not a mapping.
EvalThresholds LoadEvalThresholds(const std::string& path);

}  // namespace infermark::results
