#include "report/pareto.hpp"

#include <algorithm>
#include <cmath>

namespace infermark::results {

std::vector<ChartPoint> ParetoFront(std::vector<ChartPoint> points, XGoal goal) {
  // Walk from the best x towards the worst; a point joins the front when it beats every better-x point on y.
  std::stable_sort(points.begin(), points.end(), [goal](const ChartPoint& a, const ChartPoint& b) {
    if (a.x != b.x) return goal == XGoal::kMaximize ? a.x > b.x : a.x < b.x;
    return a.y > b.y;
  });
  std::vector<ChartPoint> front;
  for (const ChartPoint& p : points) {
    if (front.empty() || p.y > front.back().y) {
      if (!front.empty() && front.back().x == p.x) continue;
      front.push_back(p);
    }
  }
  std::sort(front.begin(), front.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
  return front;
}

std::optional<double> FrontAt(const std::vector<ChartPoint>& front, double x) {
  if (front.empty() || x < front.front().x || x > front.back().x) return std::nullopt;
  for (std::size_t i = 1; i < front.size(); ++i) {
    const ChartPoint& a = front[i - 1];
    const ChartPoint& b = front[i];
    if (x <= b.x) {
      if (b.x == a.x) return std::max(a.y, b.y);
      if (a.x > 0 && b.x > 0 && a.y > 0 && b.y > 0 && x > 0) {
        // Throughput against interactivity or latency follows a power law between measured
        // concurrencies closely; a straight line in log-log space follows it, a linear one does not.
        const double t = std::log(x / a.x) / std::log(b.x / a.x);
        return std::exp(std::log(a.y) + t * std::log(b.y / a.y));
      }
      return a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x);
    }
  }
  return front.back().y;
}

}  // namespace infermark::results
