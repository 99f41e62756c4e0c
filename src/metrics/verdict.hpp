// The run's verdict: a benchmark result is only worth comparing when the server, not the client,
// set the numbers and enough requests went through. Every run ends VALID or INVALID with named
// reasons; an INVALID run still writes its result file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/benchmark_metrics.hpp"

namespace infermark::metrics {

/// Bounds a VALID run stays within.
struct VerdictLimits {
  double max_failure_fraction = 0.05;       ///< Failed / attempted above this is INVALID (the reference's 5 %).
  double max_send_lag_p99_ms = 1.0;         ///< p99 of actual minus intended send time, opening wave excluded.
  double max_loop_lag_p99_ms = 1.0;         ///< p99 of event-loop timer lateness.
  double max_engine_lateness_p99_ms = 1.0;  ///< p99 of how late the built-in engine's passes ended (real ms).
  /// Share of the measured window the built-in engine's clock may lose to slips (a pass started
  /// more than 5 ms late, so the schedule restarted from then).
  double max_engine_slip_fraction = 0.01;
  std::size_t min_completed = 1;  ///< Fewer successful requests in the window is INVALID.
};

/// What the client measured about itself.
struct ClientSelfCheck {
  double loop_lag_p99_ms = 0.0;      ///< p99 lateness of the event loops' probe timers.
  double loop_lag_max_ms = 0.0;      ///< Worst lateness seen.
  std::size_t loop_lag_samples = 0;  ///< Probe firings measured.
};

/// What the built-in engine measured about itself over the measured window: how late each pass
/// ended against its modelled schedule, in real time. A host too busy to keep the engine on its
/// schedule slows every figure, and a comparison with the model must not include such a run.
struct EngineSelfCheck {
  std::uint64_t passes = 0;       ///< Passes timed in the window.
  double lateness_p99_ms = 0.0;   ///< p99 lateness (the upper edge of its histogram bucket).
  double lateness_max_ms = 0.0;   ///< Largest lateness (the upper edge of its bucket).
  std::uint64_t clock_slips = 0;  ///< Times the engine gave up its schedule and restarted it from now.
  double clock_slipped_ms = 0.0;  ///< Real time lost to those slips.
  double window_s = 0.0;          ///< The measured window the figures cover (real seconds).
};

/// VALID or INVALID with the reasons.
struct Verdict {
  bool valid = true;                   ///< No rule broken.
  std::vector<std::string> reasons{};  ///< One sentence per broken rule.

  /// "VALID" or "INVALID".
  const char* Name() const { return valid ? "VALID" : "INVALID"; }
};

/// Judges a run of `attempted` requests; `complete` is false when it was interrupted; `engine`
/// is the built-in engine's self-check (null for other servers and predicted runs).
Verdict Judge(const BenchmarkMetrics& metrics, std::size_t attempted, const ClientSelfCheck& self, bool complete,
              const VerdictLimits& limits = {}, const EngineSelfCheck* engine = nullptr);

}  // namespace infermark::metrics
