// Summary statistics computed exactly as numpy computes them, so that the compatible keys of a
// result file carry the same numbers the reference client would print for the same samples:
// pairwise summation (np.sum/np.mean on a contiguous float64 array), population standard deviation
// (ddof=0), np.median, and np.percentile with linear interpolation (numpy's default method and
// its two-sided lerp).
#pragma once

#include <span>

namespace infermark {

/// np.sum of a float64 array (pairwise summation in blocks of 128, unrolled by 8).
double NumpySum(std::span<const double> values);
/// np.mean; 0 for an empty array (the reference passes `values or 0`).
double NumpyMean(std::span<const double> values);
/// np.std with ddof=0; 0 for an empty array.
double NumpyStd(std::span<const double> values);
/// np.median; 0 for an empty array.
double NumpyMedian(std::span<const double> values);
/// np.percentile(values, q) with method "linear", q in [0, 100]; 0 for an empty array.
double NumpyPercentile(std::span<const double> values, double q);
/// np.median of `values`, found by selection in place (the values are reordered): the same number
/// as NumpyMedian without a sorted copy, for loops that summarize many small samples.
double NumpyMedianInPlace(std::span<double> values);

}  // namespace infermark
