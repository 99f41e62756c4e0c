// Iso-interactivity reading of a series, as InferenceX's dashboard computes it for its head-to-head
// tables, calculator and historical trends: the series' Pareto frontier of throughput per GPU
// against interactivity (more of both is better), then a monotone cubic Hermite spline with
// Steffen's slopes (d3's curveMonotoneX) through the frontier, read at a target interactivity.
// Any metric of the frontier's points can be read this way; metrics that are a constant over a
// throughput (cost per token, provisioned energy per token) are re-derived from the splined
// throughput when every point agrees on the constant.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "report/pareto.hpp"

namespace infermark::results {

/// A monotone cubic Hermite spline through knots with ascending, distinct x. Slopes are Steffen's
/// (interior: (sign s0 + sign s1) · min(|s0|, |s1|, |p|/2), with p the h-weighted mean secant;
/// ends: (3 s − m_neighbour)/2), the rule d3's curveMonotoneX and InferenceX's interpolation use.
class MonotoneSpline {
 public:
  /// The spline through (xs[i], ys[i]); xs ascending and distinct, same length as ys (InternalError
  /// otherwise). An empty spline has no value anywhere.
  MonotoneSpline(std::vector<double> xs, std::vector<double> ys);

  /// The spline at `x`, clamped to the knots' y range (no overshoot); x outside the knots' range
  /// reads the nearest end knot. nullopt for an empty spline.
  [[nodiscard]] std::optional<double> At(double x) const;
  /// The knots' x.
  [[nodiscard]] const std::vector<double>& xs() const { return xs_; }
  /// The knots' y.
  [[nodiscard]] const std::vector<double>& ys() const { return ys_; }
  /// The tangent slope at each knot.
  [[nodiscard]] const std::vector<double>& slopes() const { return slopes_; }

 private:
  std::vector<double> xs_;
  std::vector<double> ys_;
  std::vector<double> slopes_;
};

/// What a reading outside the frontier's interactivity range gives.
enum class OutsideRange {
  kNull,   ///< Nothing (charts, historical trends: never extrapolate).
  kClamp,  ///< The nearest end of the frontier, flagged (InferenceX's calculator).
  kFeed,   ///< Below the range the lowest-interactivity knot's value, above it 0 (InferenceX's tco-feed).
};

/// Where a target fell against the frontier's range.
enum class IsoStatus {
  kInside,       ///< Within [min, max] interactivity of the frontier: an interpolated value.
  kClampedLow,   ///< Below the range: the lowest-interactivity end's value.
  kClampedHigh,  ///< Above the range, kClamp: the highest-interactivity end's value.
  kUnreachable,  ///< Above the range, kFeed: 0 (the series cannot serve that interactivity).
};

/// A value read at a target interactivity.
struct IsoValue {
  double value = 0;                       ///< The metric there.
  IsoStatus status = IsoStatus::kInside;  ///< How the target related to the frontier's range.
};

/// A series' frontier, ready to be read at any interactivity.
class IsoFrontier {
 public:
  /// The Pareto frontier of `points` (x = interactivity tok/s/user, y = throughput per GPU,
  /// `index` into the caller's metric arrays), as ParetoFront(points, XGoal::kMaximize) makes it:
  /// InferenceX's upper-left front (ties on x keep the higher throughput; equal throughput keeps the
  /// higher interactivity). Points with a non-finite x or y are left out.
  explicit IsoFrontier(const std::vector<ChartPoint>& points);

  /// The frontier points, interactivity ascending.
  [[nodiscard]] const std::vector<ChartPoint>& front() const { return front_; }
  /// True when no point made the frontier.
  [[nodiscard]] bool empty() const { return front_.empty(); }
  /// Lowest frontier interactivity (0 when empty).
  [[nodiscard]] double min_x() const { return front_.empty() ? 0 : front_.front().x; }
  /// Highest frontier interactivity (0 when empty).
  [[nodiscard]] double max_x() const { return front_.empty() ? 0 : front_.back().x; }

  /// Throughput per GPU at `target` interactivity; nullopt when the frontier is empty, or when
  /// `target` is outside the range and `outside` is kNull.
  [[nodiscard]] std::optional<IsoValue> Throughput(double target, OutsideRange outside = OutsideRange::kNull) const;

  /// Any metric of the frontier's points at `target`: `metric[point.index]` splined over the
  /// frontier's interactivity (e.g. output throughput per GPU, median TTFT). `metric` must cover
  /// every frontier index (InternalError otherwise).
  [[nodiscard]] std::optional<IsoValue> Metric(const std::vector<double>& metric, double target,
                                               OutsideRange outside = OutsideRange::kNull) const;

  /// A metric defined as a constant over a throughput (cost per million tokens over `throughput`,
  /// J/token over total throughput): when every frontier point with both values positive agrees on
  /// metric × throughput within 0.1 %, the constant over the splined throughput; otherwise the
  /// metric splined directly (InferenceX's rule, so derived and splined curves stay consistent).
  /// Both vectors are indexed like Metric's.
  [[nodiscard]] std::optional<IsoValue> Reciprocal(const std::vector<double>& metric,
                                                   const std::vector<double>& throughput, double target,
                                                   OutsideRange outside = OutsideRange::kNull) const;

 private:
  // Where `target` falls, the x to read the spline at, and the status; nullopt for kNull outside.
  [[nodiscard]] std::optional<std::pair<double, IsoStatus>> Place(double target, OutsideRange outside) const;
  // The frontier's values of `metric` in frontier order.
  [[nodiscard]] std::vector<double> Gather(const std::vector<double>& metric) const;

  std::vector<ChartPoint> front_;
  std::vector<double> xs_;
};

/// The constant c with metric[i] × throughput[i] = c for every i where both are positive, when they
/// all agree within a relative 1e-3; nullopt when they disagree or no pair is usable.
std::optional<double> ReciprocalNumerator(const std::vector<double>& metric, const std::vector<double>& throughput);

/// Iso-interactivity throughput of one series in one call: the frontier of `points`, read at
/// `target` (nullopt outside the frontier's range or for no points).
std::optional<double> IsoThroughput(const std::vector<ChartPoint>& points, double target);

}  // namespace infermark::results
