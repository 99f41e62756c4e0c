// The clock and threads a run is driven on: lanes (event loops) that run tasks at given times.
// Real runs use the HTTP client's event loops and the monotonic clock; a predicted run uses one
// lane on a simulated clock that jumps from event to event (src/sim/). The client's schedule,
// refills and timers are written against this interface alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace infermark::loadgen {

/// Lanes and a clock.
class Executor {
 public:
  /// Work for a lane.
  using Task = std::function<void()>;

  virtual ~Executor() = default;
  /// Now, in nanoseconds on this executor's clock.
  [[nodiscard]] virtual std::int64_t NowNs() const = 0;
  /// Wall-clock seconds (Unix) of the instant `ns` on this clock.
  [[nodiscard]] virtual double UnixAt(std::int64_t ns) const = 0;
  /// Number of lanes.
  [[nodiscard]] virtual std::size_t Lanes() const = 0;
  /// The lane the calling thread runs, or nullopt off the lanes.
  [[nodiscard]] virtual std::optional<std::size_t> CurrentLane() const = 0;
  /// Runs `task` on `lane` at `ns` (or as soon as possible after it).
  virtual void At(std::size_t lane, std::int64_t ns, Task task) = 0;
  /// Runs `task` on `lane` after what is running now.
  virtual void Post(std::size_t lane, Task task) = 0;
  /// Returns once `done()` holds. Real lanes run on their own threads and this waits, calling
  /// `tick()` every few milliseconds (stop flags, progress); a simulated clock runs its events here,
  /// calling `tick()` every few thousand of them, and also returns when no event is left.
  virtual void RunUntil(const std::function<bool()>& done, const std::function<void()>& tick) = 0;
  /// Starts timing how late the lanes run their timers (real lanes; a simulated clock is never late).
  virtual void StartLagProbe() {}
  /// Stops the probe; the lateness of every probe timer, in seconds (empty when not measured).
  virtual std::vector<double> StopLagProbe() { return {}; }
};

}  // namespace infermark::loadgen
