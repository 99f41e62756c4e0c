// lm-evaluation-harness's aggregation of per-document scores: `mean` (a left-to-right sum over
// the count) and its closed-form standard error (sample standard deviation over sqrt(n)); with
// fewer than two documents the error is "N/A", as lm-eval writes it.
#pragma once

#include <optional>
#include <vector>

namespace infermark::eval {

/// Python's `sum(xs) / len(xs)`; 0 for no values (lm-eval would divide by zero).
double Mean(const std::vector<double>& xs);
/// `sample_stddev(xs) / sqrt(len(xs))`; nullopt ("N/A") for fewer than two values.
std::optional<double> MeanStderr(const std::vector<double>& xs);

}  // namespace infermark::eval
