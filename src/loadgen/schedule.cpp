#include "loadgen/schedule.hpp"

namespace infermark::loadgen {

std::vector<double> ArrivalOffsets(std::size_t n, std::optional<double> request_rate, double burstiness,
                                   NumpyRandomState& rng) {
  std::vector<double> offsets(n, 0.0);
  if (!request_rate) return offsets;
  const double theta = 1.0 / (*request_rate * burstiness);
  double t = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    offsets[i] = t;
    t += rng.Gamma(burstiness, theta);
  }
  return offsets;
}

}  // namespace infermark::loadgen
