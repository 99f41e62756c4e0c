// Timing on the device: CUDA events around batches of calls, after a warm-up, repeated; the median
// per call and the spread (p90 − p10) / median, with the wall-clock window the repeats ran in.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace infermark::gpu::probe {

/// What one test measured.
struct Timing {
  double seconds = 0;     ///< Median time of one call.
  double spread = 0;      ///< (p90 − p10) / median over the repeats.
  double start_unix = 0;  ///< Wall clock when the timed repeats began (after the warm-up).
  double end_unix = 0;    ///< Wall clock when they ended.
  int calls = 0;          ///< Calls per timed repeat.
  bool graph = false;     ///< Whether the calls were replayed from a CUDA graph.
};

/// Seconds since the Unix epoch.
double UnixNow();

/// How to time: warm-up batches, timed repeats, and the least time one timed batch should take.
struct TimingPlan {
  int warmup = 3;               ///< Untimed batches first.
  int repeats = 30;             ///< Timed batches.
  double min_batch_s = 0.5e-3;  ///< Calls per batch grow until one batch takes this long.
  int max_calls = 256;          ///< Upper bound on calls per batch.
  int min_calls = 1;            ///< Lower bound on calls per batch (e.g. the weight copies to rotate).
  bool try_graph = true;        ///< Capture the batch as a CUDA graph (falls back to plain launches).
};

/// Times `call(i)` (i counts calls from 0, so callers rotate inputs with it) on `stream`.
Timing TimeCalls(cudaStream_t stream, const TimingPlan& plan, const std::function<void(long)>& call);

/// Median and (p90 − p10) / median of `values` (not empty).
void MedianSpread(std::vector<double> values, double& median, double& spread);

}  // namespace infermark::gpu::probe
