#include "sim/sim_executor.hpp"

#include <algorithm>

#include "core/clock.hpp"

namespace infermark::sim {

SimExecutor::SimExecutor() : origin_unix_(UnixNow()) {}

double SimExecutor::UnixAt(std::int64_t ns) const {
  return origin_unix_ + static_cast<double>(ns) / 1e9;
}

void SimExecutor::At(std::size_t /*lane*/, std::int64_t ns, Task task) {
  // A time already past runs now: the clock never goes back.
  heap_.push_back(Event{std::max(ns, now_), seq_++, std::move(task)});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

void SimExecutor::Post(std::size_t lane, Task task) {
  At(lane, now_, std::move(task));
}

std::optional<std::int64_t> SimExecutor::NextEventNs() const {
  if (heap_.empty()) return std::nullopt;
  return heap_.front().at;
}

void SimExecutor::RunUntil(const std::function<bool()>& done, const std::function<void()>& tick) {
  constexpr std::uint64_t kTickEvery = 4096;
  while (!done() && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Event event = std::move(heap_.back());
    heap_.pop_back();
    now_ = event.at;
    event.task();
    if (++events_ % kTickEvery == 0 && tick) tick();
  }
}

}  // namespace infermark::sim
