// Axis ranges and tick marks at round numbers (1, 2, 2.5, 5 × 10^k), the way a person labels a chart.
#pragma once

#include <string>
#include <vector>

namespace infermark::results {

/// A linear axis: its range and tick values.
struct NiceAxis {
  double min = 0;             ///< Lower end (a tick).
  double max = 1;             ///< Upper end (a tick).
  double step = 1;            ///< Distance between ticks.
  std::vector<double> ticks;  ///< min, min + step, …, max.
};

/// An axis covering [lo, hi] with about `target_ticks` intervals; starts at 0 when `from_zero` and
/// all data are positive. Degenerate ranges (lo == hi, non-finite) still give a usable axis.
NiceAxis MakeNiceAxis(double lo, double hi, int target_ticks = 6, bool from_zero = true);

/// A tick label with as many decimals as the step needs, thousands separated by a thin space
/// (12 500, 0.25, 1.5k is not used: engineers read exact values off performance charts).
std::string FormatTick(double value, double step);

}  // namespace infermark::results
