// Pareto frontiers of throughput against a latency-side axis, and reading a frontier between its
// points. One function serves both charts: interactivity (more is better) and E2E latency (less is).
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace infermark::results {

/// A point on a chart; `index` refers back to the caller's data.
struct ChartPoint {
  double x = 0;           ///< Interactivity or latency.
  double y = 0;           ///< Throughput per GPU (more is always better).
  std::size_t index = 0;  ///< Caller's index of the point.
};

/// Whether the x axis is better high (interactivity) or low (latency).
enum class XGoal { kMaximize, kMinimize };

/// The non-dominated points (no other point is at least as good on both axes and better on one),
/// sorted by x ascending. Ties on x keep the higher y; equal points keep the first.
std::vector<ChartPoint> ParetoFront(std::vector<ChartPoint> points, XGoal goal);

/// The frontier's y at `x`, interpolated between neighbouring frontier points on a straight line in
/// log-log space (a power law, which throughput against interactivity follows closely between
/// concurrencies; linear where a value is not positive); nullopt outside the frontier's x range (a
/// frontier is never extrapolated).
std::optional<double> FrontAt(const std::vector<ChartPoint>& front, double x);

}  // namespace infermark::results
