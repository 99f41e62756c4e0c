// Durations counted in log-spaced buckets: cheap enough to record on every socket read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace infermark::http {

/// Bucket 0 holds durations under 1 µs; above, four buckets per doubling (edges 25 % apart) up to
/// 2^40 ns (about 18 minutes), the last bucket taking everything longer.
inline constexpr std::size_t kDelayBuckets = 1 + 4 * 30;

/// Counts per bucket.
using DelayCounts = std::array<std::uint64_t, kDelayBuckets>;

/// The bucket a duration falls in (negative durations count as zero).
std::size_t DelayBucket(std::int64_t ns);

/// The upper edge of a bucket, in ns.
std::int64_t DelayBucketUpperNs(std::size_t bucket);

/// The upper edge of the bucket holding the `percent` percentile of the counted durations (so
/// within 25 % above the exact value), 0 when nothing was counted.
std::int64_t DelayPercentileNs(const DelayCounts& counts, double percent);

}  // namespace infermark::http
