// numpy's legacy random numbers (np.random.seed / RandomState: MT19937 with init_genrand or
// init_by_array seeding, masked-rejection randint, legacy gamma), so that a run draws exactly the
// prompt lengths, token ids and arrival gaps the reference client draws for the same seed.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace infermark {

/// numpy.random.RandomState for the calls the reference client makes.
class NumpyRandomState {
 public:
  /// `RandomState(seed)` / `np.random.seed(seed)` with an integer seed.
  explicit NumpyRandomState(std::uint32_t seed);
  /// `RandomState(array)`: seeding by an array of 32-bit words (init_by_array).
  explicit NumpyRandomState(std::span<const std::uint32_t> key);

  /// `randint(low, high, n)`: n integers uniform in [low, high) (int64, masked rejection).
  std::vector<std::int64_t> RandInt(std::int64_t low, std::int64_t high, std::size_t n);
  /// One `randint(low, high)`.
  std::int64_t RandInt(std::int64_t low, std::int64_t high);
  /// `random_sample()`: a double in [0, 1) from 53 random bits.
  double RandomDouble();
  /// `gamma(shape, scale)` (legacy Marsaglia–Tsang; shape 1 is the exponential).
  double Gamma(double shape, double scale);
  /// The first words of `get_state()[1]` (the MT19937 key as it stands).
  std::array<std::uint32_t, 4> FirstStateWords() const;

 private:
  std::uint32_t Next32();
  std::uint64_t Next64();
  double StandardExponential();
  double Gauss();
  void Generate();

  std::array<std::uint32_t, 624> key_{};
  std::size_t pos_ = 624;
  bool has_gauss_ = false;
  double gauss_ = 0.0;
};

}  // namespace infermark
