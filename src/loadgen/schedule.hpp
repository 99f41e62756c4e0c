// When each request is meant to go out. Open loop: arrival times computed up front from the
// reference's gamma gaps (burstiness 1 = Poisson); closed loop: a request's intended time is the
// moment a concurrency slot freed, known only during the run. Latencies measured from these
// intended times are free of coordinated omission.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/numpy_random.hpp"

namespace infermark::loadgen {

/// Offsets in seconds from the start of the run at which each of `n` requests is due: request 0 at
/// 0, then gaps drawn from `rng` as the reference draws them after each request it yields
/// (gamma(shape = burstiness, scale = 1 / (rate · burstiness))). Without a rate (infinite), all are
/// due at 0. The reference's last draw (after the last request) is made too, so `rng` ends where
/// the reference's would.
std::vector<double> ArrivalOffsets(std::size_t n, std::optional<double> request_rate, double burstiness,
                                   NumpyRandomState& rng);

}  // namespace infermark::loadgen
