// lm-evaluation-harness's aggregation of per-document scores: `mean` (a left-to-right sum over
// the count) and its closed-form standard error (sample standard deviation over sqrt(n)); with
// fewer than two documents the error is "N/A", as lm-eval writes it. Several runs of a task (an
// eval's repeats under different seeds) combine as lm-eval combines the subtasks of a group: the
// mean weighted by each run's documents, and the pooled standard error.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace infermark::eval {

/// Python's `sum(xs) / len(xs)`; 0 for no values (lm-eval would divide by zero).
double Mean(const std::vector<double>& xs);
/// `sample_stddev(xs) / sqrt(len(xs))`; nullopt ("N/A") for fewer than two values.
std::optional<double> MeanStderr(const std::vector<double>& xs);

/// lm-eval's `aggregate_subtask_metrics` with `weight_by_size`: Σ size·value / Σ size.
double SizeWeightedMean(const std::vector<double>& values, const std::vector<std::size_t>& sizes);

/// lm-eval's `pooled_sample_stderr`: sqrt(Σ (size − 1)·stderr²·size / (Σ size − count) / Σ size), the
/// standard error of the mean over the runs' documents taken together; nullopt when the sizes
/// leave no degree of freedom.
std::optional<double> PooledSampleStderr(const std::vector<double>& stderrs, const std::vector<std::size_t>& sizes);

}  // namespace infermark::eval
