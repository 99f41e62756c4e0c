#include "core/numpy_stats.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace infermark {
namespace {

constexpr std::size_t kBlock = 128;

// numpy's pairwise_sum: the order of additions decides the last bits of every mean.
double PairwiseSum(const double* a, std::size_t n) {
  if (n < 8) {
    double res = 0.0;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= kBlock) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum(a, n2) + PairwiseSum(a + n2, n - n2);
}

std::vector<double> Sorted(std::span<const double> values) {
  std::vector<double> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// numpy's _lerp: exact at both ends, symmetric around t = 0.5.
double Lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

}  // namespace

double NumpySum(std::span<const double> values) {
  return PairwiseSum(values.data(), values.size());
}

double NumpyMean(std::span<const double> values) {
  if (values.empty()) return 0.0;
  return NumpySum(values) / static_cast<double>(values.size());
}

double NumpyStd(std::span<const double> values) {
  if (values.empty()) return 0.0;
  const double mean = NumpyMean(values);
  std::vector<double> squares(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double d = values[i] - mean;
    squares[i] = d * d;
  }
  return std::sqrt(NumpyMean(squares));
}

double NumpyMedian(std::span<const double> values) {
  if (values.empty()) return 0.0;
  const std::vector<double> sorted = Sorted(values);
  const std::size_t n = sorted.size();
  if (n % 2 == 1) return sorted[n / 2];
  // np.median averages the two middle values with np.mean.
  const double middle[2] = {sorted[n / 2 - 1], sorted[n / 2]};
  return NumpyMean(middle);
}

double NumpyMedianInPlace(std::span<double> values) {
  if (values.empty()) return 0.0;
  const std::size_t n = values.size();
  const auto mid = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), mid, values.end());
  if (n % 2 == 1) return *mid;
  const double middle[2] = {*std::max_element(values.begin(), mid), *mid};
  return NumpyMean(middle);
}

double NumpyPercentile(std::span<const double> values, double q) {
  if (values.empty()) return 0.0;
  const std::vector<double> sorted = Sorted(values);
  const double virtual_index = (q / 100.0) * static_cast<double>(sorted.size() - 1);
  const double previous = std::floor(virtual_index);
  const auto lo = static_cast<std::size_t>(std::clamp(previous, 0.0, static_cast<double>(sorted.size() - 1)));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return Lerp(sorted[lo], sorted[hi], virtual_index - previous);
}

}  // namespace infermark
