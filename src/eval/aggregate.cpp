#include "eval/aggregate.hpp"

#include <cmath>

namespace infermark::eval {

double Mean(const std::vector<double>& xs) {
  if (xs.empty()) return 0.0;
  double sum = 0.0;
  for (const double x : xs) sum += x;
  return sum / static_cast<double>(xs.size());
}

std::optional<double> MeanStderr(const std::vector<double>& xs) {
  if (xs.size() < 2) return std::nullopt;
  const double mu = Mean(xs);
  double sq = 0.0;
  for (const double x : xs) sq += std::pow(x - mu, 2.0);
  const double stddev = std::sqrt(sq / static_cast<double>(xs.size() - 1));
  return stddev / std::sqrt(static_cast<double>(xs.size()));
}

double SizeWeightedMean(const std::vector<double>& values, const std::vector<std::size_t>& sizes) {
  double sum = 0.0;
  double total = 0.0;
  for (std::size_t i = 0; i < values.size() && i < sizes.size(); ++i) {
    sum += values[i] * static_cast<double>(sizes[i]);
    total += static_cast<double>(sizes[i]);
  }
  return total > 0 ? sum / total : 0.0;
}

std::optional<double> PooledSampleStderr(const std::vector<double>& stderrs, const std::vector<std::size_t>& sizes) {
  if (stderrs.size() != sizes.size() || stderrs.empty()) return std::nullopt;
  double pooled = 0.0;
  double total = 0.0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double n = static_cast<double>(sizes[i]);
    pooled += (n - 1) * stderrs[i] * stderrs[i] * n;
    total += n;
  }
  const double dof = total - static_cast<double>(sizes.size());
  if (dof <= 0 || total <= 0) return std::nullopt;
  return std::sqrt(pooled / dof / total);
}

}  // namespace infermark::eval
