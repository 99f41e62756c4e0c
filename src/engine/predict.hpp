// `infermark predict`: a sweep of concurrencies for one deployment and one sequence-length pair,
// each point a closed-loop run of the reference client in virtual time.
#pragma once

#include <vector>

#include "engine/closed_loop.hpp"
#include "engine/deployment.hpp"

namespace infermark::engine {

/// One sweep.
struct PredictSweep {
  int isl = 1024;                  ///< Input length (upper end of the range).
  int osl = 1024;                  ///< Output length (upper end of the range).
  double range_ratio = 0.8;        ///< Lengths are uniform in [ratio·L, L].
  int num_prompts = 0;             ///< Requests per point (0 = 10 × concurrency, as InferenceX).
  std::vector<int> concurrencies;  ///< Points.
};

/// One predicted point.
struct PredictedPoint {
  int conc = 0;          ///< Concurrency.
  PointMetrics metrics;  ///< InferenceX figures.
  SchedulerStats stats;  ///< Scheduler counters.
};

/// Runs every point of `sweep` on `deployment`.
std::vector<PredictedPoint> Predict(const Deployment& deployment, const PredictSweep& sweep);

}  // namespace infermark::engine
