#include "engine/closed_loop.hpp"

#include <algorithm>
#include <limits>

#include "engine/numpy_random.hpp"

namespace infermark::engine {

Workload ReferenceWorkload(int concurrency, int isl, int osl, double range_ratio, int num_prompts, std::uint32_t seed) {
  Workload w;
  w.concurrency = concurrency;
  const auto n = static_cast<std::size_t>(num_prompts > 0 ? num_prompts : 10 * concurrency);
  NumpyRandomState rng(seed);
  // Python's int() truncates; the lengths are positive, so a cast does the same.
  const auto in = rng.RandInt(static_cast<std::int64_t>(isl * range_ratio), isl + 1, n);
  const auto out = rng.RandInt(static_cast<std::int64_t>(osl * range_ratio), osl + 1, n);
  for (std::size_t i = 0; i < n; ++i) {
    w.input_lens.push_back(static_cast<int>(std::max<std::int64_t>(1, in[i])));
    w.output_lens.push_back(static_cast<int>(std::max<std::int64_t>(1, out[i])));
  }
  return w;
}

namespace {

class LoopSink : public EventSink {
 public:
  LoopSink(std::vector<RequestRecord>& records, std::vector<RequestSteps>* steps, bool chunks)
      : records_(records), steps_(steps), chunks_(chunks) {}

  void OnChunk(const TokenEvent& e) override {
    auto& r = records_[e.id];
    if (e.first) {
      r.first_chunk_ns = e.time;
      r.first_content_ns = e.time;
      if (steps_ != nullptr) (*steps_)[e.id].first = plan_index;
    }
    r.last_chunk_ns = e.time;
    r.output_tokens += e.tokens;
    if (chunks_) r.chunks.push_back(ChunkRecord{e.time, e.tokens});
    if (e.finished) {
      r.success = true;
      finished.push_back(e.id);
      if (steps_ != nullptr) (*steps_)[e.id].finish = plan_index;
    }
  }
  [[nodiscard]] bool WantsEveryStep() const override { return chunks_; }

  std::vector<std::uint64_t> finished;
  std::int64_t plan_index = 0;

 private:
  std::vector<RequestRecord>& records_;
  std::vector<RequestSteps>* steps_;
  bool chunks_;
};

}  // namespace

ClosedLoopResult RunClosedLoop(const SchedulerConfig& config, const StepTimeModel& model, const Workload& workload,
                               const ClosedLoopOptions& options) {
  ClosedLoopResult result;
  const std::size_t n = workload.input_lens.size();
  result.records.resize(n);
  if (options.keep_trace) result.trace.requests.resize(n);
  Scheduler scheduler(config, model);
  LoopSink sink(result.records, options.keep_trace ? &result.trace.requests : nullptr, options.record_chunks);
  std::size_t next = 0;
  auto send = [&](TimeNs now, std::int64_t after_plan) {
    const std::size_t id = next++;
    auto& r = result.records[id];
    r.id = id;
    r.intended_send_ns = now;
    r.send_ns = now;
    r.prompt_tokens = workload.input_lens[id];
    if (options.keep_trace) {
      auto& s = result.trace.requests[id];
      s.arrival = after_plan;
      s.prompt_tokens = workload.input_lens[id];
      s.output_tokens = workload.output_lens[id];
    }
    Request req;
    req.id = id;
    req.prompt_tokens = workload.input_lens[id];
    req.max_tokens = workload.output_lens[id];
    if (!scheduler.Submit(req, now)) {
      r.error = "rejected: longer than the model length or the KV cache";
      return false;
    }
    return true;
  };
  TimeNs now = 0;
  std::size_t in_flight = 0;
  while (next < n && in_flight < static_cast<std::size_t>(workload.concurrency))
    if (send(now, -1)) ++in_flight;
  while (!scheduler.Empty()) {
    const StepPlan plan = scheduler.Plan(now, std::numeric_limits<std::int64_t>::max());
    if (plan.idle) break;  // cannot happen with an admissible queue; guards against a stall
    now = plan.start + plan.duration;
    sink.plan_index = static_cast<std::int64_t>(result.trace.steps.size());
    if (options.keep_trace) result.trace.steps.push_back(TraceStep{plan.shape, plan.steps});
    sink.finished.clear();
    scheduler.Complete(sink);
    for (std::size_t i = 0; i < sink.finished.size(); ++i) {
      --in_flight;
      // A rejected request frees its slot at once, as a failed HTTP request would.
      while (next < n && in_flight < static_cast<std::size_t>(workload.concurrency))
        if (send(now, sink.plan_index)) {
          ++in_flight;
          break;
        }
    }
  }
  result.duration_ns = now;
  result.stats = scheduler.stats();
  return result;
}

PointMetrics RetimeTrace(const Trace& trace, const StepTimeModel& model, int num_gpus) {
  std::vector<double> end(trace.steps.size());
  double t = 0;
  for (std::size_t i = 0; i < trace.steps.size(); ++i) {
    t += model.Seconds(trace.steps[i].shape) * double(trace.steps[i].steps);
    end[i] = t;
  }
  std::vector<double> ttft, tpot, e2el;
  ttft.reserve(trace.requests.size());
  tpot.reserve(trace.requests.size());
  e2el.reserve(trace.requests.size());
  double in = 0, out = 0;
  int completed = 0;
  for (const auto& r : trace.requests) {
    if (r.finish < 0 || r.first < 0) continue;
    const double sent = r.arrival < 0 ? 0 : end[static_cast<std::size_t>(r.arrival)];
    const double first = end[static_cast<std::size_t>(r.first)] - sent;
    const double last = end[static_cast<std::size_t>(r.finish)] - sent;
    ++completed;
    in += r.prompt_tokens;
    out += r.output_tokens;
    ttft.push_back(first);
    e2el.push_back(last);
    if (r.output_tokens > 1) tpot.push_back((last - first) / (r.output_tokens - 1));
  }
  return SummarizeLatencies(std::move(ttft), std::move(tpot), std::move(e2el), in, out, t, num_gpus, completed);
}

}  // namespace infermark::engine
