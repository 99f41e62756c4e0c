#include "core/repeat_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/numpy_stats.hpp"
#include "core/split_mix.hpp"

namespace infermark {
namespace {

// The continued fraction of the regularized incomplete beta function (modified Lentz evaluation),
// which converges fast for x < (a + 1) / (a + b + 2); the caller uses the symmetry otherwise.
double BetaFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  const auto guard = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
  double c = 1.0;
  double d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
  double h = d;
  for (int m = 1; m <= 500; ++m) {
    const double m2 = 2.0 * m;
    const double even = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 / guard(1.0 + even * d);
    c = guard(1.0 + even / c);
    h *= d * c;
    const double odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 / guard(1.0 + odd * d);
    c = guard(1.0 + odd / c);
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1.0) < 1e-15) break;
  }
  return h;
}

// I_x(a, b).
double RegularizedBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front =
      a * std::log(x) + b * std::log1p(-x) - (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  if (x < (a + 1.0) / (a + b + 2.0)) return std::exp(log_front) * BetaFraction(a, b, x) / a;
  return 1.0 - std::exp(log_front) * BetaFraction(b, a, 1.0 - x) / b;
}

// Sample mean and variance (ddof = 1).
struct Moments {
  double mean = 0;
  double variance = 0;
  std::size_t n = 0;
};

Moments MomentsOf(const std::vector<double>& values) {
  Moments m;
  m.n = values.size();
  if (m.n == 0) return m;
  m.mean = NumpyMean(values);
  if (m.n < 2) return m;
  double sum = 0;
  for (double v : values) sum += (v - m.mean) * (v - m.mean);
  m.variance = sum / static_cast<double>(m.n - 1);
  return m;
}

bool AllPositive(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return v > 0 && std::isfinite(v); });
}

std::vector<double> OnScale(std::span<const double> values, bool log_scale) {
  std::vector<double> out(values.begin(), values.end());
  if (log_scale) {
    for (double& v : out) v = std::log(v);
  }
  return out;
}

// The test's ratio, interval and p-value from a difference `d` on the test's scale, its standard
// error and degrees of freedom. On the raw scale the difference is relative to `raw_base`.
RatioTest FromDifference(const char* method, double d, double se, double df, double level, bool log_scale,
                         double raw_base) {
  RatioTest out;
  out.method = method;
  out.df = df;
  double half = 0;
  if (se > 0 && df > 0) {
    out.p_value = 2.0 * (1.0 - StudentTCdf(std::fabs(d) / se, df));
    half = StudentTQuantile(0.5 + level / 2.0, df) * se;
  } else {
    out.p_value = d == 0 ? 1.0 : 0.0;  // no spread: any difference is exact
  }
  if (log_scale) {
    out.ratio = std::exp(d);
    out.ratio_low = std::exp(d - half);
    out.ratio_high = std::exp(d + half);
  } else {
    const double scale = std::fabs(raw_base);
    out.ratio = 1.0 + d / scale;
    out.ratio_low = 1.0 + (d - half) / scale;
    out.ratio_high = 1.0 + (d + half) / scale;
  }
  return out;
}

}  // namespace

double OrderStatisticCoverage(std::size_t n, std::size_t j) {
  if (n == 0 || j == 0 || 2 * j > n) return 0;
  // 1 − 2 Σ_{i<j} C(n, i) / 2^n: the binomial coefficients exact in doubles for the repeats a point
  // can have (C(1000, 500) < 1e300), the power of two exact too.
  double tail = 0;
  double c = 1;  // C(n, i)
  for (std::size_t i = 0; i < j; ++i) {
    tail += std::ldexp(c, -static_cast<int>(n));
    c = c * static_cast<double>(n - i) / static_cast<double>(i + 1);
  }
  return 1 - 2 * tail;
}

