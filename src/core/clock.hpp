// The clocks of the whole program. Every timestamp a run records is monotonic nanoseconds (the
// domain a client and the built-in engine on one host share, so their times compare directly);
// wall-clock time appears only where a person or a file format wants a date.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace infermark {

/// Nanoseconds on std::chrono::steady_clock (CLOCK_MONOTONIC on Linux, read through the vDSO).
inline std::int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Seconds since the Unix epoch, now (system clock).
double UnixNow();

/// Local time as the reference client stamps its results: "%Y%m%d-%H%M%S".
std::string LocalStamp();

/// `unix_seconds` as ISO 8601 UTC ("2026-12-04T05:04:30Z"); "" for a value that is not a date
/// (negative, not finite, or past the year 5000).
std::string IsoUtc(double unix_seconds);

/// Now, as IsoUtc writes it.
std::string IsoUtcNow();

}  // namespace infermark
