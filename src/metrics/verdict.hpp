// The run's verdict: a benchmark result is only worth comparing when the server, not the client,
// set the numbers and enough requests went through. Every run ends VALID or INVALID with named
// reasons; an INVALID run still writes its result file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "metrics/benchmark_metrics.hpp"

namespace infermark::metrics {

/// Bounds a VALID run stays within.
struct VerdictLimits {
  double max_failure_fraction = 0.05;  ///< Failed / attempted above this is INVALID (the reference's 5 %).
  double max_send_lag_p99_ms = 1.0;    ///< p99 of actual minus intended send time, opening wave excluded.
  double max_loop_lag_p99_ms = 1.0;    ///< p99 of event-loop timer lateness.
  std::size_t min_completed = 1;       ///< Fewer successful requests in the window is INVALID.
};

/// What the client measured about itself.
struct ClientSelfCheck {
  double loop_lag_p99_ms = 0.0;      ///< p99 lateness of the event loops' probe timers.
  double loop_lag_max_ms = 0.0;      ///< Worst lateness seen.
  std::size_t loop_lag_samples = 0;  ///< Probe firings measured.
};

/// VALID or INVALID with the reasons.
struct Verdict {
  bool valid = true;                   ///< No rule broken.
  std::vector<std::string> reasons{};  ///< One sentence per broken rule.

  /// "VALID" or "INVALID".
  const char* Name() const { return valid ? "VALID" : "INVALID"; }
};

/// Judges a run of `attempted` requests; `complete` is false when it was interrupted.
Verdict Judge(const BenchmarkMetrics& metrics, std::size_t attempted, const ClientSelfCheck& self, bool complete,
              const VerdictLimits& limits = {});

}  // namespace infermark::metrics
