#include "http/realtime_bridge.hpp"

#include <chrono>
#include <cstdlib>

#include "core/clock.hpp"

namespace infermark::http {

std::int64_t RealtimeBridge::ToMonotonic(std::int64_t realtime_ns) {
  const std::int64_t mono_before = MonotonicNs();
  const std::int64_t real_now =  // std::chrono::system_clock is CLOCK_REALTIME, the kernel stamps' clock
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const std::int64_t mono_after = MonotonicNs();
  return ToMonotonic(realtime_ns, mono_before, real_now, mono_after);
}

std::int64_t RealtimeBridge::ToMonotonic(std::int64_t realtime_ns, std::int64_t mono_before, std::int64_t real_now,
                                         std::int64_t mono_after) {
  const std::int64_t offset = real_now - (mono_before + (mono_after - mono_before) / 2);
  if (mono_after - mono_before > kCleanWindowNs) return realtime_ns - (have_offset_ ? offset_ : offset);
  if (have_offset_) {
    const std::int64_t step = std::llabs(offset - offset_);
    if (step > kStepThresholdNs) {
      ++steps_;
      if (step > largest_step_ns_) largest_step_ns_ = step;
    }
  }
  offset_ = offset;
  have_offset_ = true;
  return realtime_ns - offset;
}

}  // namespace infermark::http
