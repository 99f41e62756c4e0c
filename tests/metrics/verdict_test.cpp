// Each verdict rule on its own.
#include "metrics/verdict.hpp"

#include <gtest/gtest.h>

namespace infermark::metrics {
namespace {

BenchmarkMetrics Completed(std::size_t n) {
  BenchmarkMetrics m;
  m.completed = n;
  m.send_lag.percentiles = {{99.0, 0.2}};
  return m;
}

TEST(Verdict, CleanRunIsValid) {
  const Verdict v = Judge(Completed(100), 100, ClientSelfCheck{}, true);
  EXPECT_TRUE(v.valid);
  EXPECT_STREQ(v.Name(), "VALID");
  EXPECT_TRUE(v.reasons.empty());
}

TEST(Verdict, FailuresOverFivePercent) {
  EXPECT_TRUE(Judge(Completed(95), 100, ClientSelfCheck{}, true).valid);  // exactly 5 %
  const Verdict v = Judge(Completed(94), 100, ClientSelfCheck{}, true);
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find("6.00 % of requests failed (6 of 100)"), std::string::npos);
}

TEST(Verdict, ClientSaturation) {
  BenchmarkMetrics m = Completed(10);
  m.send_lag.percentiles = {{99.0, 1.5}};
  EXPECT_FALSE(Judge(m, 10, ClientSelfCheck{}, true).valid);
  ClientSelfCheck self;
  self.loop_lag_p99_ms = 2.0;
  const Verdict v = Judge(Completed(10), 10, self, true);
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reasons[0].find("event-loop lag"), std::string::npos);
  VerdictLimits loose;
  loose.max_loop_lag_p99_ms = 5.0;
  EXPECT_TRUE(Judge(Completed(10), 10, self, true, loose).valid);
}

TEST(Verdict, EngineBehindItsModelIsInvalidAndSaysSo) {
  EngineSelfCheck engine;
  engine.passes = 500;
  engine.lateness_p99_ms = 1.0;  // at the bound: still on schedule
  EXPECT_TRUE(Judge(Completed(10), 10, ClientSelfCheck{}, true, {}, &engine).valid);
  engine.lateness_p99_ms = 2.0;
  const Verdict v = Judge(Completed(10), 10, ClientSelfCheck{}, true, {}, &engine);
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find("engine behind its model (p99 2.000 ms)"), std::string::npos) << v.reasons[0];
  // No passes timed (max speed, or another server): nothing to judge.
  engine.passes = 0;
  EXPECT_TRUE(Judge(Completed(10), 10, ClientSelfCheck{}, true, {}, &engine).valid);
  VerdictLimits loose;
  loose.max_engine_lateness_p99_ms = 5.0;
  engine.passes = 500;
  EXPECT_TRUE(Judge(Completed(10), 10, ClientSelfCheck{}, true, loose, &engine).valid);
}

TEST(Verdict, AnEngineWhoseClockSlipsAwayIsBehindItsModelToo) {
  // p99 on schedule, but 9 stalls lost 115 ms of a 3 s window (3.8 %): every stream waited.
  EngineSelfCheck engine;
  engine.passes = 1964;
  engine.lateness_p99_ms = 0.5;
  engine.clock_slips = 9;
  engine.clock_slipped_ms = 115.4;
  engine.window_s = 3.01;
  const Verdict v = Judge(Completed(10), 10, ClientSelfCheck{}, true, {}, &engine);
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_NE(v.reasons[0].find("engine behind its model (clock slips): 9 passes started more than 5 ms late, losing "
                              "115.4 ms, 3.83 % of the measured window"),
            std::string::npos)
      << v.reasons[0];
  engine.clock_slipped_ms = 20;  // 0.66 %: within the 1 % allowed
  EXPECT_TRUE(Judge(Completed(10), 10, ClientSelfCheck{}, true, {}, &engine).valid);
}

TEST(Verdict, TooFewRequestsAndInterruptedRuns) {
  VerdictLimits limits;
  limits.min_completed = 20;
  EXPECT_FALSE(Judge(Completed(10), 10, ClientSelfCheck{}, true, limits).valid);
  EXPECT_FALSE(Judge(Completed(10), 10, ClientSelfCheck{}, false).valid);
}

}  // namespace
}  // namespace infermark::metrics
