#include "http/delay_histogram.hpp"

#include <bit>
#include <cmath>

namespace infermark::http {
namespace {
constexpr int kFirstOctave = 10;  // 2^10 ns: bucket 1 starts at 1,024 ns
}  // namespace

std::size_t DelayBucket(std::int64_t ns) {
  if (ns < (std::int64_t{1} << kFirstOctave)) return 0;
  const auto v = static_cast<std::uint64_t>(ns);
  const auto octave = static_cast<int>(std::bit_width(v)) - 1;  // floor(log2 v) >= 10
  const auto quarter = static_cast<std::size_t>((v >> (octave - 2)) & 3u);
  const std::size_t bucket = 1 + static_cast<std::size_t>(octave - kFirstOctave) * 4 + quarter;
  return bucket < kDelayBuckets ? bucket : kDelayBuckets - 1;
}

std::int64_t DelayBucketUpperNs(std::size_t bucket) {
  if (bucket == 0) return std::int64_t{1} << kFirstOctave;
  const int octave = kFirstOctave + static_cast<int>((bucket - 1) / 4);
  const auto quarter = static_cast<std::int64_t>((bucket - 1) % 4);
  return (4 + quarter + 1) << (octave - 2);
}

std::int64_t DelayPercentileNs(const DelayCounts& counts, double percent) {
  std::uint64_t total = 0;
  for (const auto c : counts) total += c;
  if (total == 0) return 0;
  // The smallest bucket whose cumulative count reaches percent % of all (nearest rank).
  const auto rank = static_cast<std::uint64_t>(std::ceil(percent / 100.0 * static_cast<double>(total)));
  std::uint64_t seen = 0;
  for (std::size_t b = 0; b < counts.size(); ++b) {
    seen += counts[b];
    if (seen >= rank && seen > 0) return DelayBucketUpperNs(b);
  }
  return DelayBucketUpperNs(counts.size() - 1);
}

}  // namespace infermark::http
