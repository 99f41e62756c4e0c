// Iso-interactivity reading: the frontier of throughput against interactivity, then Steffen's
// monotone cubic through it (InferenceX's calculator and d3's curveMonotoneX), read only inside the
// frontier's range unless a caller asks for clamping. Expected values are Steffen's spline worked
// by hand or evaluated independently from the formulas (documented per test).
#include "report/iso_interactivity.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/internal_error.hpp"

namespace infermark::results {
namespace {

// A realistic frontier: interactivity (tok/s/user) against throughput per GPU.
const std::vector<double> kXs = {12.5, 24.0, 41.0, 63.0, 95.0};
const std::vector<double> kYs = {4200.0, 3100.0, 1900.0, 1100.0, 520.0};

std::vector<ChartPoint> FrontierPoints() {
  std::vector<ChartPoint> points;
  for (std::size_t i = 0; i < kXs.size(); ++i) points.push_back({kXs[i], kYs[i], i});
  return points;
}

TEST(MonotoneSpline, TwoKnotsUseSteffensEndSlopes) {
  // Secant −6: end slopes (3·−6 − 0)/2 = −9 and (3·−6 − (−9))/2 = −4.5; at t = 0.5 the Hermite
  // basis gives 0.5·100 + 0.125·10·(−9) + 0.5·40 − 0.125·10·(−4.5) = 64.375.
  const MonotoneSpline spline({10.0, 20.0}, {100.0, 40.0});
  EXPECT_DOUBLE_EQ(spline.slopes()[0], -9.0);
  EXPECT_DOUBLE_EQ(spline.slopes()[1], -4.5);
  EXPECT_NEAR(*spline.At(15.0), 64.375, 1e-12);
  EXPECT_NEAR(*spline.At(12.0), 83.68, 1e-12);
}

TEST(MonotoneSpline, InteriorSlopesAreSteffens) {
  const MonotoneSpline spline(kXs, kYs);
  // Independently evaluated Steffen slopes and values for this frontier.
  const std::vector<double> slopes = {-100.70893345896711, -85.53865482119622, -55.66982037570273, -28.93308080808081,
                                      -12.720959595959595};
  for (std::size_t i = 0; i < slopes.size(); ++i) EXPECT_NEAR(spline.slopes()[i], slopes[i], 1e-9) << i;
  EXPECT_NEAR(*spline.At(18.0), 3652.462441548105, 1e-9);
  EXPECT_NEAR(*spline.At(30.0), 2618.471637078369, 1e-9);
  EXPECT_NEAR(*spline.At(50.0), 1495.8903287554692, 1e-9);
  EXPECT_NEAR(*spline.At(80.0), 728.6255622632575, 1e-9);
  for (std::size_t i = 0; i < kXs.size(); ++i) EXPECT_DOUBLE_EQ(*spline.At(kXs[i]), kYs[i]);
}

TEST(MonotoneSpline, AgreesWithInferenceXsDocumentedCases) {
  // The cases InferenceX-app's calculator tests state (useThroughputData.test.ts): two knots give
  // end slopes 15 and 7.5; (0,0), (1,1), (2,4) an interior slope of 2; a peak a zero slope.
  const MonotoneSpline two({0.0, 10.0}, {0.0, 100.0});
  EXPECT_NEAR(two.slopes()[0], 15.0, 1e-12);
  EXPECT_NEAR(two.slopes()[1], 7.5, 1e-12);
  EXPECT_NEAR(MonotoneSpline({0.0, 1.0, 2.0}, {0.0, 1.0, 4.0}).slopes()[1], 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(MonotoneSpline({0.0, 1.0, 2.0}, {0.0, 1.0, 0.0}).slopes()[1], 0.0);
  const MonotoneSpline linear({0.0, 10.0, 20.0, 30.0}, {0.0, 100.0, 200.0, 300.0});
  EXPECT_NEAR(*linear.At(15.0), 150.0, 0.5);

  // Their frontier cases: (15, 100) lies under (20, 700); equal x keeps the highest throughput.
  const IsoFrontier front({{10, 800, 0}, {15, 100, 1}, {20, 700, 2}, {30, 300, 3}});
  ASSERT_EQ(front.front().size(), 3U);
  EXPECT_EQ(front.front()[1].index, 2U);
  const IsoFrontier same_x({{10, 100, 0}, {10, 300, 1}, {10, 200, 2}});
  ASSERT_EQ(same_x.front().size(), 1U);
  EXPECT_DOUBLE_EQ(same_x.Throughput(10)->value, 300.0);
}

TEST(MonotoneSpline, FlatNeighboursGiveZeroSlopeAndNoOvershoot) {
  // 0, 1, 1, 0: a local extremum keeps a zero slope, so the curve stays within [0, 1].
  const MonotoneSpline spline({1.0, 2.0, 3.0, 4.0}, {0.0, 1.0, 1.0, 0.0});
  EXPECT_DOUBLE_EQ(spline.slopes()[1], 0.0);
  EXPECT_DOUBLE_EQ(spline.slopes()[2], 0.0);
  EXPECT_NEAR(*spline.At(1.5), 0.6875, 1e-12);
  EXPECT_DOUBLE_EQ(*spline.At(2.5), 1.0);
  for (double x = 1.0; x <= 4.0; x += 0.01) {
    const double y = *spline.At(x);
    EXPECT_GE(y, 0.0);
    EXPECT_LE(y, 1.0);
  }
}

TEST(MonotoneSpline, MonotoneKnotsGiveAMonotoneCurve) {
  const MonotoneSpline spline(kXs, kYs);
  double previous = *spline.At(kXs.front());
  for (double x = kXs.front(); x <= kXs.back(); x += 0.05) {
    const double y = *spline.At(x);
    EXPECT_LE(y, previous + 1e-9) << x;
    previous = y;
  }
}

TEST(MonotoneSpline, RejectsUnsortedKnotsAndEmptyHasNoValue) {
  EXPECT_THROW(MonotoneSpline({2.0, 1.0}, {1.0, 2.0}), InternalError);
  EXPECT_THROW(MonotoneSpline({1.0, 2.0}, {1.0}), InternalError);
  EXPECT_FALSE(MonotoneSpline({}, {}).At(1.0).has_value());
  EXPECT_DOUBLE_EQ(*MonotoneSpline({5.0}, {7.0}).At(100.0), 7.0);
}

TEST(IsoFrontier, DominatedPointsDoNotShapeTheCurve) {
  std::vector<ChartPoint> points = FrontierPoints();
  points.push_back({30.0, 1000.0, 5});  // below the frontier
  points.push_back({24.0, 2000.0, 6});  // same interactivity, less throughput
  points.push_back({NAN, 9000.0, 7});   // not finite: left out
  const IsoFrontier frontier(points);
  ASSERT_EQ(frontier.front().size(), kXs.size());
  EXPECT_DOUBLE_EQ(frontier.min_x(), 12.5);
  EXPECT_DOUBLE_EQ(frontier.max_x(), 95.0);
  EXPECT_NEAR(frontier.Throughput(30.0)->value, 2618.471637078369, 1e-9);
  EXPECT_NEAR(*IsoThroughput(points, 50.0), 1495.8903287554692, 1e-9);
}

TEST(IsoFrontier, OutsideTheRangeFollowsTheCallersRule) {
  const IsoFrontier frontier(FrontierPoints());
  EXPECT_FALSE(frontier.Throughput(10.0).has_value());
  EXPECT_FALSE(frontier.Throughput(100.0).has_value());
  EXPECT_FALSE(IsoThroughput({}, 10.0).has_value());

  const auto low = frontier.Throughput(10.0, OutsideRange::kClamp);
  EXPECT_DOUBLE_EQ(low->value, 4200.0);
  EXPECT_EQ(low->status, IsoStatus::kClampedLow);
  const auto high = frontier.Throughput(100.0, OutsideRange::kClamp);
  EXPECT_DOUBLE_EQ(high->value, 520.0);
  EXPECT_EQ(high->status, IsoStatus::kClampedHigh);

  EXPECT_EQ(frontier.Throughput(10.0, OutsideRange::kFeed)->status, IsoStatus::kClampedLow);
  const auto unreachable = frontier.Throughput(100.0, OutsideRange::kFeed);
  EXPECT_DOUBLE_EQ(unreachable->value, 0.0);
  EXPECT_EQ(unreachable->status, IsoStatus::kUnreachable);
  EXPECT_EQ(frontier.Throughput(95.0)->status, IsoStatus::kInside);
}

TEST(IsoFrontier, OtherMetricsAreSplinedOverTheFrontiersPoints) {
  std::vector<ChartPoint> points = FrontierPoints();
  points.push_back({30.0, 1000.0, 5});  // off the frontier: its TTFT must not matter
  const std::vector<double> ttft = {0.0, 1.0, 1.0, 0.0, 0.0, 99.0};
  const IsoFrontier frontier(points);
  // Knots (12.5, 0), (24, 1), (41, 1), ...: between the two 1s the curve is flat.
  EXPECT_DOUBLE_EQ(frontier.Metric(ttft, 30.0)->value, 1.0);
  EXPECT_THROW((void)frontier.Metric({1.0}, 30.0), InternalError);
}

TEST(IsoFrontier, CostIsDerivedFromTheSplinedThroughput) {
  // Cost per million tokens = rate / throughput with one rate (1.17 $/h → 325 $·tok/s/M).
  const IsoFrontier frontier(FrontierPoints());
  const double rate = 1.17 / 3600 * 1e6;
  std::vector<double> cost;
  for (double y : kYs) cost.push_back(rate / y);
  const double expected = rate / 2618.471637078369;
  EXPECT_NEAR(frontier.Reciprocal(cost, kYs, 30.0)->value, expected, 1e-12);
  // Splining the cost directly would give a different value: the derived one is what was asked.
  EXPECT_GT(std::abs(frontier.Metric(cost, 30.0)->value - expected), 1e-6);

  // A numerator that varies (measured power) falls back to splining the metric itself.
  std::vector<double> joules = cost;
  joules[2] *= 1.01;
  EXPECT_FALSE(ReciprocalNumerator(joules, kYs).has_value());
  EXPECT_DOUBLE_EQ(frontier.Reciprocal(joules, kYs, 30.0)->value, frontier.Metric(joules, 30.0)->value);
}

TEST(ReciprocalNumerator, AgreesWithinOneInAThousand) {
  EXPECT_DOUBLE_EQ(*ReciprocalNumerator({2.0, 1.0, 0.5}, {1.0, 2.0, 4.0}), 2.0);
  EXPECT_TRUE(ReciprocalNumerator({2.0, 1.0009}, {1.0, 2.0}).has_value());
  EXPECT_FALSE(ReciprocalNumerator({2.0, 1.0011}, {1.0, 2.0}).has_value());
  EXPECT_DOUBLE_EQ(*ReciprocalNumerator({0.0, 3.0}, {5.0, 1.0}), 3.0);  // non-positive pairs are skipped
  EXPECT_FALSE(ReciprocalNumerator({0.0}, {1.0}).has_value());
}

}  // namespace
}  // namespace infermark::results
