// The accuracy gate a CI run ends with (`results gate`): every evaluation of a run judged against
// the thresholds (InferenceX's thresholds.yaml, as validate_scores.py reads it: both the strict and
// the flexible score must reach it), evals that could not be scored (INVALID, stopped) failing, and
// every eval row the matrix asked for required to have an evaluation — so that an eval job that
// never ran cannot leave the gate green.
#pragma once

#include <string>
#include <vector>

#include "core/eval_thresholds.hpp"
#include "results/evaluation.hpp"

namespace infermark::results {

/// An eval row of the matrix, known by its RESULT_FILENAME around the runner's name (which only
/// the runner that ran it knows): an evaluation of it has a result_filename `prefix + "_" + runner
/// + suffix`.
struct ExpectedEval {
  std::string prefix;  ///< RESULT_FILENAME up to the runner name.
  std::string suffix;  ///< What follows the runner name (`_recipe-…`), usually empty.
};

/// One line of the gate.
struct GateLine {
  std::string verdict;  ///< PASS, FAIL, INVALID, INCOMPLETE, NOT RUN or MISSING.
  bool failed = false;  ///< Whether it fails the gate.
  std::string what;     ///< The evaluation's result_filename, or the missing row's prefix.
  std::string task;     ///< `gsm8k` (empty for a missing row).
  std::string detail;   ///< Scores against the threshold, or the reasons.
};

/// The gate's verdict.
struct GateResult {
  std::vector<GateLine> lines;  ///< Evaluations in the order given, then missing rows.
  int failures = 0;             ///< Lines that fail the gate.
};

/// Judges `evaluations` against `thresholds` (the model prefix's override, else the task's default,
/// else kFallbackMinScore): a scored evaluation passes when its strict score and its flexible score
/// (when it has one) reach the threshold; INVALID and incomplete evaluations fail; not-run ones are
/// listed with their reason without failing. Each of `expected` without an evaluation is MISSING
/// and fails.
GateResult JudgeEvalGate(const std::vector<Evaluation>& evaluations, const EvalThresholds& thresholds,
                         const std::vector<ExpectedEval>& expected);

/// The gate as text: one line per evaluation, then `eval gate: PASSED` or `FAILED (N)`.
std::string FormatEvalGate(const GateResult& gate);

/// The gate as GitHub Markdown (a PR comment or job summary section): a table, then the verdict.
std::string FormatEvalGateMarkdown(const GateResult& gate);

}  // namespace infermark::results
