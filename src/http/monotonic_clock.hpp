// The clock of every HTTP timestamp: monotonic nanoseconds, the clock domain the built-in engine's
// emission log uses too, so times taken by a client and a server on one host compare directly.
#pragma once

#include <chrono>
#include <cstdint>

namespace infermark::http {

/// Nanoseconds on std::chrono::steady_clock (CLOCK_MONOTONIC on Linux, read through the vDSO).
inline std::int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace infermark::http
