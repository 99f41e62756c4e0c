#include "loadgen/event_loops_executor.hpp"

#include <algorithm>
#include <mutex>
#include <thread>

#include "core/clock.hpp"

namespace infermark::loadgen {
namespace {

std::chrono::steady_clock::time_point AtNs(std::int64_t ns) {
  return std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::nanoseconds(ns)));
}

}  // namespace

// Shared with the timers it arms, so a timer that fires after the probe stopped finds it alive.
// Each loop's samples have a mutex of their own, taken by that loop once per period and by the
// reader once at the end: never contended while the run lasts.
struct EventLoopsExecutor::Probe {
  struct Loop {
    std::mutex mu;
    std::vector<std::int64_t> lateness;
  };
  std::int64_t period_ns = 0;
  std::atomic<bool> active{true};
  std::vector<Loop> loops;
};

EventLoopsExecutor::EventLoopsExecutor(http::EventLoops& loops, std::chrono::microseconds probe_period)
    : loops_(loops), probe_period_(probe_period) {}

EventLoopsExecutor::~EventLoopsExecutor() {
  if (probe_) probe_->active.store(false);
}

std::int64_t EventLoopsExecutor::NowNs() const {
  return MonotonicNs();
}

double EventLoopsExecutor::UnixAt(std::int64_t ns) const {
  return UnixNow() - static_cast<double>(MonotonicNs() - ns) / 1e9;
}

std::size_t EventLoopsExecutor::Lanes() const {
  return loops_.size();
}

std::optional<std::size_t> EventLoopsExecutor::CurrentLane() const {
  return loops_.CurrentLoop();
}

void EventLoopsExecutor::At(std::size_t lane, std::int64_t ns, Task task) {
  loops_.RunAt(lane, AtNs(ns), std::move(task));
}

void EventLoopsExecutor::Post(std::size_t lane, Task task) {
  loops_.Post(lane, std::move(task));
}

void EventLoopsExecutor::RunUntil(const std::function<bool()>& done, const std::function<void()>& tick) {
  while (!done()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (tick) tick();
  }
}

void EventLoopsExecutor::StartLagProbe() {
  auto probe = std::make_shared<Probe>();
  probe->period_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(probe_period_).count();
  probe->loops = std::vector<Probe::Loop>(loops_.size());
  probe_ = probe;
  // Each firing records its lateness and re-arms, never closer than half a period to now (a loop
  // that fell far behind is not flooded with catch-up timers).
  struct Arm {
    http::EventLoops* loops;
    std::shared_ptr<Probe> probe;
    void operator()(std::size_t loop, std::int64_t due) const {
      loops->RunAt(loop, AtNs(due), [self = *this, loop, due] {
        Probe& p = *self.probe;
        if (!p.active.load(std::memory_order_relaxed)) return;
        const std::int64_t now = MonotonicNs();
        {
          std::lock_guard lock(p.loops[loop].mu);
          p.loops[loop].lateness.push_back(now - due);
        }
        self(loop, std::max(due + p.period_ns, now + p.period_ns / 2));
      });
    }
  };
  const Arm arm{&loops_, probe};
  for (std::size_t i = 0; i < loops_.size(); ++i) arm(i, MonotonicNs() + probe->period_ns);
}

std::vector<double> EventLoopsExecutor::StopLagProbe() {
  std::vector<double> all;
  if (!probe_) return all;
  probe_->active.store(false);
  for (auto& loop : probe_->loops) {
    std::lock_guard lock(loop.mu);
    for (const std::int64_t ns : loop.lateness) all.push_back(static_cast<double>(ns) / 1e9);
  }
  probe_.reset();
  return all;
}

}  // namespace infermark::loadgen
