// Timing on the device with CUDA events. Three ways, one per kind of test:
// - TimeCalls: warm-up, then timed batches back to back (the HBM streams, long kernels at steady clocks);
// - Batch::Time: a batch of calls (a CUDA graph where capture works) sized to last at least a few hundred
//   microseconds, replayed in short runs that the caller interleaves over the whole probe, so that every
//   figure sees the same mix of power and clock states (GEMMs at model shapes, launch overheads);
// - Batch::Sustain: the batch replayed for seconds until the GPU sits at its steady power and clocks, then
//   timed over windows of a second or more (the GEMM peaks, a rate serving can hold).
// Each gives the median per call and the spread (p90 − p10) / median.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace infermark::gpu::probe {

/// A wall-clock interval, seconds since the Unix epoch.
using Window = std::pair<double, double>;

/// What one test measured.
struct Timing {
  double seconds = 0;           ///< Median time of one call.
  double spread = 0;            ///< (p90 − p10) / median over the timed batches (or windows).
  double start_unix = 0;        ///< Wall clock when the first timed batch began (after the warm-up).
  double end_unix = 0;          ///< Wall clock when the last one ended.
  int calls = 0;                ///< Calls per timed batch.
  int batches = 0;              ///< Timed batches (or windows) the median is over.
  bool graph = false;           ///< Whether the calls were replayed from a CUDA graph.
  std::vector<Window> windows;  ///< Wall-clock intervals the timed batches ran in.
};

/// Seconds since the Unix epoch.
double UnixNow();

/// How to time: warm-up, timed batches, and the least time one batch should take.
struct TimingPlan {
  int warmup = 3;               ///< Untimed single calls first (they size the batch).
  int repeats = 30;             ///< Timed batches (over all rounds for interleaved tests).
  int rounds = 1;               ///< Interleaved tests: rounds their timed batches are spread over.
  double min_batch_s = 0.2e-3;  ///< Calls per batch grow until one batch takes this long.
  int max_calls = 256;          ///< Upper bound on calls per batch.
  int call_multiple = 1;        ///< Calls per batch are a multiple of this (e.g. the weight copies rotated).
  bool try_graph = true;        ///< Capture the batch as a CUDA graph (falls back to plain launches).
};

/// Times `call(i)` (i counts calls from 0, so callers rotate inputs with it) on `stream`.
Timing TimeCalls(cudaStream_t stream, const TimingPlan& plan, const std::function<void(long)>& call);

/// Median and (p90 − p10) / median of `values` (not empty).
void MedianSpread(std::vector<double> values, double& median, double& spread);

/// A batch of calls replayed as one unit: a CUDA graph of the calls where capture works, else the calls
/// launched one by one (inputs still rotating with the call index). Timed in runs the caller interleaves
/// with other tests' (Time), or sustained for seconds (Sustain).
class Batch {
 public:
  /// Runs plan.warmup single calls (at least one), the last one timed, and sizes the batch from it: at
  /// least plan.min_batch_s long, a multiple of plan.call_multiple, at most plan.max_calls (rounded up to
  /// that multiple); then captures it when plan.try_graph.
  Batch(cudaStream_t stream, const TimingPlan& plan, std::function<void(long)> call);
  ~Batch();
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  /// Calls per batch.
  [[nodiscard]] int calls() const { return calls_; }
  /// Whether a replay is one CUDA graph launch.
  [[nodiscard]] bool graph() const { return exec_ != nullptr; }
  /// Seconds the single call before sizing took.
  [[nodiscard]] double single_call_s() const { return single_s_; }

  /// Enqueues one replay (not timed).
  void Enqueue();
  /// One untimed replay, then `count` timed replays back to back (no host wait between them); appends
  /// each one's seconds per call and its wall-clock interval (the whole run's, as the host saw it).
  void Time(int count);
  /// The median and spread over everything Time appended.
  [[nodiscard]] Timing Result() const;

  /// Replays back to back for at least `warmup_s` (the GPU reaches its steady power and clocks), then
  /// times `windows` windows of at least `window_s` each, back to back; the median and spread are over
  /// the windows' seconds per call.
  Timing Sustain(double warmup_s, double window_s, int windows);

 private:
  cudaStream_t stream_;
  std::function<void(long)> call_;
  long next_ = 0;
  int calls_ = 1;
  double single_s_ = 0;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<double> per_call_;
  std::vector<Window> windows_;

  void Capture();
  void Release();
  void EnsureEvents(std::size_t count);
};

}  // namespace infermark::gpu::probe
