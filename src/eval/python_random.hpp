// Python's `random.Random` for the calls lm-evaluation-harness makes when it draws few-shot
// examples: seeding with an integer (MT19937, init_by_array over the seed's 32-bit words),
// `getrandbits`, `_randbelow` and `sample`, so that the same seed picks the same examples.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace infermark::eval {

/// `random.Random(seed)` for a non-negative integer seed.
class PythonRandom {
 public:
  /// Seeds as `random.Random(seed)` does.
  explicit PythonRandom(std::uint64_t seed);

  /// `getrandbits(k)` for 1 <= k <= 32.
  std::uint32_t GetRandBits(int k);
  /// `_randbelow(n)`: uniform in [0, n) by rejection on n.bit_length() bits (n >= 1, n < 2^32).
  std::uint32_t RandBelow(std::uint32_t n);
  /// The indices `sample(range(n), k)` returns, in order (k <= n < 2^32): Python's two
  /// algorithms (a shrinking pool for small populations, rejection of repeats otherwise).
  std::vector<std::size_t> SampleIndices(std::size_t n, std::size_t k);

 private:
  std::uint32_t Next32();
  void Generate();

  std::array<std::uint32_t, 624> mt_{};
  std::size_t pos_ = 624;
};

}  // namespace infermark::eval
