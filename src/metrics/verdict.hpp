// The run's verdict: a benchmark result is only worth comparing when the server, not the host,
// set its figures and enough requests went through. The host's part is measured per figure
// (host_error.hpp): a headline figure the host moved beyond the tolerance makes the run INVALID, a
// tail statistic it moved is marked on its own. The client's and the engine's self-checks (loop
// and send lag, pass lateness, catch-ups) are diagnostics that name the cause. Every run ends
// VALID or INVALID with named reasons; an INVALID run still writes its result file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/benchmark_metrics.hpp"
#include "metrics/host_error.hpp"

namespace infermark::metrics {

/// Bounds a VALID run stays within, and the bounds past which a diagnostic is named as a cause.
struct VerdictLimits {
  double max_failure_fraction = 0.05;  ///< Failed / attempted above this is INVALID (the reference's 5 %).
  /// A headline figure whose host error exceeds this share of its ideal value is INVALID; any other
  /// statistic past it is marked.
  double max_host_error_fraction = 0.01;
  double max_send_lag_p99_ms = 1.0;  ///< Diagnostic: p99 of actual minus intended send time, opening wave excluded.
  double max_loop_lag_p99_ms = 1.0;  ///< Diagnostic: p99 of event-loop timer lateness.
  double max_engine_lateness_p99_ms =
      1.0;  ///< Diagnostic: p99 of how late the built-in engine's passes ended (real ms).
  /// Diagnostic: share of the measured window the built-in engine spent catching up on passes that
  /// began more than 5 ms after their modelled start.
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
  std::uint64_t clock_slips = 0;  ///< Passes that began more than 5 ms after their modelled start (caught up).
  double clock_slipped_ms = 0.0;  ///< How late those passes began, summed (real ms).
  double window_s = 0.0;          ///< The measured window the figures cover (real seconds).
};

/// A statistic whose host error is over the tolerance.
struct FigureMark {
  std::string key{};      ///< Its result key (`p99_itl_ms`, `median_ttft_ms`, `output_throughput` …).
  double abs = 0.0;       ///< Host error in the statistic's unit.
  double rel = 0.0;       ///< Host error as a share of the ideal figure.
  bool headline = false;  ///< A headline figure (the point is INVALID), else a mark alone.
  std::string cause{};    ///< Who moved it ("engine host", "client" or both) and the diagnostics that say why.
};

/// VALID or INVALID with the reasons.
struct Verdict {
  bool valid = true;                   ///< No rule broken.
  std::vector<std::string> reasons{};  ///< One sentence per broken rule.
  std::vector<FigureMark> marks{};     ///< Every statistic over the host-error tolerance, headline or not.

  /// "VALID" or "INVALID".
  const char* Name() const { return valid ? "VALID" : "INVALID"; }
};

/// Judges a run of `attempted` requests; `complete` is false when it was interrupted; `engine`
/// is the built-in engine's self-check (null for other servers and predicted runs); `host_error`
/// the run's host error (null for predicted runs, which have no host).
Verdict Judge(const BenchmarkMetrics& metrics, std::size_t attempted, const ClientSelfCheck& self, bool complete,
              const VerdictLimits& limits = {}, const EngineSelfCheck* engine = nullptr,
              const HostError* host_error = nullptr);

/// The statistic's name for people: "median TTFT", "p99 ITL", "output throughput" …
std::string FigureLabel(std::string_view key);

}  // namespace infermark::metrics
