// An eval run several times under different seeds (`infermark eval --repeats N`: repeat k takes
// seed + k − 1 for its few-shot examples and its requests, as lm-eval's --seed would), combined the
// way lm-evaluation-harness combines the subtasks of a group: each metric the mean weighted by the
// documents each run scored (`aggregate_subtask_metrics`), its standard error pooled
// (`pooled_sample_stderr`). The repeats' own scores, their spread and their seeds travel with the
// combined result.
#pragma once

#include <vector>

#include "eval/eval_run.hpp"

namespace infermark::eval {

/// The combined result of `repeats` (at least one, in order, the same task and filters): the
/// first repeat's task and settings; scores combined as above; every repeat's samples; failed and
/// retried requests and errors summed; complete when every repeat is; each INVALID repeat's
/// reasons as `repeat k of n: reason`; the window from the first start to the last end; `repeats`
/// = `{count, method, seeds, runs: [{seed, n, scores, stderrs, valid}], spread: {metric,filter:
/// {min, max, sd}}}`.
EvalResult CombineEvalRepeats(const std::vector<EvalResult>& repeats);

}  // namespace infermark::eval
