// numpy's legacy generator: values anyone can reproduce with numpy in two lines.
#include "core/numpy_random.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cinttypes>
#include <cmath>
#include <vector>

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

// Values numpy 2.5.2 prints for the same calls (the device host, 2026-12-04): ranges past 2^32 draw
// 64-bit words (two 32-bit outputs, high word first) under the mask, a range of exactly 2^32
// values stays on 32-bit draws.
TEST(NumpyRandom, RandIntBeyond32BitsMatchesNumpy) {
  struct Case {
    std::uint32_t seed;
    std::int64_t low;
    std::int64_t high;
    std::vector<std::int64_t> want;
  };
  const std::vector<Case> cases = {
      {0,
       0,
       INT64_C(1099511627776),
       {INT64_C(741280623151), INT64_C(506137267392), INT64_C(291447657211), INT64_C(841157541223),
        INT64_C(41332891347), INT64_C(91845220082)}},
      {1,
       -(std::int64_t{1} << 62),
       std::int64_t{1} << 62,
       {INT64_C(3081012064131973355), INT64_C(-547416547354995640), INT64_C(-4609576059358362743),
        INT64_C(965365488286768773), INT64_C(-1904517626224159808), INT64_C(-2908339576684261247)}},
      {42,
       5,
       INT64_C(4294967302),
       {INT64_C(3421126072), INT64_C(787846419), INT64_C(3348747340), INT64_C(2563451929), INT64_C(1914837118),
        INT64_C(429389019)}},
      {7,
       0,
       INT64_C(4294967296),
       {INT64_C(327741615), INT64_C(976413892), INT64_C(3349725721), INT64_C(1369975286), INT64_C(1882953283),
        INT64_C(4201435347)}},
      {7,
       0,
       INT64_C(9223372036854775807),
       {INT64_C(1407639518939636932), INT64_C(5163590386780219894), INT64_C(8087222774582268115),
        INT64_C(4122204982959224423)}},
  };
  for (const Case& c : cases) {
    NumpyRandomState rng(c.seed);  // np.random.seed(seed); np.random.randint(low, high, n, dtype=np.int64)
    EXPECT_EQ(rng.RandInt(c.low, c.high, c.want.size()), c.want) << c.seed << " [" << c.low << ", " << c.high << ")";
  }
}

// np.random.seed(3); [np.random.gamma(shape, 0.25) for _ in range(5)], for shapes below, at and
// above 1 (the three branches of the legacy sampler).
TEST(NumpyRandom, GammaMatchesNumpyDrawForDraw) {
  {
    NumpyRandomState rng(3);
    const std::vector<double> want = {0.07660927281742758, 0.021156391780502076, 0.40363265647400937,
                                      0.003942917551074535, 0.0006622182539022384};
    for (const double w : want) EXPECT_DOUBLE_EQ(rng.Gamma(0.5, 0.25), w) << "shape 0.5";
  }
  {
    NumpyRandomState rng(3);
    const std::vector<double> want = {1.301583808791602, 0.5740245516278103, 0.3333989481020006, 0.3123363035696161,
                                      0.40268381268943776};
    for (const double w : want) EXPECT_DOUBLE_EQ(rng.Gamma(2.0, 0.25), w) << "shape 2.0";
  }
  {
    NumpyRandomState rng(3);
    const std::vector<double> want = {2.067176154694889, 1.1419104346833664, 0.790185986453799, 0.7571106686388341,
                                      0.895849911111946};
    for (const double w : want) EXPECT_DOUBLE_EQ(rng.Gamma(4.0, 0.25), w) << "shape 4.0";
  }
}

// np.random.RandomState([1, 2, 3, 4]).randint(0, 2**30, 8), and the first key words of
// np.random.get_state() after np.random.seed(0); np.random.randint(0, 10, 3) (the dataset seeds
// its local generator from them).
TEST(NumpyRandom, ArraySeedingAndStateWordsMatchNumpy) {
  const std::uint32_t key[4] = {1, 2, 3, 4};
  NumpyRandomState a(key);
  EXPECT_EQ(a.RandInt(0, 1 << 30, 8), (std::vector<std::int64_t>{768222586, 1022996879, 334638762, 769204869, 207138292,
                                                                 530462489, 475940701, 836825474}));
  NumpyRandomState b(0);
  (void)b.RandInt(0, 10, 3);
  EXPECT_EQ(b.FirstStateWords(), (std::array<std::uint32_t, 4>{2443250962u, 1093594115u, 1878467924u, 2709361018u}));
}

}  // namespace
}  // namespace infermark
