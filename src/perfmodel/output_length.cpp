#include "perfmodel/output_length.hpp"

#include <algorithm>
#include <cmath>

#include "core/split_mix.hpp"

namespace infermark::perfmodel {

std::int64_t DrawOutputLength(std::uint64_t seed, double mean_tokens, std::int64_t min_tokens, std::int64_t max_tokens,
                              bool ignore_eos) {
  if (ignore_eos || mean_tokens <= 0) return max_tokens;
  // Uniform in (0, 1]: 53 random bits.
  const double u = (double(SplitMix64(seed) >> 11) + 1.0) * 0x1.0p-53;
  const double drawn = std::ceil(-std::log(u) * mean_tokens);
  const std::int64_t low = std::max<std::int64_t>(min_tokens, 1);
  const double clamped = std::clamp(drawn, double(low), double(std::max(low, max_tokens)));
  return std::min<std::int64_t>(static_cast<std::int64_t>(clamped), max_tokens);
}

}  // namespace infermark::perfmodel
