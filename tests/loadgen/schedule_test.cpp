// Properties of the open-loop schedule for any rate, burstiness, size and seed.
#include "loadgen/schedule.hpp"

#include <gtest/gtest.h>

#ifdef INFERMARK_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#endif

namespace infermark::loadgen {
namespace {

#ifdef INFERMARK_HAVE_RAPIDCHECK
RC_GTEST_PROP(Schedule, StartsAtZeroAndNeverGoesBack, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(1, 500);
  const double rate = *rc::gen::inRange(1, 100000) / 10.0;
  const double burstiness = *rc::gen::inRange(1, 50) / 10.0;
  NumpyRandomState rng(*rc::gen::arbitrary<std::uint32_t>());
  const std::vector<double> t = ArrivalOffsets(n, rate, burstiness, rng);
  RC_ASSERT(t.size() == n);
  RC_ASSERT(t[0] == 0.0);
  for (std::size_t i = 1; i < n; ++i) RC_ASSERT(t[i] >= t[i - 1]);
}

RC_GTEST_PROP(Schedule, SameSeedSameSchedule, ()) {
  const auto seed = *rc::gen::arbitrary<std::uint32_t>();
  const double rate = *rc::gen::inRange(1, 1000) * 1.0;
  NumpyRandomState a(seed), b(seed);
  RC_ASSERT(ArrivalOffsets(50, rate, 1.0, a) == ArrivalOffsets(50, rate, 1.0, b));
}

RC_GTEST_PROP(Schedule, InfiniteRateSendsEverythingAtOnceAndDrawsNothing, ()) {
  const auto n = *rc::gen::inRange<std::size_t>(0, 300);
  NumpyRandomState a(1), b(1);
  const auto t = ArrivalOffsets(n, std::nullopt, 1.0, a);
  RC_ASSERT(t == std::vector<double>(n, 0.0));
  RC_ASSERT(a.RandomDouble() == b.RandomDouble());
}
#endif

TEST(Schedule, MeanRateIsTheRequestedRate) {
  for (const double burstiness : {0.5, 1.0, 3.0}) {
    NumpyRandomState rng(11);
    const std::size_t n = 100'000;
    const auto t = ArrivalOffsets(n, 50.0, burstiness, rng);
    EXPECT_NEAR(static_cast<double>(n - 1) / t.back(), 50.0, 1.0) << burstiness;
  }
}

}  // namespace
}  // namespace infermark::loadgen
