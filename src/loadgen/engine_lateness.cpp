#include "loadgen/engine_lateness.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

namespace infermark::loadgen {
namespace {

constexpr std::string_view kBucket = "infermark:step_lateness_seconds_bucket{";
constexpr std::string_view kSlips = "infermark:clock_slips_total{";
constexpr std::string_view kSlipSeconds = "infermark:clock_slip_seconds_total{";

// The sample value after the labels' closing brace.
double ValueAfterLabels(std::string_view line) {
  const std::size_t close = line.rfind('}');
  if (close == std::string_view::npos) return std::nan("");
  const std::string text(line.substr(close + 1));
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end == text.c_str() ? std::nan("") : v;
}

std::optional<double> LabelBound(std::string_view line) {
  const std::size_t at = line.find("le=\"");
  if (at == std::string_view::npos) return std::nullopt;
  const std::size_t from = at + 4;
  const std::size_t to = line.find('"', from);
  if (to == std::string_view::npos) return std::nullopt;
  const std::string text(line.substr(from, to - from));
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<LatenessCounters> ParseLatenessCounters(std::string_view text) {
  LatenessCounters c;
  bool found = false;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.starts_with(kBucket)) {
      const std::optional<double> bound = LabelBound(line);
      const double count = ValueAfterLabels(line);
      if (!bound || !(count >= 0)) continue;
      c.buckets.emplace_back(*bound, static_cast<std::uint64_t>(count));
      found = true;
    } else if (line.starts_with(kSlips)) {
      const double v = ValueAfterLabels(line);
      if (v >= 0) c.clock_slips = static_cast<std::uint64_t>(v);
    } else if (line.starts_with(kSlipSeconds)) {
      const double v = ValueAfterLabels(line);
      if (v >= 0) c.clock_slip_seconds = v;
    }
  }
  if (!found) return std::nullopt;
  return c;
}

metrics::EngineSelfCheck LatenessBetween(const LatenessCounters& before, const LatenessCounters& after) {
  metrics::EngineSelfCheck check;
  // Window counts per bound (cumulative); a bound missing before counts from zero.
  std::vector<std::pair<double, std::uint64_t>> window;
  for (const auto& [bound, count] : after.buckets) {
    std::uint64_t earlier = 0;
    for (const auto& [b, n] : before.buckets) {
      if (b == bound) earlier = n;
    }
    window.emplace_back(bound, count >= earlier ? count - earlier : 0);
  }
  if (window.empty()) return check;
  check.passes = window.back().second;
  if (check.passes == 0) return check;
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(0.99 * double(check.passes))));
  bool p99_found = false;
  for (const auto& [bound, cumulative] : window) {
    if (!p99_found && cumulative >= rank) {
      check.lateness_p99_ms = bound * 1e3;
      p99_found = true;
    }
    if (cumulative >= check.passes) {
      check.lateness_max_ms = bound * 1e3;
      break;
    }
  }
  check.clock_slips = after.clock_slips >= before.clock_slips ? after.clock_slips - before.clock_slips : 0;
  check.clock_slipped_ms = std::max(0.0, after.clock_slip_seconds - before.clock_slip_seconds) * 1e3;
  return check;
}

}  // namespace infermark::loadgen
