// The reference client's random numbers: numpy's legacy RandomState (MT19937 seeded with
// init_genrand) and its masked-rejection `randint`, so that a simulated run draws exactly the
// input and output lengths the InferenceX client draws for the same seed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace infermark::engine {

/// numpy.random.RandomState(seed) for the calls the reference client makes.
class NumpyRandomState {
 public:
  /// Seeds as `np.random.seed(seed)`.
  explicit NumpyRandomState(std::uint32_t seed) : mt_(seed) {}

  /// `randint(low, high, n)`: n integers uniform in [low, high).
  std::vector<std::int64_t> RandInt(std::int64_t low, std::int64_t high, std::size_t n);

 private:
  std::mt19937 mt_;
};

}  // namespace infermark::engine
