#include "metrics/verdict.hpp"

#include <cstdarg>
#include <cstdio>

namespace infermark::metrics {
namespace {

// printf-style text for one reason line.
__attribute__((format(printf, 1, 2))) std::string Format(const char* format, ...) {
  char buffer[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof buffer, format, args);
  va_end(args);
  return buffer;
}

double PercentileOf(const MetricSummary& s, double p) {
  for (const auto& [q, value] : s.percentiles) {
    if (q == p) return value;
  }
  return s.max;  // p99 not requested: judge on the maximum, which bounds it
}

}  // namespace

Verdict Judge(const BenchmarkMetrics& metrics, std::size_t attempted, const ClientSelfCheck& self, bool complete,
              const VerdictLimits& limits, const EngineSelfCheck* engine) {
  Verdict v;
  auto fail = [&v](std::string reason) {
    v.valid = false;
    v.reasons.push_back(std::move(reason));
  };
  if (!complete) fail("the run was interrupted before every request finished");
  if (attempted > 0) {
    // failed / attempted, not the reference's 1 − completed / n: that one reads 95 of 100 as
    // 5.000000000000004 % and fails a run at exactly the limit.
    const double failure = static_cast<double>(attempted - metrics.completed) / static_cast<double>(attempted);
    if (failure > limits.max_failure_fraction) {
      fail(Format("%.2f %% of requests failed (%zu of %zu), over %.2f %%", failure * 100.0,
                  attempted - metrics.completed, attempted, limits.max_failure_fraction * 100.0));
    }
  }
  if (metrics.completed < limits.min_completed) {
    fail(Format("only %zu requests completed in the measured window, fewer than %zu", metrics.completed,
                limits.min_completed));
  }
  const double send_lag_p99 = PercentileOf(metrics.send_lag, 99.0);
  if (send_lag_p99 > limits.max_send_lag_p99_ms) {
    fail(
        Format("client saturated: p99 send lag %.3f ms behind the intended time (after the opening wave), over %.3f ms",
               send_lag_p99, limits.max_send_lag_p99_ms));
  }
  if (self.loop_lag_p99_ms > limits.max_loop_lag_p99_ms) {
    fail(Format("client saturated: p99 event-loop lag %.3f ms, over %.3f ms", self.loop_lag_p99_ms,
                limits.max_loop_lag_p99_ms));
  }
  if (engine != nullptr && engine->passes > 0 && engine->lateness_p99_ms > limits.max_engine_lateness_p99_ms) {
    fail(
        Format("engine behind its model (p99 %.3f ms): its passes ended late against the modelled schedule, over "
               "%.3f ms, so the host, not the modelled GPU, set these numbers",
               engine->lateness_p99_ms, limits.max_engine_lateness_p99_ms));
  }
  // A few passes very late (a busy host's stalls) hide above the 99th percentile, but each one
  // restarts the engine's schedule and the time is lost to every stream.
  if (engine != nullptr && engine->window_s > 0) {
    const double lost = engine->clock_slipped_ms / (engine->window_s * 1000.0);
    if (lost > limits.max_engine_slip_fraction) {
      fail(
          Format("engine behind its model (clock slips): %llu passes started more than 5 ms late, losing %.1f ms, "
                 "%.2f %% of the measured window, over %.2f %%",
                 static_cast<unsigned long long>(engine->clock_slips), engine->clock_slipped_ms, lost * 100.0,
                 limits.max_engine_slip_fraction * 100.0));
    }
  }
  return v;
}

}  // namespace infermark::metrics
