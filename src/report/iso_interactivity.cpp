#include "report/iso_interactivity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/internal_error.hpp"

namespace infermark::results {
namespace {

// d3's sign: zero counts as positive, so a flat secant next to a rising one still gives a slope.
double Sign(double v) {
  return v < 0 ? -1.0 : 1.0;
}

// Relative agreement that licenses re-deriving a reciprocal metric from throughput (InferenceX's 0.1 %).
constexpr double kReciprocalTolerance = 1e-3;

}  // namespace

MonotoneSpline::MonotoneSpline(std::vector<double> xs, std::vector<double> ys)
    : xs_(std::move(xs)), ys_(std::move(ys)) {
  INFERMARK_CHECK(xs_.size() == ys_.size(), "a spline has one y per x");
  for (std::size_t i = 1; i < xs_.size(); ++i) INFERMARK_CHECK(xs_[i] > xs_[i - 1], "spline knots ascend in x");
  const std::size_t n = xs_.size();
  slopes_.assign(n, 0.0);
  if (n < 2) return;
  std::vector<double> h(n - 1);
  std::vector<double> s(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    h[i] = xs_[i + 1] - xs_[i];
    s[i] = (ys_[i + 1] - ys_[i]) / h[i];
  }
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double p = (s[i - 1] * h[i] + s[i] * h[i - 1]) / (h[i - 1] + h[i]);
    const double m = (Sign(s[i - 1]) + Sign(s[i])) * std::min({std::abs(s[i - 1]), std::abs(s[i]), 0.5 * std::abs(p)});
    slopes_[i] = std::isnan(m) ? 0.0 : m;
  }
  // The ends follow the parabola through the end secant and the neighbour's slope; with two knots the
  // second end uses the first end's slope, computed just before.
  slopes_[0] = (3 * s[0] - slopes_[1]) / 2;
  slopes_[n - 1] = (3 * s[n - 2] - slopes_[n - 2]) / 2;
}

std::optional<double> MonotoneSpline::At(double x) const {
  const std::size_t n = xs_.size();
  if (n == 0) return std::nullopt;
  if (n == 1 || x <= xs_.front()) return ys_.front();
  if (x >= xs_.back()) return ys_.back();
  const std::size_t hi = static_cast<std::size_t>(std::upper_bound(xs_.begin(), xs_.end(), x) - xs_.begin());
  const std::size_t lo = hi - 1;
  const double hh = xs_[hi] - xs_[lo];
  const double t = (x - xs_[lo]) / hh;
  const double t2 = t * t;
  const double t3 = t2 * t;
  const double value = (2 * t3 - 3 * t2 + 1) * ys_[lo] + (t3 - 2 * t2 + t) * hh * slopes_[lo] +
                       (-2 * t3 + 3 * t2) * ys_[hi] + (t3 - t2) * hh * slopes_[hi];
  const auto [low, high] = std::minmax_element(ys_.begin(), ys_.end());
  return std::clamp(value, *low, *high);
}

IsoFrontier::IsoFrontier(const std::vector<ChartPoint>& points) {
  std::vector<ChartPoint> finite;
  finite.reserve(points.size());
  for (const ChartPoint& p : points) {
    if (std::isfinite(p.x) && std::isfinite(p.y)) finite.push_back(p);
  }
  front_ = ParetoFront(std::move(finite), XGoal::kMaximize);
  xs_.reserve(front_.size());
  for (const ChartPoint& p : front_) xs_.push_back(p.x);
}

std::optional<std::pair<double, IsoStatus>> IsoFrontier::Place(double target, OutsideRange outside) const {
  if (front_.empty() || std::isnan(target)) return std::nullopt;
  if (target >= min_x() && target <= max_x()) return std::make_pair(target, IsoStatus::kInside);
  if (outside == OutsideRange::kNull) return std::nullopt;
  if (target < min_x()) return std::make_pair(min_x(), IsoStatus::kClampedLow);
  if (outside == OutsideRange::kFeed) return std::make_pair(max_x(), IsoStatus::kUnreachable);
  return std::make_pair(max_x(), IsoStatus::kClampedHigh);
}

std::vector<double> IsoFrontier::Gather(const std::vector<double>& metric) const {
  std::vector<double> ys;
  ys.reserve(front_.size());
  for (const ChartPoint& p : front_) {
    INFERMARK_CHECK(p.index < metric.size(), "a metric array covers every frontier point's index");
    ys.push_back(metric[p.index]);
  }
  return ys;
}

std::optional<IsoValue> IsoFrontier::Throughput(double target, OutsideRange outside) const {
  std::vector<double> ys;
  ys.reserve(front_.size());
  for (const ChartPoint& p : front_) ys.push_back(p.y);
  const auto place = Place(target, outside);
  if (!place) return std::nullopt;
  if (place->second == IsoStatus::kUnreachable) return IsoValue{0, IsoStatus::kUnreachable};
  return IsoValue{*MonotoneSpline(xs_, std::move(ys)).At(place->first), place->second};
}

std::optional<IsoValue> IsoFrontier::Metric(const std::vector<double>& metric, double target,
                                            OutsideRange outside) const {
  const auto place = Place(target, outside);
  if (!place) return std::nullopt;
  if (place->second == IsoStatus::kUnreachable) return IsoValue{0, IsoStatus::kUnreachable};
  return IsoValue{*MonotoneSpline(xs_, Gather(metric)).At(place->first), place->second};
}

std::optional<IsoValue> IsoFrontier::Reciprocal(const std::vector<double>& metric,
                                                const std::vector<double>& throughput, double target,
                                                OutsideRange outside) const {
  const auto place = Place(target, outside);
  if (!place) return std::nullopt;
  if (place->second == IsoStatus::kUnreachable) return IsoValue{0, IsoStatus::kUnreachable};
  const std::vector<double> values = Gather(metric);
  const std::vector<double> tputs = Gather(throughput);
  const std::optional<double> numerator = ReciprocalNumerator(values, tputs);
  if (!numerator) return IsoValue{*MonotoneSpline(xs_, values).At(place->first), place->second};
  const double tput = *MonotoneSpline(xs_, tputs).At(place->first);
  return IsoValue{tput > 0 ? *numerator / tput : 0, place->second};
}

std::optional<double> ReciprocalNumerator(const std::vector<double>& metric, const std::vector<double>& throughput) {
  std::optional<double> numerator;
  const std::size_t n = std::min(metric.size(), throughput.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!(metric[i] > 0) || !(throughput[i] > 0)) continue;
    const double candidate = metric[i] * throughput[i];
    if (!numerator) {
      numerator = candidate;
    } else if (std::abs(candidate - *numerator) > std::abs(*numerator) * kReciprocalTolerance) {
      return std::nullopt;
    }
  }
  return numerator;
}

std::optional<double> IsoThroughput(const std::vector<ChartPoint>& points, double target) {
  const auto value = IsoFrontier(points).Throughput(target);
  if (!value) return std::nullopt;
  return value->value;
}

}  // namespace infermark::results
