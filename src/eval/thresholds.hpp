// The accuracy gate: minimum scores per task with per-model overrides (core/eval_thresholds.hpp
// reads InferenceX's thresholds.yaml format; data/evals/thresholds.yaml is the built-in file),
// applied by the rules of its validate_scores.py: the model prefix's own threshold for a task, else
// the task's default, else a fallback minimum; every `exact_match,<filter>` score of every task in a results file is
// checked (stderr entries and non-numbers skipped), and a file with none checked fails.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/eval_thresholds.hpp"
#include "core/json_text.hpp"

namespace infermark::eval {

/// The built-in thresholds (data/evals/thresholds.yaml). Throws InputError when missing.
EvalThresholds BuiltInThresholds();

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
GateVerdict JudgeResults(const Json& results_file, const EvalThresholds& thresholds, const std::string& model_prefix);

/// A failed check for people: "gsm8k 0.62 < 0.92 (minimaxm2.5)" for the strict-match score
/// (other filters named: "gsm8k flexible-extract 0.64 < …"); the source is the model prefix for
/// its own threshold, else "default, <prefix> has no override" or "min-score".
std::string FailureText(const GateCheck& check, const std::string& model_prefix);

}  // namespace infermark::eval
