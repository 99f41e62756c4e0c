// numpy's legacy generator: values anyone can reproduce with numpy in two lines.
#include "core/numpy_random.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace infermark {
namespace {

TEST(NumpyRandom, RandIntMatchesNumpy) {
  NumpyRandomState zero(0);  // np.random.seed(0); np.random.randint(0, 10, 5)
  EXPECT_EQ(zero.RandInt(0, 10, 5), (std::vector<std::int64_t>{5, 0, 3, 3, 7}));
  NumpyRandomState answer(42);  // np.random.seed(42); np.random.randint(0, 10, 5)
  EXPECT_EQ(answer.RandInt(0, 10, 5), (std::vector<std::int64_t>{6, 3, 7, 4, 6}));
}

TEST(NumpyRandom, RandomSampleAndExponentialMatchNumpy) {
  NumpyRandomState a(0);  // np.random.seed(0); np.random.random_sample()
  EXPECT_DOUBLE_EQ(a.RandomDouble(), 0.5488135039273248);
  NumpyRandomState b(0);  // np.random.seed(0); np.random.gamma(1.0, 1.0) = -log(1 - 0.5488…)
  EXPECT_DOUBLE_EQ(b.Gamma(1.0, 1.0), -std::log(1.0 - 0.5488135039273248));
}

TEST(NumpyRandom, SingleValueRangeDrawsNothing) {
  NumpyRandomState a(3), b(3);
  EXPECT_EQ(a.RandInt(5, 6), 5);
  EXPECT_EQ(a.RandomDouble(), b.RandomDouble());
}

TEST(NumpyRandom, ArraySeedingIsDeterministicAndDistinct) {
  const std::uint32_t key[4] = {1, 2, 3, 4};
  NumpyRandomState a(key), b(key);
  EXPECT_EQ(a.RandInt(0, 1 << 30, 8), b.RandInt(0, 1 << 30, 8));
  NumpyRandomState c(1);
  EXPECT_NE(NumpyRandomState(key).RandInt(0, 1 << 30, 8), c.RandInt(0, 1 << 30, 8));
}

TEST(NumpyRandom, GammaHasTheRequestedMean) {
  for (const double shape : {0.5, 1.0, 4.0}) {
    NumpyRandomState rng(7);
    double sum = 0;
    const int n = 200'000;
    for (int i = 0; i < n; ++i) sum += rng.Gamma(shape, 2.0);
    EXPECT_NEAR(sum / n, shape * 2.0, shape * 2.0 * 0.02) << shape;
  }
}

}  // namespace
}  // namespace infermark
