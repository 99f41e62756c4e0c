// Kernel receive timestamps (SO_TIMESTAMPNS) are on CLOCK_REALTIME; every other time the client
// keeps is on CLOCK_MONOTONIC. The bridge moves the first onto the second with the offset between
// the two clocks, read at each conversion. Slewing (NTP's frequency corrections) moves both clocks
// alike and leaves the offset alone; a step of the real-time clock (settimeofday, an NTP or
// hypervisor step, a VM restored from a snapshot) changes it, and bytes that arrived before a step
// but are read after it come out off by the step. The bridge cannot undo that; it counts the steps
// it sees, so that a result can say its timestamps crossed one.
#pragma once

#include <cstdint>

namespace infermark::http {

/// Converter and step detector for one thread.
class RealtimeBridge {
 public:
  /// An offset that moves by more than this between two clean readings is a step.
  static constexpr std::int64_t kStepThresholdNs = 100'000;
  /// A reading whose two monotonic reads are further apart than this was interrupted (the thread
  /// was preempted between them); its offset is not trusted.
  static constexpr std::int64_t kCleanWindowNs = 20'000;

  /// `realtime_ns` on the monotonic clock, both clocks read now.
  std::int64_t ToMonotonic(std::int64_t realtime_ns);
  /// The same with readings the caller took in this order: monotonic, real-time, monotonic. The
  /// offset is the real-time reading minus the midpoint of the two monotonic ones; an interrupted
  /// reading uses the last clean offset instead (its own when there is none yet).
  std::int64_t ToMonotonic(std::int64_t realtime_ns, std::int64_t mono_before, std::int64_t real_now,
                           std::int64_t mono_after);

  /// Steps seen so far.
  std::uint64_t steps() const { return steps_; }
  /// The largest step seen, in either direction (ns, positive); 0 without steps.
  std::int64_t largest_step_ns() const { return largest_step_ns_; }

 private:
  std::int64_t offset_ = 0;
  bool have_offset_ = false;
  std::uint64_t steps_ = 0;
  std::int64_t largest_step_ns_ = 0;
};

}  // namespace infermark::http
