// The report's accuracy section: one row per evaluation, grouped by configuration, with the score
// drawn as a dot and its error bar (±1 standard error) against a shared score axis, the threshold
// as a dashed line, and the verdict. An evaluation that was not run, was INVALID or stopped early
// is shown as such, with its reasons, and never drawn as a score. Each row has an anchor that the
// throughput points of its configuration link to.
#pragma once

#include <string>
#include <vector>

#include "results/evaluation.hpp"
#include "results/point.hpp"

namespace infermark::results {

/// The anchor of an evaluation's row (`eval-<store id>`).
std::string EvaluationAnchor(const Evaluation& evaluation);

/// The evaluations of `evaluations` that ran on the configuration of point `key` (SameConfiguration).
std::vector<const Evaluation*> EvaluationsOf(const PointKey& key, const std::vector<const Evaluation*>& evaluations);

/// The points table's cell for a point: a link per evaluation of its configuration (`gsm8k PASS`),
/// empty when it has none.
std::string EvaluationLinks(const PointKey& key, const std::vector<const Evaluation*>& evaluations);

/// The section's HTML (`<section id="evaluations">…`); empty when there are no evaluations.
std::string EvaluationsSection(const std::vector<const Evaluation*>& evaluations);

/// The section's CSS rules.
extern const char* const kEvaluationsCss;

}  // namespace infermark::results
