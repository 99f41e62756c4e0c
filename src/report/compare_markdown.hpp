// `results compare --format markdown`: a comparison as a summary that fits a pull-request comment:
// the verdict, the significant changes with their tests, the inconclusive ones, the frontier's shift
// at chosen interactivities, and the evaluations that failed their gate.
#pragma once

#include <string>

#include "report/compare.hpp"
#include "report/eval_compare.hpp"

namespace infermark::results {

/// The two runs as the summary names them.
struct ComparedRuns {
  std::string baseline;   ///< e.g. `run 3 sweep:… (nightly)`.
  std::string candidate;  ///< The candidate's.
};

/// The summary in GitHub-flavoured Markdown. The frontier table reads each series at
/// `options.interactivities` when given, else at three of its samples (the lowest, middle and
/// highest interactivity both frontiers reach). Tables are capped so the comment stays short; the
/// count left out is stated.
std::string ComparisonMarkdown(const Comparison& comparison, const EvaluationComparison& evaluations,
                               const CompareOptions& options, const ComparedRuns& runs);

}  // namespace infermark::results
