#include "http/delay_histogram.hpp"

#include <gtest/gtest.h>

namespace infermark::http {
namespace {

TEST(DelayHistogram, BucketsHoldTheirDurationsAndEdgesGrowByAQuarter) {
  EXPECT_EQ(DelayBucket(-5), 0u);
  EXPECT_EQ(DelayBucket(0), 0u);
  EXPECT_EQ(DelayBucket(1023), 0u);
  EXPECT_EQ(DelayBucketUpperNs(0), 1024);
  for (std::int64_t ns : {1024LL, 1279LL, 1280LL, 5'000LL, 999'999LL, 1'000'000LL, 37'123'456LL, 1'000'000'000LL}) {
    const std::size_t b = DelayBucket(ns);
    EXPECT_LT(ns, DelayBucketUpperNs(b)) << ns;
    EXPECT_GE(ns, b == 0 ? 0 : DelayBucketUpperNs(b - 1)) << ns;
    EXPECT_LE(DelayBucketUpperNs(b), ns * 5 / 4 + 1) << ns;  // the upper edge overstates by at most 25 %
  }
  EXPECT_EQ(DelayBucket(std::int64_t{1} << 50), kDelayBuckets - 1);
}

TEST(DelayHistogram, PercentilesAreUpperEdgesOfTheRankedBucket) {
  DelayCounts counts{};
  EXPECT_EQ(DelayPercentileNs(counts, 99.0), 0);
  for (int i = 0; i < 98; ++i) ++counts[DelayBucket(2'000)];  // 98 reads waited 2 µs
  ++counts[DelayBucket(1'500'000)];                           // one waited 1.5 ms
  ++counts[DelayBucket(40'000'000)];                          // one waited 40 ms
  EXPECT_EQ(DelayPercentileNs(counts, 50.0), DelayBucketUpperNs(DelayBucket(2'000)));
  EXPECT_EQ(DelayPercentileNs(counts, 99.0), DelayBucketUpperNs(DelayBucket(1'500'000)));
  EXPECT_EQ(DelayPercentileNs(counts, 100.0), DelayBucketUpperNs(DelayBucket(40'000'000)));
}

}  // namespace
}  // namespace infermark::http
