// The executor of a predicted run: one lane on a simulated clock that jumps from event to event.
// Events at the same instant run in the order they were scheduled; the clock starts at 0 and a
// wall-clock origin, taken at construction, dates the result.
#pragma once

#include <cstdint>
#include <vector>

#include "loadgen/executor.hpp"

namespace infermark::sim {

/// A discrete-event clock.
class SimExecutor final : public loadgen::Executor {
 public:
  SimExecutor();

  [[nodiscard]] std::int64_t NowNs() const override { return now_; }
  [[nodiscard]] double UnixAt(std::int64_t ns) const override;
  [[nodiscard]] std::size_t Lanes() const override { return 1; }
  [[nodiscard]] std::optional<std::size_t> CurrentLane() const override { return 0; }
  void At(std::size_t lane, std::int64_t ns, Task task) override;
  void Post(std::size_t lane, Task task) override;
  void RunUntil(const std::function<bool()>& done, const std::function<void()>& tick) override;

  /// The time of the earliest pending event, or nullopt when none is pending.
  [[nodiscard]] std::optional<std::int64_t> NextEventNs() const;
  /// Events run so far.
  [[nodiscard]] std::uint64_t events() const { return events_; }

 private:
  struct Event {
    std::int64_t at;
    std::uint64_t seq;
    Task task;
  };
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return a.at != b.at ? a.at > b.at : a.seq > b.seq; }
  };
  std::vector<Event> heap_;  // a min-heap on (at, seq) through std::push_heap/pop_heap
  std::int64_t now_ = 0;
  std::uint64_t seq_ = 0;
  std::uint64_t events_ = 0;
  double origin_unix_ = 0;
};

}  // namespace infermark::sim
