// The executor of a measured run: the HTTP client's event loops on the monotonic clock. A probe
// timer on every loop measures how late the loops run their timers: a loop busy with parsing or
// callbacks delays every timestamp it takes after the kernel's, and this is how the verdict knows.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>

#include "http/event_loops.hpp"
#include "loadgen/executor.hpp"

namespace infermark::loadgen {

/// Lanes = the loops of `loops`.
class EventLoopsExecutor final : public Executor {
 public:
  /// `loops` must outlive the executor; the probe fires every `probe_period`.
  explicit EventLoopsExecutor(http::EventLoops& loops,
                              std::chrono::microseconds probe_period = std::chrono::microseconds(1000));
  ~EventLoopsExecutor() override;

  [[nodiscard]] std::int64_t NowNs() const override;
  [[nodiscard]] double UnixAt(std::int64_t ns) const override;
  [[nodiscard]] std::size_t Lanes() const override;
  [[nodiscard]] std::optional<std::size_t> CurrentLane() const override;
  void At(std::size_t lane, std::int64_t ns, Task task) override;
  void Post(std::size_t lane, Task task) override;
  void RunUntil(const std::function<bool()>& done, const std::function<void()>& tick) override;
  void StartLagProbe() override;
  std::vector<double> StopLagProbe() override;

 private:
  struct Probe;
  http::EventLoops& loops_;
  std::chrono::microseconds probe_period_;
  std::shared_ptr<Probe> probe_;
};

}  // namespace infermark::loadgen
