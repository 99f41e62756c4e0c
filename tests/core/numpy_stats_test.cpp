// numpy's statistics on small arrays whose answers follow from the definitions by hand.
#include "core/numpy_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace infermark {
namespace {

TEST(NumpyStats, PercentileInterpolatesLinearlyBetweenNeighbours) {
  const std::vector<double> v{4.0, 1.0, 3.0, 2.0};  // sorted: 1 2 3 4, n - 1 = 3
  EXPECT_DOUBLE_EQ(NumpyPercentile(v, 0), 1.0);
  EXPECT_DOUBLE_EQ(NumpyPercentile(v, 100), 4.0);
  EXPECT_DOUBLE_EQ(NumpyPercentile(v, 50), 2.5);      // index 1.5
  EXPECT_DOUBLE_EQ(NumpyPercentile(v, 90), 3.7);      // index 2.7: 3 + 0.7
  EXPECT_DOUBLE_EQ(NumpyPercentile(v, 99.9), 3.997);  // index 2.997
  EXPECT_DOUBLE_EQ(NumpyPercentile(v, 10), 1.3);      // index 0.3
}

TEST(NumpyStats, MedianAveragesTheMiddlePairOfAnEvenArray) {
  EXPECT_DOUBLE_EQ(NumpyMedian(std::vector<double>{5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(NumpyMedian(std::vector<double>{5, 1, 3, 2}), 2.5);
}

TEST(NumpyStats, MedianInPlaceGivesTheSortedMedianBitForBit) {
  // Odd and even sizes, values whose pair mean rounds: selection must return NumpyMedian's bits.
  for (std::size_t n = 1; n < 40; ++n) {
    std::vector<double> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(0.1 * double((i * 7919) % 97) + 1e-3 / double(i + 1));
    std::vector<double> copy = v;
    EXPECT_EQ(NumpyMedianInPlace(copy), NumpyMedian(v)) << n;
  }
  std::vector<double> none;
  EXPECT_EQ(NumpyMedianInPlace(none), 0.0);
}

TEST(NumpyStats, StdIsThePopulationDeviation) {
  // mean 2.5; squared deviations 2.25 0.25 0.25 2.25 → mean 1.25 (ddof 0, not 5/3).
  EXPECT_DOUBLE_EQ(NumpyStd(std::vector<double>{1, 2, 3, 4}), std::sqrt(1.25));
  EXPECT_DOUBLE_EQ(NumpyStd(std::vector<double>{7}), 0.0);
}

TEST(NumpyStats, EmptyArraysGiveZeroAsTheReferenceDoes) {
  const std::vector<double> none;
  EXPECT_EQ(NumpyMean(none), 0.0);
  EXPECT_EQ(NumpyMedian(none), 0.0);
  EXPECT_EQ(NumpyStd(none), 0.0);
  EXPECT_EQ(NumpyPercentile(none, 99), 0.0);
}

TEST(NumpyStats, SumIsPairwiseNotSequential) {
  // 0.1 added 1000 times: a sequential loop drifts to 99.9999999999986; numpy's pairwise blocks of
  // eight accumulators stay at 100.00000000000001 (np.sum(np.full(1000, 0.1))).
  const std::vector<double> v(1000, 0.1);
  double sequential = 0;
  for (const double x : v) sequential += x;
  EXPECT_NE(NumpySum(v), sequential);
  EXPECT_EQ(NumpySum(v), 100.00000000000001);
  // Below eight items numpy adds in order.
  const std::vector<double> small{0.1, 0.2, 0.3};
  EXPECT_EQ(NumpySum(small), (0.0 + 0.1 + 0.2) + 0.3);
}

}  // namespace
}  // namespace infermark
