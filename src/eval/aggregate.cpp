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

}  // namespace infermark::eval