MedianInterval MedianWithInterval(std::span<const double> values, double level) {
  MedianInterval out;
  out.n = values.size();
  if (values.empty()) return out;
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  out.median = NumpyMedian(sorted);
  out.min = sorted.front();
  out.max = sorted.back();
  out.low = out.high = out.median;
  if (out.n < 2) return out;
  // The largest j (narrowest interval) whose coverage still reaches the level; [min, max] when
  // even that one falls short.
  std::size_t j = 1;
  while (2 * (j + 1) <= out.n && OrderStatisticCoverage(out.n, j + 1) >= level) ++j;
  out.low = sorted[j - 1];
  out.high = sorted[out.n - j];
  out.confidence = OrderStatisticCoverage(out.n, j);
  return out;
}

MedianInterval BootstrapMedianInterval(std::span<const double> values, double level, int resamples,
                                       std::uint64_t seed) {
  MedianInterval out = MedianWithInterval(values, level);
  if (out.n < 2 || resamples < 1) return out;
  std::vector<double> medians;
  medians.reserve(static_cast<std::size_t>(resamples));
  std::vector<double> draw(values.size());
  std::uint64_t state = seed;
  for (int r = 0; r < resamples; ++r) {
    for (double& v : draw) {
      state = SplitMix64(state);
      v = values[state % values.size()];
    }
    medians.push_back(NumpyMedianInPlace(draw));
  }
  out.low = NumpyPercentile(medians, 50.0 * (1.0 - level));
  out.high = NumpyPercentile(medians, 50.0 * (1.0 + level));
  out.confidence = level;
  return out;
}

double StudentTCdf(double t, double df) {
  if (std::isnan(t) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double tail = 0.5 * RegularizedBeta(df / 2.0, 0.5, df / (df + t * t));
  return t > 0 ? 1.0 - tail : tail;
}

double StudentTQuantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  double lo = -1;
  double hi = 1;
  while (StudentTCdf(lo, df) > p) lo *= 2;
  while (StudentTCdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-13 * std::max(1.0, std::fabs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (StudentTCdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

std::optional<RatioTest> WelchRatioTest(std::span<const double> baseline, std::span<const double> candidate,
                                        double level) {
  if (baseline.size() < 2 || candidate.size() < 2) return std::nullopt;
  const bool log_scale = AllPositive(baseline) && AllPositive(candidate);
  const Moments b = MomentsOf(OnScale(baseline, log_scale));
  const Moments c = MomentsOf(OnScale(candidate, log_scale));
  if (!log_scale && b.mean == 0) return std::nullopt;
  const double vb = b.variance / static_cast<double>(b.n);
  const double vc = c.variance / static_cast<double>(c.n);
  const double se = std::sqrt(vb + vc);
  // Welch–Satterthwaite; a side without spread contributes nothing to either sum.
  const double denominator =
      (vb > 0 ? vb * vb / static_cast<double>(b.n - 1) : 0.0) + (vc > 0 ? vc * vc / static_cast<double>(c.n - 1) : 0.0);
  const double df = denominator > 0 ? (vb + vc) * (vb + vc) / denominator : 0.0;
  return FromDifference(log_scale ? "welch-log" : "welch", c.mean - b.mean, se, df, level, log_scale, b.mean);
}

std::optional<RatioTest> PredictionRatioTest(std::span<const double> reference, double value, double level) {
  if (reference.size() < 2) return std::nullopt;
  const double values[] = {value};
  const bool log_scale = AllPositive(reference) && AllPositive(values);
  const Moments r = MomentsOf(OnScale(reference, log_scale));
  if (!log_scale && r.mean == 0) return std::nullopt;
  const double x = log_scale ? std::log(value) : value;
  const double se = std::sqrt(r.variance * (1.0 + 1.0 / static_cast<double>(r.n)));
  return FromDifference(log_scale ? "prediction-log" : "prediction", x - r.mean, se, static_cast<double>(r.n - 1),
                        level, log_scale, r.mean);
}

}  // namespace infermark
