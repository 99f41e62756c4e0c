// SplitMix64's finalizer: a well-mixed 64-bit value from any input (consecutive inputs give
// unrelated outputs). Seeds per request and hash chains over token ids use it.
#pragma once

#include <cstdint>

namespace infermark {

/// One SplitMix64 step of `x`.
constexpr std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace infermark
