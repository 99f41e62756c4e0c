// A fast 64-bit hash for short byte strings (pre-tokens, vocabulary entries); not for untrusted
// keys in adversarial settings beyond what a tokenizer cache needs.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace infermark::tokenizer {

/// Mixes 64 bits (the finalizer of MurmurHash3).
[[nodiscard]] inline std::uint64_t Mix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/// Hash of `key`: eight bytes at a time, multiply-rotate, then a final mix.
[[nodiscard]] inline std::uint64_t HashBytes(std::string_view key) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL ^ key.size();
  const char* p = key.data();
  std::size_t n = key.size();
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    h = (h << 29) | (h >> 35);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
  }
  return Mix64(h);
}

}  // namespace infermark::tokenizer
