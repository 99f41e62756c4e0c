#include "report/repeat_band.hpp"

#include <algorithm>
#include <cmath>

namespace infermark::results {

std::vector<std::vector<ChartPoint>> RepeatCharts(const std::vector<RepeatXY>& points) {
  std::size_t n = points.empty() ? 0 : SIZE_MAX;
  for (const RepeatXY& p : points) {
    if (p.x == nullptr || p.y == nullptr || p.x->size() != p.y->size() || p.x->size() < 2) return {};
    n = std::min(n, p.x->size());
  }
  std::vector<std::vector<ChartPoint>> charts(n);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double x = (*points[i].x)[k];
      const double y = (*points[i].y)[k];
      if (std::isfinite(x) && std::isfinite(y) && x > 0 && y > 0) charts[k].push_back({x, y, i});
    }
  }
  return charts;
}

std::vector<std::vector<ChartPoint>> RepeatFronts(std::vector<std::vector<ChartPoint>> charts, XGoal goal) {
  for (auto& chart : charts) chart = ParetoFront(std::move(chart), goal);
  return charts;
}

std::vector<double> RepeatFrontValuesAt(const std::vector<std::vector<ChartPoint>>& fronts, double x) {
  std::vector<double> values;
  for (const auto& front : fronts) {
    if (const auto v = FrontAt(front, x)) values.push_back(*v);
  }
  return values;
}

std::optional<MedianInterval> RepeatBandAt(const std::vector<std::vector<ChartPoint>>& fronts, double x) {
  const std::vector<double> values = RepeatFrontValuesAt(fronts, x);
  if (values.size() < 2) return std::nullopt;
  return MedianWithInterval(values, kRepeatConfidenceLevel);
}

}  // namespace infermark::results
