#include "core/parallel_chunks.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace infermark {
namespace {

using Range = std::pair<std::size_t, std::size_t>;

TEST(MapChunks, RangesCoverEveryIndexOnceInOrder) {
  for (std::size_t n : {0u, 1u, 2u, 7u, 100u, 1001u}) {
    for (std::size_t chunks : {1u, 2u, 3u, 8u, 2000u}) {
      const auto ranges = MapChunks(n, chunks, [](std::size_t b, std::size_t e) { return Range{b, e}; });
      ASSERT_FALSE(ranges.empty());
      EXPECT_LE(ranges.size(), std::max<std::size_t>(n, 1)) << "n=" << n << " chunks=" << chunks;
      std::size_t next = 0;
      for (const auto& [b, e] : ranges) {
        EXPECT_EQ(b, next) << "n=" << n << " chunks=" << chunks;
        EXPECT_LE(b, e);
        next = e;
      }
      EXPECT_EQ(next, n);
    }
  }
}

TEST(MapChunks, ResultsComeBackInRangeOrder) {
  std::vector<int> values(5000);
  std::iota(values.begin(), values.end(), 0);
  const auto parts = MapChunks(values.size(), 6, [&values](std::size_t b, std::size_t e) {
    return std::vector<int>(values.begin() + static_cast<std::ptrdiff_t>(b),
                            values.begin() + static_cast<std::ptrdiff_t>(e));
  });
  std::vector<int> joined;
  for (const auto& p : parts) joined.insert(joined.end(), p.begin(), p.end());
  EXPECT_EQ(joined, values);
}

TEST(MapChunks, TheEarliestRangesExceptionIsTheOneRethrown) {
  // Ranges 1 and 3 of 4 throw; a sequential loop would have met range 1's first.
  try {
    MapChunks(400, 4, [](std::size_t b, std::size_t) -> int {
      if (b == 100 || b == 300) throw std::runtime_error("range starting at " + std::to_string(b));
      return 0;
    });
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "range starting at 100");
  }
}

TEST(ChunkCount, SmallInputsStayOnOneThread) {
  EXPECT_EQ(ChunkCount(10, 48), 1u);
  EXPECT_EQ(ChunkCount(0, 48), 1u);
  EXPECT_GE(ChunkCount(1'000'000, 1), 1u);
  EXPECT_LE(ChunkCount(1'000'000, 1, 4), 4u);
}

}  // namespace
}  // namespace infermark
