#include "http/realtime_bridge.hpp"

#include <gtest/gtest.h>
#include <time.h>

#include "core/clock.hpp"

namespace infermark::http {
namespace {

constexpr std::int64_t kOffset = 1'700'000'000'000'000'000;  // real-time minus monotonic, ns

TEST(RealtimeBridge, UsesTheMidpointOfTheMonotonicReadings) {
  RealtimeBridge bridge;
  // Monotonic 1000 and 1200 around a real-time reading of kOffset + 1100: offset exactly kOffset.
  EXPECT_EQ(bridge.ToMonotonic(kOffset + 500, 1'000, kOffset + 1'100, 1'200), 500);
  EXPECT_EQ(bridge.steps(), 0u);
}

TEST(RealtimeBridge, CountsStepsOfTheRealTimeClockButNotJitter) {
  RealtimeBridge bridge;
  std::int64_t mono = 1'000'000;
  // Bytes that arrived 5 µs before a reading whose offset is `offset`: each converts to 5 µs
  // before that reading's monotonic time, whatever the offset did before.
  auto error = [&](std::int64_t offset) {
    mono += 1'000'000;
    return bridge.ToMonotonic(mono - 5'000 + offset, mono, mono + 20 + offset, mono + 40) - (mono - 5'000);
  };
  EXPECT_EQ(error(kOffset), 0);
  EXPECT_EQ(error(kOffset + 30'000), 0);  // 30 µs: under the threshold, not a step
  EXPECT_EQ(bridge.steps(), 0u);
  EXPECT_EQ(error(kOffset + 2'000'000), 0);  // the clock jumped 1.97 ms forward
  EXPECT_EQ(error(kOffset - 3'000'000), 0);  // then 5 ms back
  EXPECT_EQ(bridge.steps(), 2u);
  EXPECT_EQ(bridge.largest_step_ns(), 5'000'000);
}

TEST(RealtimeBridge, AnInterruptedReadingKeepsTheLastCleanOffset) {
  RealtimeBridge bridge;
  EXPECT_EQ(bridge.ToMonotonic(kOffset + 100, 0, kOffset + 10, 20), 100 - 10 + 10);
  // Preempted for 2 ms between the reads: its midpoint offset would be 1 ms off; the clean one is
  // used, and no step is counted.
  EXPECT_EQ(bridge.ToMonotonic(kOffset + 5'000'000, 4'000'000, kOffset + 4'000'010, 6'000'000), 5'000'000);
  EXPECT_EQ(bridge.steps(), 0u);
  // With no clean reading yet, an interrupted one uses its own midpoint.
  RealtimeBridge fresh;
  EXPECT_EQ(fresh.ToMonotonic(kOffset + 5'000'000, 4'000'000, kOffset + 5'000'000, 6'000'000), 5'000'000);
}

TEST(RealtimeBridge, ConvertsTheHostsRealTimeClock) {
  RealtimeBridge bridge;
  timespec real{};
  const std::int64_t before = MonotonicNs();
  ::clock_gettime(CLOCK_REALTIME, &real);
  const std::int64_t after = MonotonicNs();
  const std::int64_t mono = bridge.ToMonotonic(real.tv_sec * 1'000'000'000LL + real.tv_nsec);
  // The conversion lands between the monotonic readings taken around the real-time one (a little
  // slack for the conversion's own clock reads, which a preempted test thread can stretch).
  EXPECT_GE(mono, before - 1'000'000);
  EXPECT_LE(mono, after + 1'000'000);
}

}  // namespace
}  // namespace infermark::http
