#include "sim/virtual_target.hpp"

#include <limits>

#include "core/internal_error.hpp"
#include "core/split_mix.hpp"
#include "perfmodel/output_length.hpp"

namespace infermark::sim {

struct VirtualTarget::Live {
  loadgen::RequestTracker* tracker = nullptr;  // null once ended
  std::int64_t produced = 0;                   // output tokens so far
  std::int64_t prompt_tokens = 0;
  std::int64_t trace_index = -1;  // its entry in the trace (measured window only)
};

// Collects a pass's events; they are delivered after the scheduler is done with the pass, so a
// refill issued by a finished request is submitted between passes, as on a real engine. Without
// chunk times a request's chunks between its first and its last change nothing but its token
// count, which is kept here instead of queuing an event per sequence per pass.
class VirtualTarget::Sink final : public perfmodel::EventSink {
 public:
  Sink(VirtualTarget& target, bool every_step) : target_(target), every_step_(every_step) {}
  void OnChunk(const perfmodel::TokenEvent& event) override {
    if (!every_step_ && !event.first && !event.finished) {
      target_.live_[event.id].produced += event.tokens;
      return;
    }
    target_.events_.push_back(event);
  }
  [[nodiscard]] bool WantsEveryStep() const override { return every_step_; }

 private:
  VirtualTarget& target_;
  bool every_step_;
};

VirtualTarget::VirtualTarget(const perfmodel::Deployment& deployment, const perfmodel::StepTimeModel& model,
                             SimExecutor& executor, VirtualTargetOptions options)
    : deployment_(deployment),
      model_(model),
      executor_(executor),
      options_(options),
      scheduler_(deployment.scheduler, model) {}

VirtualTarget::~VirtualTarget() = default;

std::string VirtualTarget::Description() const {
  const perfmodel::Deployment& d = deployment_;
  return d.model.name + " " + d.precision.precision + " on " + std::to_string(d.tp) + "x " + d.hardware.name + ", " +
         d.framework.name + " (factors: " + d.efficiency_source + ")";
}

void VirtualTarget::PreparePhase(std::span<const loadgen::Prompt> /*prompts*/, std::span<const std::size_t> /*order*/) {
}

void VirtualTarget::RequestStep() {
  if (in_flight_ || step_pending_) return;
  step_pending_ = true;
  executor_.Post(0, [this] { Step(); });
}

void VirtualTarget::Issue(const loadgen::RequestSpec& spec, loadgen::RequestTracker& tracker) {
  const std::int64_t now = executor_.NowNs();
  const loadgen::Prompt& prompt = *spec.prompt;
  const std::uint64_t id = issued_++;
  tracker.Sent(now);
  perfmodel::Request r;
  r.id = id;
  r.prompt_tokens = static_cast<int>(prompt.prompt_len);
  r.prefix_blocks = prompt.prefix_blocks;
  r.block_tokens = prompt.prefix_block_tokens;
  const std::uint64_t seed = SplitMix64(options_.seed ^ SplitMix64(id));
  r.max_tokens = static_cast<int>(
      perfmodel::DrawOutputLength(seed, options_.eos_mean_tokens, 0, prompt.output_len, options_.ignore_eos));
  live_.push_back(Live{&tracker, 0, prompt.prompt_len, -1});
  if (window_ && options_.record_trace) {
    live_.back().trace_index = static_cast<std::int64_t>(trace_.requests.size());
    perfmodel::RequestSteps steps;
    steps.arrival = plan_index_;
    steps.prompt_tokens = r.prompt_tokens;
    steps.output_tokens = r.max_tokens;
    trace_.requests.push_back(steps);
  }
  if (!scheduler_.Submit(r, now)) {
    // As the built-in engine answers it: 400, before any token. Ended from the executor, never
    // inside Issue (a refill issued from an ending request must not end it recursively).
    live_[id].tracker = nullptr;
    loadgen::RequestTracker* t = &tracker;
    const int max_len = deployment_.scheduler.max_model_len;
    executor_.Post(0, [t, now, max_len, r] {
      t->Status(400);
      loadgen::RequestEnd end;
      end.done_ns = now;
      end.error_kind = "http_status";
      end.error = "HTTP 400: prompt + max_tokens (" + std::to_string(r.prompt_tokens + r.max_tokens) +
                  " tokens) does not fit this deployment (max_model_len " + std::to_string(max_len) +
                  " or its KV cache)";
      t->Done(end);
    });
    return;
  }
  tracker.Status(200);
  RequestStep();
}

void VirtualTarget::Step() {
  step_pending_ = false;
  const std::int64_t now = executor_.NowNs();
  // Runs of identical passes end by the next event the executor holds (an arrival, a timer), so
  // that whatever happens then meets the batch at a pass boundary.
  const perfmodel::TimeNs horizon = executor_.NextEventNs().value_or(std::numeric_limits<perfmodel::TimeNs>::max());
  const perfmodel::StepPlan plan = scheduler_.Plan(now, std::numeric_limits<std::int64_t>::max(), horizon);
  if (plan.idle) {
    INFERMARK_CHECK(scheduler_.Empty(), "a scheduler holding requests plans a pass");
    return;
  }
  in_flight_ = true;
  if (window_ && options_.record_trace) trace_.steps.push_back(perfmodel::TraceStep{plan.shape, plan.steps});
  executor_.At(0, plan.start + plan.duration, [this] { StepEnd(); });
}

void VirtualTarget::StepEnd() {
  events_.clear();
  Sink sink(*this, options_.chunk_times);
  scheduler_.Complete(sink);
  in_flight_ = false;
  if (window_) ++plan_index_;
  for (const perfmodel::TokenEvent& e : events_) Deliver(e);
  if (cancel_why_) CancelNow();
  if (!scheduler_.Empty()) RequestStep();
}

void VirtualTarget::Deliver(const perfmodel::TokenEvent& e) {
  Live& live = live_[e.id];
  if (live.tracker == nullptr) return;
  live.produced += e.tokens;
  if (live.trace_index >= 0) {
    perfmodel::RequestSteps& steps = trace_.requests[static_cast<std::size_t>(live.trace_index)];
    if (e.first) steps.first = plan_index_;
    if (e.finished) steps.finish = plan_index_;
  }
  loadgen::Chunk chunk;
  chunk.at_ns = e.time;
  chunk.text = true;
  chunk.timed = options_.chunk_times;
  chunk.tokens_so_far = static_cast<std::uint32_t>(live.produced);
  loadgen::RequestTracker& tracker = *live.tracker;
  tracker.OnChunk(chunk);
  if (!e.finished) return;
  live.tracker = nullptr;
  tracker.Usage(live.prompt_tokens, live.produced);
  loadgen::RequestEnd end;
  end.done_ns = e.time;
  tracker.Done(end);
}

void VirtualTarget::CancelAll(std::string_view why) {
  cancel_why_ = std::string(why);
  // The scheduler is never changed between a plan and its end: a pass in flight ends first.
  if (!in_flight_) CancelNow();
}

void VirtualTarget::CancelNow() {
  std::vector<std::uint64_t> ids;
  for (std::size_t id = 0; id < live_.size(); ++id) {
    if (live_[id].tracker != nullptr) ids.push_back(id);
  }
  scheduler_.Abort(ids);
  const std::string why = std::move(*cancel_why_);
  cancel_why_.reset();
  for (const std::uint64_t id : ids) {
    loadgen::RequestTracker* t = live_[id].tracker;
    live_[id].tracker = nullptr;
    loadgen::RequestEnd end;
    end.done_ns = executor_.NowNs();
    end.error_kind = "cancelled";
    end.error = why;
    t->Done(end);
  }
}

void VirtualTarget::OpenWindow() {
  window_ = true;
  plan_index_ = -1;
  trace_ = perfmodel::Trace{};
}

void VirtualTarget::CloseWindow() {
  window_ = false;
}

loadgen::TargetReport VirtualTarget::Report() const {
  loadgen::TargetReport r;
  r.predicted = true;
  r.client = Json::object();
  const perfmodel::SchedulerStats& s = scheduler_.stats();
  Json server = Json::object();
  server["engine"] = Description();
  server["clock"] = "virtual";
  server["chunk_times"] = options_.chunk_times;
  server["events"] = executor_.events();
  server["scheduler"] = {
      {"passes", s.steps}, {"plans", s.plans}, {"preemptions", s.preemptions}, {"max_running", s.max_running}};
  if (deployment_.scheduler.prefix_caching) {
    Json cache = {{"queries_tokens", s.prefix_queries},
                  {"gpu_hit_tokens", s.prefix_hits},
                  {"computed_prompt_tokens", s.prompt_computed},
                  {"gpu_cached_blocks", s.cached_blocks}};
    if (deployment_.scheduler.host_kv_tokens > 0) {
      cache["host_hit_tokens"] = s.host_hits;
      cache["host_capacity_tokens"] = deployment_.scheduler.host_kv_tokens;
      cache["host_used_tokens"] = s.host_used_tokens;
      cache["offload_bytes"] = s.host.offload_bytes;
      cache["offload_seconds"] = s.host.offload_seconds;
      cache["onload_bytes"] = s.host.onload_bytes;
      cache["onload_seconds"] = s.host.onload_seconds;
      cache["eviction_wait_seconds"] = s.host.eviction_wait_seconds;
    }
    server["prefix_cache"] = std::move(cache);
  }
  r.server = std::move(server);
  return r;
}

}  // namespace infermark::sim
