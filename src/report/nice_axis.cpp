#include "report/nice_axis.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace infermark::results {

NiceAxis MakeNiceAxis(double lo, double hi, int target_ticks, bool from_zero) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (lo > hi) std::swap(lo, hi);
  if (from_zero && lo > 0) lo = 0;
  if (hi == lo) hi = lo == 0 ? 1 : lo + std::fabs(lo) * 0.5;
  const double raw = (hi - lo) / std::max(1, target_ticks);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude * 10;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  }
  NiceAxis axis;
  axis.step = step;
  axis.min = std::floor(lo / step) * step;
  axis.max = std::ceil(hi / step) * step;
  const int count = static_cast<int>(std::lround((axis.max - axis.min) / step));
  for (int i = 0; i <= count; ++i) axis.ticks.push_back(axis.min + step * i);
  return axis;
}

std::string FormatTick(double value, double step) {
  int decimals = 0;
  if (step < 1) decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  if (std::fabs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-6) ++decimals;
  if (std::fabs(value) < step * 1e-9) value = 0;
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  std::string s = text;
  // Group thousands in the integer part.
  const std::size_t dot = s.find('.');
  std::size_t end = dot == std::string::npos ? s.size() : dot;
  const std::size_t begin = s[0] == '-' ? 1 : 0;
  for (std::size_t i = end; i > begin + 3; i -= 3) s.insert(i - 3, "\u2009");
  return s;
}

}  // namespace infermark::results
