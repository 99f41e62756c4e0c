#include "gpu/probe/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "gpu/probe/cuda_check.hpp"

namespace infermark::gpu::probe {

namespace {

// Seconds between two recorded events, waiting for the second.
double Elapsed(cudaEvent_t start, cudaEvent_t stop) {
  CudaCheck(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  CudaCheck(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  return static_cast<double>(ms) * 1e-3;
}

void Record(cudaEvent_t event, cudaStream_t stream) {
  CudaCheck(cudaEventRecord(event, stream), "cudaEventRecord");
}

// Calls per batch: enough to last `min_batch_s` at `one` seconds a call, within [1, max_calls], rounded
// up to a multiple of `multiple`.
int BatchCalls(const TimingPlan& plan, double one) {
  const int multiple = std::max(plan.call_multiple, 1);
  const double wanted = std::ceil(plan.min_batch_s / std::max(one, 1e-7));
  const int calls = static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(std::max(plan.max_calls, 1))));
  return (calls + multiple - 1) / multiple * multiple;
}

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
  TimingPlan single = plan;
  single.try_graph = false;
  single.repeats = std::max(plan.repeats, 1);
  Batch batch(stream, single, call);
  batch.Time(single.repeats);
  return batch.Result();
}

Batch::Batch(cudaStream_t stream, const TimingPlan& plan, std::function<void(long)> call)
    : stream_(stream), call_(std::move(call)) {
  try {
    EnsureEvents(2);
    for (int w = 0; w < std::max(plan.warmup, 1); ++w) {
      Record(events_[0], stream_);
      call_(next_++);
      Record(events_[1], stream_);
      single_s_ = Elapsed(events_[0], events_[1]);
    }
    calls_ = BatchCalls(plan, single_s_);
    if (plan.try_graph) Capture();
  } catch (...) {
    Release();
    throw;
  }
}

Batch::~Batch() {
  Release();
}

void Batch::Release() {
  for (cudaEvent_t event : events_) cudaEventDestroy(event);
  events_.clear();
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
  exec_ = nullptr;
  graph_ = nullptr;
}

void Batch::EnsureEvents(std::size_t count) {
  while (events_.size() < count) {
    cudaEvent_t event = nullptr;
    CudaCheck(cudaEventCreate(&event), "cudaEventCreate");
    events_.push_back(event);
  }
}

// Captures calls [next_, next_ + calls_) as a graph; leaves none (the stream out of capture, the error
// cleared) when a call cannot be captured, and the batch then launches its calls one by one.
void Batch::Capture() {
  if (cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  bool ok = true;
  try {
    for (int i = 0; i < calls_; ++i) call_(next_ + i);
  } catch (const ProbeError&) {
    ok = false;
  }
  const cudaError_t end = cudaStreamEndCapture(stream_, &graph_);
  if (!ok || end != cudaSuccess || graph_ == nullptr) {
    cudaGetLastError();
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
    graph_ = nullptr;
    return;
  }
  if (cudaGraphInstantiate(&exec_, graph_, 0) != cudaSuccess) {
    cudaGetLastError();
    exec_ = nullptr;
    cudaGraphDestroy(graph_);
    graph_ = nullptr;
  }
}

void Batch::Enqueue() {
  if (exec_ != nullptr) {
    CudaCheck(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch");
    return;
  }
  for (int i = 0; i < calls_; ++i) call_(next_++);
}

void Batch::Time(int count) {
  count = std::max(count, 1);
  EnsureEvents(static_cast<std::size_t>(count) + 1);
  const double start = UnixNow();
  Enqueue();  // the first replay after other work runs with colder caches: not timed
  Record(events_[0], stream_);
  for (int i = 0; i < count; ++i) {
    Enqueue();
    Record(events_[static_cast<std::size_t>(i) + 1], stream_);
  }
  for (int i = 0; i < count; ++i) {
    const double s = Elapsed(events_[static_cast<std::size_t>(i)], events_[static_cast<std::size_t>(i) + 1]);
    per_call_.push_back(s / calls_);
  }
  windows_.emplace_back(start, UnixNow());
}

Timing Batch::Result() const {
  Timing t;
  if (!per_call_.empty()) MedianSpread(per_call_, t.seconds, t.spread);
  t.calls = calls_;
  t.batches = static_cast<int>(per_call_.size());
  t.graph = graph();
  t.windows = windows_;
  if (!windows_.empty()) {
    t.start_unix = windows_.front().first;
    t.end_unix = windows_.back().second;
  }
  return t;
}

Timing Batch::Sustain(double warmup_s, double window_s, int windows) {
  EnsureEvents(2);
  Record(events_[0], stream_);
  Enqueue();
  Record(events_[1], stream_);
  double replay_s = std::max(Elapsed(events_[0], events_[1]), 1e-7);
  // Warm-up in chunks of about 0.1 s (short host waits keep the queue short), re-sized as clocks settle.
  for (double warmed = 0; warmed < warmup_s;) {
    const int n = static_cast<int>(std::ceil(0.1 / replay_s));
    Record(events_[0], stream_);
    for (int i = 0; i < n; ++i) Enqueue();
    Record(events_[1], stream_);
    const double s = Elapsed(events_[0], events_[1]);
    warmed += s;
    replay_s = std::max(s / n, 1e-7);
  }
  Timing t;
  std::vector<double> per_call;
  for (int w = 0; w < std::max(windows, 1); ++w) {
    const int n = static_cast<int>(std::ceil(window_s / replay_s));
    const double start = UnixNow();
    Record(events_[0], stream_);
    for (int i = 0; i < n; ++i) Enqueue();
    Record(events_[1], stream_);
    const double s = Elapsed(events_[0], events_[1]);
    t.windows.emplace_back(start, UnixNow());
    per_call.push_back(s / (static_cast<double>(n) * calls_));
    replay_s = std::max(s / n, 1e-7);
  }
  MedianSpread(per_call, t.seconds, t.spread);
  t.calls = calls_;
  t.batches = static_cast<int>(per_call.size());
  t.graph = graph();
  t.start_unix = t.windows.front().first;
  t.end_unix = t.windows.back().second;
  return t;
}

}  // namespace infermark::gpu::probe
