#include "gpu/probe/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "gpu/probe/cuda_check.hpp"

namespace infermark::gpu::probe {

namespace {

// Two events, destroyed with the object.
class EventPair {
 public:
  EventPair() {
    CudaCheck(cudaEventCreate(&start_), "cudaEventCreate");
    CudaCheck(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// A captured batch of calls; empty when capture is not possible for them.
class Graph {
 public:
  ~Graph() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  // Captures calls [first, first + count); false (with the stream out of capture and the error
  // cleared) when a call cannot be captured.
  bool Capture(cudaStream_t stream, long first, int count, const std::function<void(long)>& call) {
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    bool ok = true;
    try {
      for (int i = 0; i < count; ++i) call(first + i);
    } catch (const ProbeError&) {
      ok = false;
    }
    const cudaError_t end = cudaStreamEndCapture(stream, &graph_);
    if (!ok || end != cudaSuccess || graph_ == nullptr) {
      cudaGetLastError();
      return false;
    }
    if (cudaGraphInstantiate(&exec_, graph_, 0) != cudaSuccess) {
      cudaGetLastError();
      exec_ = nullptr;
      return false;
    }
    return true;
  }
  void Launch(cudaStream_t stream) const { CudaCheck(cudaGraphLaunch(exec_, stream), "cudaGraphLaunch"); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void MedianSpread(std::vector<double> values, double& median, double& spread) {
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (values[hi] - values[lo]) * (pos - static_cast<double>(lo));
  };
  median = at(0.5);
  spread = median > 0 ? (at(0.9) - at(0.1)) / median : 0;
}

Timing TimeCalls(cudaStream_t stream, const TimingPlan& plan, const std::function<void(long)>& call) {
  EventPair events;
  long next = 0;
  // Warm-up, one call at a time, the last one timed to size the batch.
  float ms = 0;
  for (int w = 0; w < std::max(plan.warmup, 1); ++w) {
    CudaCheck(cudaEventRecord(events.start_, stream), "cudaEventRecord");
    call(next++);
    CudaCheck(cudaEventRecord(events.stop_, stream), "cudaEventRecord");
    CudaCheck(cudaEventSynchronize(events.stop_), "cudaEventSynchronize");
    CudaCheck(cudaEventElapsedTime(&ms, events.start_, events.stop_), "cudaEventElapsedTime");
  }
  const double one = std::max(static_cast<double>(ms) * 1e-3, 1e-7);
  int calls = static_cast<int>(std::ceil(plan.min_batch_s / one));
  calls = std::clamp(calls, std::max(plan.min_calls, 1), std::max(plan.max_calls, plan.min_calls));

  Timing timing;
  timing.calls = calls;
  Graph graph;
  timing.graph = plan.try_graph && graph.Capture(stream, next, calls, call);
  auto batch = [&] {
    if (timing.graph) {
      graph.Launch(stream);
    } else {
      for (int i = 0; i < calls; ++i) call(next++);
    }
  };
  batch();  // warms the graph (or the batch) up once more
  CudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<double> per_call;
  timing.start_unix = UnixNow();
  for (int r = 0; r < std::max(plan.repeats, 1); ++r) {
    CudaCheck(cudaEventRecord(events.start_, stream), "cudaEventRecord");
    batch();
    CudaCheck(cudaEventRecord(events.stop_, stream), "cudaEventRecord");
    CudaCheck(cudaEventSynchronize(events.stop_), "cudaEventSynchronize");
    CudaCheck(cudaEventElapsedTime(&ms, events.start_, events.stop_), "cudaEventElapsedTime");
    per_call.push_back(static_cast<double>(ms) * 1e-3 / calls);
  }
  timing.end_unix = UnixNow();
  MedianSpread(per_call, timing.seconds, timing.spread);
  return timing;
}

}  // namespace infermark::gpu::probe
