// A point's latency figures at the percentiles the charts offer (median, p90, p99) for TTFT, TPOT,
// ITL, E2EL and interactivity, de-scaled as every figure the dashboard serves, and the x axes the
// frontier route accepts: interactivity, end-to-end latency and TTFT, each at each percentile.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_text.hpp"
#include "results/point.hpp"

namespace infermark::dashboard {

struct DashboardPoint;

/// The percentiles a chart can read: 0 median, 1 p90, 2 p99.
inline constexpr std::array<const char*, 3> kChartPercentiles = {"median", "p90", "p99"};

/// One statistic at each chart percentile (empty where the record has none).
using Percentiles = std::array<std::optional<double>, 3>;

/// A point's latency figures at the chart percentiles.
struct LatencyFigures {
  Percentiles ttft_ms;  ///< Time to first token, ms.
  Percentiles tpot_ms;  ///< Time per output token, ms.
  Percentiles itl_ms;   ///< Inter-token latency, ms.
  Percentiles e2el_s;   ///< End-to-end latency, s.
  /// tok/s/user: 1000 / TPOT at the percentile (the slow tail's users); for agentic points the
  /// E2E-normalized one (median, p90; no p99).
  Percentiles interactivity;
};

/// The figures of `point` from its record (latencies in seconds there), de-scaled by its time scale.
LatencyFigures LatencyFiguresOf(const results::Point& point);

/// Adds the figures the points route serves beyond the medians it always had: `p90_ttft_ms`,
/// `p99_ttft_ms`, `p90_tpot_ms`, `p99_tpot_ms`, `itl_ms`, `p90_itl_ms`, `p99_itl_ms`, `p90_e2el_s`,
/// `p99_e2el_s`, `p90_interactivity`, `p99_interactivity` (null where unknown).
void AddLatencyFigures(Json& point, const LatencyFigures& figures);

/// The frontier route's x axes: interactivity, e2el_s and ttft_ms, each also as p90_… and p99_….
const std::vector<std::string>& FrontierAxes();

/// Whether a larger value of axis `key` is better (interactivity; latencies are better smaller).
bool AxisHigherIsBetter(std::string_view key);

/// The value of axis `key` (one of FrontierAxes) for `point`, empty where it is unknown.
std::optional<double> AxisValue(const DashboardPoint& point, std::string_view key);

}  // namespace infermark::dashboard
