// A series' frontier from its points' repeats: when every point of a series was measured several
// times, the k-th repeats of all its points make a frontier of their own, and those frontiers read
// at one interactivity give that frontier value's spread — the band the report and the dashboard
// draw around a frontier, and the samples `results compare` tests a frontier's change on.
#pragma once

#include <optional>
#include <vector>

#include "core/repeat_stats.hpp"
#include "report/pareto.hpp"

namespace infermark::results {

/// One point's repeats on a chart: its x and y per repeat (same length, in repeat order).
struct RepeatXY {
  const std::vector<double>* x = nullptr;  ///< Each repeat's x.
  const std::vector<double>* y = nullptr;  ///< Each repeat's y.
};

/// Per repeat k, the chart of every point's k-th (x, y) (`index` is the point's position in
/// `points`), for as many repeats as every point has; empty unless each point has at least two
/// repeats of both (a frontier mixing repeated and single points would understate its spread).
/// Non-finite or non-positive values are left out.
std::vector<std::vector<ChartPoint>> RepeatCharts(const std::vector<RepeatXY>& points);

/// The Pareto frontier of each chart.
std::vector<std::vector<ChartPoint>> RepeatFronts(std::vector<std::vector<ChartPoint>> charts, XGoal goal);

/// The values of `fronts` at `x` (FrontAt), from the frontiers that reach it.
std::vector<double> RepeatFrontValuesAt(const std::vector<std::vector<ChartPoint>>& fronts, double x);

/// The band at `x`: the median interval of RepeatFrontValuesAt (at kRepeatConfidenceLevel); nothing
/// below two values.
std::optional<MedianInterval> RepeatBandAt(const std::vector<std::vector<ChartPoint>>& fronts, double x);

}  // namespace infermark::results
