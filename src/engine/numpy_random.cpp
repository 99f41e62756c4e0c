#include "engine/numpy_random.hpp"

namespace infermark::engine {

std::vector<std::int64_t> NumpyRandomState::RandInt(std::int64_t low, std::int64_t high, std::size_t n) {
  std::vector<std::int64_t> out(n, low);
  const auto range = static_cast<std::uint64_t>(high - low - 1);  // numpy's `rng`: inclusive span
  if (high - low <= 1) return out;
  // Ranges up to 2^32 - 1 draw 32-bit words masked to the next power of two minus one and reject
  // values above the range (numpy/random/src/distributions: buffered_bounded_masked_uint32).
  std::uint64_t mask = range;
  for (int shift = 1; shift < 64; shift <<= 1) mask |= mask >> shift;
  for (auto& v : out) {
    std::uint64_t x = 0;
    do {
      x = static_cast<std::uint64_t>(mt_()) & mask;
    } while (x > range);
    v = low + static_cast<std::int64_t>(x);
  }
  return out;
}

}  // namespace infermark::engine
