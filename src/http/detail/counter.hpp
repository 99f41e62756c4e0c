// Private: statistics counters written by one loop thread and read by any thread.
#pragma once

#include <atomic>
#include <cstdint>

namespace infermark::http::detail {

/// Adds to a counter that only one thread writes: a relaxed load and store, no locked instruction
/// on the hot path, still a clean read for Stats() on another thread.
inline void Bump(std::atomic<std::uint64_t>& counter, std::uint64_t by = 1) {
  counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace infermark::http::detail
