// Reading the built-in engine's lateness from its Prometheus text, and judging a window between
// two readings.
#include "loadgen/engine_lateness.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace infermark::loadgen {
namespace {

std::string Exposition(int on_time, int late, int slips) {
  return "# HELP vllm:num_requests_running x\n"
         "vllm:num_requests_running{model_name=\"m\"} 3\n"
         "infermark:step_lateness_seconds_bucket{model_name=\"m\",le=\"0.0005\"} " +
         std::to_string(on_time) + "\n" + "infermark:step_lateness_seconds_bucket{model_name=\"m\",le=\"0.001\"} " +
         std::to_string(on_time) + "\n" + "infermark:step_lateness_seconds_bucket{model_name=\"m\",le=\"0.002\"} " +
         std::to_string(on_time + late) + "\n" +
         "infermark:step_lateness_seconds_bucket{model_name=\"m\",le=\"+Inf\"} " + std::to_string(on_time + late) +
         "\n" + "infermark:step_lateness_seconds_count{model_name=\"m\"} " + std::to_string(on_time + late) + "\n" +
         "infermark:clock_slips_total{model_name=\"m\"} " + std::to_string(slips) + "\n" +
         "infermark:clock_slip_seconds_total{model_name=\"m\"} 0.25\n";
}

TEST(EngineLateness, ParsesTheHistogramAndCounters) {
  const auto c = ParseLatenessCounters(Exposition(40, 2, 1));
  ASSERT_TRUE(c.has_value());
  ASSERT_EQ(c->buckets.size(), 4u);
  EXPECT_DOUBLE_EQ(c->buckets[0].first, 0.0005);
  EXPECT_EQ(c->buckets[2].second, 42u);
  EXPECT_TRUE(std::isinf(c->buckets[3].first));
  EXPECT_EQ(c->clock_slips, 1u);
  EXPECT_DOUBLE_EQ(c->clock_slip_seconds, 0.25);
  EXPECT_FALSE(ParseLatenessCounters("vllm:num_requests_running{model_name=\"m\"} 3\n").has_value());
  EXPECT_FALSE(ParseLatenessCounters("infermark:step_lateness_seconds_bucket{le=\"x\"} 1\n").has_value());
}

TEST(EngineLateness, JudgesOnlyTheWindowBetweenReadings) {
  // 10,000 late passes before the window do not count; in it, 200 on time and 3 late: p99 rank
  // 201 of 203 falls among the late ones.
  const auto before = *ParseLatenessCounters(Exposition(1000, 10'000, 2));
  const auto after = *ParseLatenessCounters(Exposition(1200, 10'003, 3));
  const metrics::EngineSelfCheck w = LatenessBetween(before, after);
  EXPECT_EQ(w.passes, 203u);
  EXPECT_DOUBLE_EQ(w.lateness_p99_ms, 2.0);
  EXPECT_DOUBLE_EQ(w.lateness_max_ms, 2.0);
  EXPECT_EQ(w.clock_slips, 1u);
  // One late pass in 203 is below the 99th percentile.
  const auto one = *ParseLatenessCounters(Exposition(1200, 10'001, 2));
  EXPECT_DOUBLE_EQ(LatenessBetween(before, one).lateness_p99_ms, 0.5);
  EXPECT_DOUBLE_EQ(LatenessBetween(before, one).lateness_max_ms, 2.0);
  // Nothing happened: no passes, nothing to judge.
  EXPECT_EQ(LatenessBetween(before, before).passes, 0u);
}

}  // namespace
}  // namespace infermark::loadgen
