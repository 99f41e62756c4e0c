// Statistics over repeated measurements of one benchmark point, in one place: the median with a
// distribution-free confidence interval from order statistics (what every repeated figure carries),
// a bootstrap percentile interval (kept to measure how it covers at small N), Student's t
// distribution, and the tests change detection uses: Welch's two-sample test and a prediction test
// of one value against a sample, both on the logarithm so that an effect reads as a ratio.
// Everything is deterministic: the bootstrap takes an explicit seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace infermark {

/// The confidence level of every interval a repeated figure carries.
inline constexpr double kRepeatConfidenceLevel = 0.95;

/// A sample's median with a confidence interval for the population median.
struct MedianInterval {
  std::size_t n = 0;      ///< Values in the sample.
  double median = 0;      ///< np.median of the values.
  double low = 0;         ///< Lower bound of the interval.
  double high = 0;        ///< Upper bound of the interval.
  double min = 0;         ///< Smallest value.
  double max = 0;         ///< Largest value.
  double confidence = 0;  ///< The probability that [low, high] holds the population median (0 for n = 1).
};

/// The median of `values` with the order-statistic interval [X(j), X(n+1-j)]: the narrowest such
/// pair whose coverage (a Binomial(n, 1/2) sum, exact for any continuous distribution) reaches
/// `level`. Below 6 values no pair reaches 95 %: the interval is then [min, max] and `confidence`
/// says what it achieves (n = 2: 50 %, 3: 75 %, 4: 87.5 %, 5: 93.75 %). Empty input gives n = 0.
MedianInterval MedianWithInterval(std::span<const double> values, double level = 0.95);

/// P(X(j) <= median <= X(n+1-j)) for a sample of `n` (up to 1000) from a continuous distribution,
/// 1 <= j <= n/2.
double OrderStatisticCoverage(std::size_t n, std::size_t j);

/// The median of `values` with the bootstrap percentile interval at `level`: `resamples` resamples
/// drawn with replacement from a SplitMix64 stream seeded with `seed`, the interval's bounds the
/// (1 - level)/2 and (1 + level)/2 percentiles (numpy's linear method) of their medians.
/// `confidence` is the nominal level (the bootstrap's real coverage is lower at small n).
MedianInterval BootstrapMedianInterval(std::span<const double> values, double level, int resamples, std::uint64_t seed);

/// Student's t distribution's CDF at `t` with `df` > 0 degrees of freedom.
double StudentTCdf(double t, double df);
/// Its quantile: the t with StudentTCdf(t, df) = p, for p in (0, 1).
double StudentTQuantile(double p, double df);

/// The outcome of a test of a change, as a ratio candidate / baseline.
struct RatioTest {
  std::string method;     ///< `welch-log` / `prediction-log` (on logarithms) or `welch` / `prediction` (raw values).
  double p_value = 1;     ///< Two-sided p-value of "no change".
  double ratio = 1;       ///< Estimated candidate / baseline (geometric means on the log scale).
  double ratio_low = 1;   ///< Lower bound of the ratio's interval at the test's level.
  double ratio_high = 1;  ///< Upper bound.
  double df = 0;          ///< Degrees of freedom of the t statistic.
};

/// Welch's two-sample t-test of `candidate` against `baseline` (at least 2 values each), on the
/// logarithms when every value is positive (the ratio of geometric means and its interval), else
/// on the values (the ratio of means, its interval from the difference's). `level` sets the
/// interval. Nothing when a side has fewer than 2 values or the raw baseline mean is 0. A test
/// with no spread on either side gives p = 0 for any difference and 1 for none.
std::optional<RatioTest> WelchRatioTest(std::span<const double> baseline, std::span<const double> candidate,
                                        double level = 0.95);

/// Whether one new `value` belongs with `reference` (at least 2 values: a point's repeats, or a
/// series' earlier runs): the t statistic (value - mean) / (s · sqrt(1 + 1/n)) on n - 1 degrees of
/// freedom (a lookback z-score that knows its history is short), on logarithms when every value is
/// positive. The ratio is value / reference centre with its prediction interval. Nothing for fewer
/// than 2 reference values or a raw reference mean of 0.
std::optional<RatioTest> PredictionRatioTest(std::span<const double> reference, double value, double level = 0.95);

}  // namespace infermark
