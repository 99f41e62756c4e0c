// The built-in engine's self-check as a client reads it: the engine publishes how late each of
// its passes ended against the modelled schedule as a Prometheus histogram on /metrics
// (infermark:step_lateness_seconds, with clock-slip counters); the client reads it before and
// after the measured window and judges the difference, so warm-ups and earlier runs do not count.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/verdict.hpp"

namespace infermark::loadgen {

/// The engine's lateness counters at one moment.
struct LatenessCounters {
  std::vector<std::pair<double, std::uint64_t>> buckets;  ///< (upper bound in seconds, cumulative count); +inf last.
  std::uint64_t clock_slips = 0;                          ///< infermark:clock_slips_total.
  double clock_slip_seconds = 0;                          ///< infermark:clock_slip_seconds_total.
};

/// The counters in a Prometheus text exposition; nullopt when it has no lateness histogram (the
/// server is not infermark's engine, or an older one).
std::optional<LatenessCounters> ParseLatenessCounters(std::string_view exposition);

/// The self-check over the window between two readings: passes, p99 and largest lateness (each
/// the upper bound of its bucket, in ms) and the slips in between.
metrics::EngineSelfCheck LatenessBetween(const LatenessCounters& before, const LatenessCounters& after);

}  // namespace infermark::loadgen
