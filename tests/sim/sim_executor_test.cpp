// The simulated clock: events in time order, ties in the order they were scheduled, the clock
// never going back, and RunUntil stopping at its condition or when nothing is left.
#include "sim/sim_executor.hpp"

#include <gtest/gtest.h>

#include <string>

namespace infermark::sim {
namespace {

TEST(SimExecutor, RunsEventsInTimeOrderAndTiesInScheduleOrder) {
  SimExecutor ex;
  std::string order;
  ex.At(0, 30, [&] { order += 'c'; });
  ex.At(0, 10, [&] { order += 'a'; });
  ex.At(0, 10, [&] { order += 'b'; });
  ex.At(0, 20, [&] {
    order += 'x';
    EXPECT_EQ(ex.NowNs(), 20);
    ex.Post(0, [&] { order += 'y'; });   // after what runs now, at the same instant
    ex.At(0, 5, [&] { order += 'z'; });  // in the past: runs now, never earlier
  });
  EXPECT_EQ(ex.NextEventNs(), 10);
  ex.RunUntil([] { return false; }, {});
  EXPECT_EQ(order, "abxyzc");
  EXPECT_EQ(ex.NowNs(), 30);
  EXPECT_FALSE(ex.NextEventNs().has_value());
  EXPECT_EQ(ex.events(), 6u);
}

TEST(SimExecutor, StopsWhenDoneAndTicksPeriodically) {
  SimExecutor ex;
  int ran = 0;
  for (int i = 0; i < 10'000; ++i) ex.At(0, i, [&] { ++ran; });
  int ticks = 0;
  ex.RunUntil([&] { return ran == 9'000; }, [&] { ++ticks; });
  EXPECT_EQ(ran, 9'000);
  EXPECT_EQ(ticks, 2);  // every 4,096 events
  EXPECT_EQ(ex.NowNs(), 8'999);
  EXPECT_DOUBLE_EQ(ex.UnixAt(1'000'000'000) - ex.UnixAt(0), 1.0);
}

}  // namespace
}  // namespace infermark::sim
