// Accuracy between two runs: each evaluation of the candidate matched with the baseline's of the
// same configuration, task and eval concurrency, the score's change with the standard error of the
// difference (both errors combined in quadrature), and a regression flagged where the score drops
// by more than two of those standard errors or falls below its threshold.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/evaluation.hpp"

namespace infermark::results {

/// One matched (or unmatched) evaluation.
struct EvaluationChange {
  std::string key;                      ///< Evaluation::EvalKey.
  std::optional<Evaluation> baseline;   ///< The baseline's (nullopt: only the candidate has it).
  std::optional<Evaluation> candidate;  ///< The candidate's (nullopt: only the baseline has it).
  std::optional<double> delta;          ///< Candidate score − baseline score (both scored).
  std::optional<double> delta_stderr;   ///< sqrt(se_b² + se_c²), when both errors are known.
  bool regression = false;              ///< A drop beyond 2 standard errors, or below threshold.
  std::string note;                     ///< Why it is flagged, or what else changed (status).
};

/// All changes, in the candidate's order, then the baseline's unmatched ones.
struct EvaluationComparison {
  std::vector<EvaluationChange> changes;  ///< One per evaluation key of either run.
  int regressions = 0;                    ///< Changes flagged as regressions.
};

/// Compares `candidate` with `baseline`.
EvaluationComparison CompareEvaluations(const std::vector<Evaluation>& baseline,
                                        const std::vector<Evaluation>& candidate);

/// The comparison as a table: configuration and task, baseline and candidate scores with their
/// standard errors, the change, and the flag; empty when neither run has evaluations.
std::string FormatEvaluationComparison(const EvaluationComparison& comparison);

/// `0.9431 ± 0.0064`, or the status in capitals (`NOT RUN`, `INVALID`, `INCOMPLETE`) when not scored.
std::string ScoreText(const Evaluation& evaluation);

}  // namespace infermark::results
