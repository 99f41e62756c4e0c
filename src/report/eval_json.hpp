// An evaluation as JSON, one shape for `results show --json`, the dashboard's API and the report:
// its configuration, scores (null where there are none: a not-run or INVALID evaluation never
// shows a 0), threshold, verdict, status with reasons, and provenance.
#pragma once

#include "core/json_text.hpp"
#include "results/evaluation.hpp"

namespace infermark::results {

/// The JSON object of `evaluation` (fields in docs/dashboard.md, "/api/v1/evaluations").
Json EvaluationToJson(const Evaluation& evaluation);

}  // namespace infermark::results
