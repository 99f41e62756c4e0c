// Each verdict rule on its own: failures, too few completions, interruption, and a figure the host
// moved beyond the tolerance (marks for the rest).
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

// A host error computed for a figure set by hand: `rel` of the ideal, split between the client's
// sending and the rest.
HostError ErrorOf(std::vector<std::pair<std::string, double>> rels, double client_share = 0.0) {
  HostError h;
  h.kind = HostErrorKind::kExact;
  for (const auto& [key, rel] : rels) {
    FigureError e;
    e.ideal = 100.0;
    e.abs = rel * 100.0;
    e.reported = e.ideal + e.abs;
    e.rel = rel;
    e.client_abs = e.abs * client_share;
    h.figures.emplace_back(key, e);
  }
  return h;
}

TEST(Verdict, SelfChecksAloneDecideNothing) {
  // Loop lag, send lag, late passes and catch-ups are diagnostics: without a figure they moved,
  // the run stands.
  BenchmarkMetrics m = Completed(10);
  m.send_lag.percentiles = {{99.0, 4.0}};
  ClientSelfCheck self;
  self.loop_lag_p99_ms = 3.0;
  EngineSelfCheck engine;
  engine.passes = 500;
  engine.lateness_p99_ms = 5.0;
  engine.clock_slips = 9;
  engine.clock_slipped_ms = 115.4;
  engine.window_s = 3.0;
  const HostError quiet = ErrorOf({{"median_ttft_ms", 0.004}, {"output_throughput", -0.002}});
  const Verdict v = Judge(m, 10, self, true, {}, &engine, &quiet);
  EXPECT_TRUE(v.valid);
  EXPECT_TRUE(v.marks.empty());
}

TEST(Verdict, AHeadlineFigureTheHostMovedIsInvalidAndNamesTheCause) {
  BenchmarkMetrics m = Completed(10);
  EngineSelfCheck engine;
  engine.passes = 500;
  engine.lateness_p99_ms = 2.0;
  const HostError moved = ErrorOf({{"median_ttft_ms", 0.032}, {"p99_itl_ms", 0.5}});
  const Verdict v = Judge(m, 10, ClientSelfCheck{}, true, {}, &engine, &moved);
  EXPECT_FALSE(v.valid);
  ASSERT_EQ(v.reasons.size(), 1u);
  EXPECT_EQ(v.reasons[0].rfind("host error: median TTFT +3.20 %", 0), 0u) << v.reasons[0];
  EXPECT_NE(v.reasons[0].find("engine passes late, p99 2.000 ms"), std::string::npos) << v.reasons[0];
  ASSERT_EQ(v.marks.size(), 2u);
  EXPECT_TRUE(v.marks[0].headline);
  EXPECT_EQ(v.marks[0].cause.rfind("engine host", 0), 0u) << v.marks[0].cause;
  EXPECT_EQ(v.marks[1].key, "p99_itl_ms");
  EXPECT_FALSE(v.marks[1].headline);
}

TEST(Verdict, ATailTheHostMovedIsMarkedButTheRunStands) {
  const HostError tail = ErrorOf({{"median_itl_ms", 0.003}, {"p99_itl_ms", 0.072}, {"p99.9_e2el_ms", -0.02}}, 1.0);
  const Verdict v = Judge(Completed(10), 10, ClientSelfCheck{}, true, {}, nullptr, &tail);
  EXPECT_TRUE(v.valid);
  ASSERT_EQ(v.marks.size(), 2u);
  EXPECT_EQ(v.marks[0].key, "p99_itl_ms");
  EXPECT_DOUBLE_EQ(v.marks[0].rel, 0.072);
  EXPECT_EQ(v.marks[0].cause.rfind("client", 0), 0u) << v.marks[0].cause;
  EXPECT_EQ(v.marks[1].key, "p99.9_e2el_ms");
}

TEST(Verdict, TheToleranceIsTheLimitAndSpreadsAreNeverJudged) {
  const HostError at = ErrorOf({{"output_throughput", -0.01}, {"std_ttft_ms", 0.9}});
  EXPECT_TRUE(Judge(Completed(10), 10, ClientSelfCheck{}, true, {}, nullptr, &at).valid);
  EXPECT_TRUE(Judge(Completed(10), 10, ClientSelfCheck{}, true, {}, nullptr, &at).marks.empty());
  VerdictLimits tight;
  tight.max_host_error_fraction = 0.005;
  const Verdict v = Judge(Completed(10), 10, ClientSelfCheck{}, true, tight, nullptr, &at);
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.reasons[0].rfind("host error: output throughput -1.00 %", 0), 0u) << v.reasons[0];
}

TEST(Verdict, FigureLabelsReadAsPeopleSayThem) {
  EXPECT_EQ(FigureLabel("median_ttft_ms"), "median TTFT");
  EXPECT_EQ(FigureLabel("p99.9_itl_ms"), "p99.9 ITL");
  EXPECT_EQ(FigureLabel("p90_intvty"), "p90 interactivity");
  EXPECT_EQ(FigureLabel("tput_per_gpu"), "throughput per GPU");
}

TEST(Verdict, TooFewRequestsAndInterruptedRuns) {
  VerdictLimits limits;
  limits.min_completed = 20;
  EXPECT_FALSE(Judge(Completed(10), 10, ClientSelfCheck{}, true, limits).valid);
  EXPECT_FALSE(Judge(Completed(10), 10, ClientSelfCheck{}, false).valid);
}

}  // namespace
}  // namespace infermark::metrics
