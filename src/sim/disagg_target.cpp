#include "sim/disagg_target.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "core/diagnostic.hpp"
#include "core/internal_error.hpp"
#include "core/split_mix.hpp"
#include "perfmodel/output_length.hpp"

namespace infermark::sim {

RouterPolicy ParseRouterPolicy(const std::string& text) {
  if (text == "round-robin") return RouterPolicy::kRoundRobin;
  if (text == "least-loaded") return RouterPolicy::kLeastLoaded;
  if (text == "kv-aware") return RouterPolicy::kKvAware;
  throw InputError(
      Diagnostic{SourceMark{}, "", "--router", "must be round-robin, least-loaded or kv-aware, not '" + text + "'"});
}

const char* RouterPolicyName(RouterPolicy policy) {
  switch (policy) {
    case RouterPolicy::kLeastLoaded:
      return "least-loaded";
    case RouterPolicy::kKvAware:
      return "kv-aware";
    case RouterPolicy::kRoundRobin:
      break;
  }
  return "round-robin";
}

struct DisaggTarget::Worker {
  Worker(const perfmodel::SchedulerConfig& config, const perfmodel::StepTimeModel& model, bool decode,
         std::size_t position)
      : scheduler(config, model), is_decode(decode), index(position) {}
  perfmodel::Scheduler scheduler;
  bool is_decode;
  std::size_t index;
  bool in_flight = false;                  // a pass is planned and its end is an event
  bool step_pending = false;               // a Step is posted
  bool abort_pending = false;              // cancelled requests leave at the end of the pass
  std::unordered_set<std::uint64_t> held;  // requests submitted here and not finished
  std::int64_t pass_start = 0;             // start of the pass in flight
  std::vector<perfmodel::TokenEvent> events;
};

// The workers of one role and the router's state for them.
struct DisaggTarget::Pool {
  explicit Pool(std::vector<std::unique_ptr<Worker>>& members)
      : workers(members), picker(std::max<std::size_t>(1, members.size()), perfmodel::RoutePolicy::kKvAware) {}
  std::vector<std::unique_ptr<Worker>>& workers;
  std::size_t next = 0;            // round robin, least loaded
  perfmodel::WorkerPicker picker;  // kv-aware
};

struct DisaggTarget::Live {
  loadgen::RequestTracker* tracker = nullptr;  // null once ended
  std::int64_t produced = 0;                   // output tokens so far
  int prompt_tokens = 0;
  int max_tokens = 0;
  std::size_t prefill_worker = 0;
  std::size_t decode_worker = 0;
  std::shared_ptr<const std::vector<std::uint64_t>> blocks;  // the prompt's prefix identity
  int block_tokens = 64;
  std::int64_t prefilled_ns = 0;  // end of its prefill
  std::int64_t arrived_ns = 0;    // its KV is on the decode side
  bool first_sent = false;        // the first token reached the client
};

// Collects a pass's events for delivery after the scheduler is done with the pass.
class DisaggTarget::Sink final : public perfmodel::EventSink {
 public:
  Sink(DisaggTarget& target, Worker& worker, bool every_step)
      : target_(target), worker_(worker), every_step_(every_step) {}
  void OnChunk(const perfmodel::TokenEvent& event) override {
    if (!every_step_ && !event.first && !event.finished) {
      target_.live_[event.id].produced += event.tokens;
      return;
    }
    worker_.events.push_back(event);
  }
  [[nodiscard]] bool WantsEveryStep() const override { return every_step_; }

 private:
  DisaggTarget& target_;
  Worker& worker_;
  bool every_step_;
};

DisaggTarget::DisaggTarget(const perfmodel::DisaggDeployment& deployment, SimExecutor& executor,
                           VirtualTargetOptions options, RouterPolicy router)
    : deployment_(deployment),
      executor_(executor),
      options_(options),
      router_(router),
      prefill_model_(deployment.prefill),
      decode_model_(deployment.decode) {
  for (int i = 0; i < deployment.prefill_workers; ++i)
    prefill_.push_back(std::make_unique<Worker>(deployment.prefill.scheduler, prefill_model_, false, prefill_.size()));
  for (int i = 0; i < deployment.decode_workers; ++i)
    decode_.push_back(std::make_unique<Worker>(deployment.decode.scheduler, decode_model_, true, decode_.size()));
  link_free_.assign(prefill_.size(), 0);
  prefill_pool_ = std::make_unique<Pool>(prefill_);
  decode_pool_ = std::make_unique<Pool>(decode_);
}

DisaggTarget::~DisaggTarget() = default;

const perfmodel::SchedulerStats& DisaggTarget::prefill_stats(std::size_t worker) const {
  return prefill_.at(worker)->scheduler.stats();
}

perfmodel::SchedulerStats DisaggTarget::PrefillTotals() const {
  perfmodel::SchedulerStats t;
  for (const auto& w : prefill_) {
    const perfmodel::SchedulerStats& s = w->scheduler.stats();
    t.steps += s.steps;
    t.plans += s.plans;
    t.preemptions += s.preemptions;
    t.max_running = std::max(t.max_running, s.max_running);
    t.prefix_queries += s.prefix_queries;
    t.prefix_hits += s.prefix_hits;
    t.host_queries += s.host_queries;
    t.host_hits += s.host_hits;
    t.prompt_computed += s.prompt_computed;
    t.host.offload_bytes += s.host.offload_bytes;
    t.host.offload_seconds += s.host.offload_seconds;
    t.host.onload_bytes += s.host.onload_bytes;
    t.host.onload_seconds += s.host.onload_seconds;
    t.host.eviction_wait_seconds += s.host.eviction_wait_seconds;
    t.host.offloaded_tokens += s.host.offloaded_tokens;
    t.host.onloaded_tokens += s.host.onloaded_tokens;
    t.host.evicted_tokens += s.host.evicted_tokens;
    t.cached_blocks += s.cached_blocks;
    t.host_used_tokens += s.host_used_tokens;
    t.stall_plans += s.stall_plans;
  }
  return t;
}

const perfmodel::SchedulerStats& DisaggTarget::decode_stats(std::size_t worker) const {
  return decode_.at(worker)->scheduler.stats();
}

std::size_t DisaggTarget::Route(Pool& pool, const std::shared_ptr<const std::vector<std::uint64_t>>& blocks,
                                std::size_t* held_blocks) {
  auto& workers = pool.workers;
  if (held_blocks != nullptr) *held_blocks = 0;
  if (router_ == RouterPolicy::kRoundRobin) {
    const std::size_t i = pool.next;
    pool.next = (pool.next + 1) % workers.size();
    return i;
  }
  if (router_ == RouterPolicy::kLeastLoaded) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < workers.size(); ++i)
      if (workers[i]->held.size() < workers[best]->held.size()) best = i;
    return best;
  }
  static const std::vector<std::uint64_t> kNone;
  const std::vector<std::uint64_t>& b = blocks ? *blocks : kNone;
  std::vector<int> loads;
  std::vector<std::size_t> cached;
  for (std::size_t i = 0; i < workers.size(); ++i) {
    loads.push_back(static_cast<int>(workers[i]->held.size()));
    cached.push_back(pool.picker.CachedPrefix(i, b));
  }
  const std::size_t best = pool.picker.Pick(loads, b);
  if (held_blocks != nullptr) *held_blocks = cached[best];
  return best;
}

void DisaggTarget::Fail(loadgen::RequestTracker& tracker, std::int64_t now, const std::string& why) {
  // As the router answers it: 400, before any token, ended from the executor (never inside Issue).
  loadgen::RequestTracker* t = &tracker;
  executor_.Post(0, [t, now, why] {
    t->Status(400);
    loadgen::RequestEnd end;
    end.done_ns = now;
    end.error_kind = "http_status";
    end.error = why;
    t->Done(end);
  });
}

void DisaggTarget::Issue(const loadgen::RequestSpec& spec, loadgen::RequestTracker& tracker) {
  const std::int64_t now = executor_.NowNs();
  const loadgen::Prompt& prompt = *spec.prompt;
  const std::uint64_t id = live_.size();
  tracker.Sent(now);
  const std::uint64_t seed = SplitMix64(options_.seed ^ SplitMix64(id));
  Live live;
  live.prompt_tokens = static_cast<int>(prompt.prompt_len);
  live.max_tokens = static_cast<int>(
      perfmodel::DrawOutputLength(seed, options_.eos_mean_tokens, 0, prompt.output_len, options_.ignore_eos));
  live_.push_back(live);
  // Both roles must be able to hold it: the prefill worker its prompt, the decode worker the whole sequence.
  const std::size_t p = Route(*prefill_pool_, prompt.prefix_blocks, nullptr);
  Worker& w = *prefill_[p];
  const int total = live.prompt_tokens + live.max_tokens;
  const bool whole = decode_.empty();  // no decode workers: the prefill worker serves it all
  if (!w.scheduler.Accepts(live.prompt_tokens, whole ? live.max_tokens : 1) ||
      (!whole && !decode_.front()->scheduler.Accepts(live.prompt_tokens, std::max(1, live.max_tokens - 1)))) {
    Fail(tracker, now,
         "HTTP 400: prompt + max_tokens (" + std::to_string(total) +
             " tokens) does not fit this deployment (max_model_len or a worker's KV cache)");
    return;
  }
  live_[id].tracker = &tracker;
  live_[id].prefill_worker = p;
  live_[id].first_sent = whole;
  live_[id].blocks = prompt.prefix_blocks;
  live_[id].block_tokens = prompt.prefix_block_tokens;
  perfmodel::Request r;
  r.id = id;
  r.prompt_tokens = live.prompt_tokens;
  r.max_tokens = whole ? live.max_tokens : 1;  // the prefill worker samples the first token
  r.prefix_blocks = prompt.prefix_blocks;
  r.block_tokens = prompt.prefix_block_tokens;
  INFERMARK_CHECK(w.scheduler.Submit(r, now), "a prompt the prefill worker accepts is refused");
  w.held.insert(id);
  tracker.Status(200);
  RequestStep(w);
}

void DisaggTarget::RequestStep(Worker& w) {
  if (w.in_flight || w.step_pending) return;
  w.step_pending = true;
  executor_.Post(0, [this, &w] { Step(w); });
}

void DisaggTarget::Step(Worker& w) {
  w.step_pending = false;
  const std::int64_t now = executor_.NowNs();
  // A run of identical passes ends by the next event the clock holds (an arrival, another
  // worker's pass, a transfer), so whatever happens then meets this batch at a pass boundary.
  const perfmodel::TimeNs horizon = executor_.NextEventNs().value_or(std::numeric_limits<perfmodel::TimeNs>::max());
  const perfmodel::StepPlan plan = w.scheduler.Plan(now, std::numeric_limits<std::int64_t>::max(), horizon);
  if (plan.idle) {
    INFERMARK_CHECK(w.scheduler.Empty(), "a worker holding requests plans no pass");
    return;
  }
  w.in_flight = true;
  w.pass_start = plan.start;
  executor_.At(0, plan.start + plan.duration, [this, &w] { StepEnd(w); });
}

void DisaggTarget::StepEnd(Worker& w) {
  w.events.clear();
  Sink sink(*this, w, options_.chunk_times);
  w.scheduler.Complete(sink);
  w.in_flight = false;
  const std::vector<perfmodel::TokenEvent> events = std::move(w.events);
  w.events.clear();
  for (const perfmodel::TokenEvent& e : events) {
    if (e.finished) w.held.erase(e.id);
    if (w.is_decode || decode_.empty())
      OnDecoded(e, w);
    else
      OnPrefilled(e, w.index);
  }
  if (w.abort_pending) AbortEnded(w);
  if (!w.scheduler.Empty()) RequestStep(w);
}

void DisaggTarget::OnPrefilled(const perfmodel::TokenEvent& e, std::size_t worker) {
  Live& live = live_[e.id];
  if (live.tracker == nullptr) return;
  // The decode worker is chosen now, so the transfer knows what it already holds (KV-aware
  // routing: the blocks the router sent there before, a conversation's earlier turns); only the
  // rest of the prompt's KV leaves over this worker's link, behind the transfers already on it.
  const std::int64_t now = executor_.NowNs();
  live.prefilled_ns = now;
  int send = live.prompt_tokens;
  if (live.max_tokens > 1) {
    std::size_t held = 0;
    live.decode_worker = Route(*decode_pool_, live.blocks, &held);
    const std::int64_t reused = std::min<std::int64_t>(live.prompt_tokens, std::int64_t(held) * live.block_tokens);
    send = live.prompt_tokens - static_cast<int>(reused);
    transfer_.reused_tokens += reused;
  }
  transfer_.tokens += send;
  const double wire = deployment_.WireSeconds(send);
  const std::int64_t start = std::max(now, link_free_[worker]);
  const std::int64_t wire_ns = static_cast<std::int64_t>(std::llround(wire * 1e9));
  link_free_[worker] = start + wire_ns;
  const double fixed = deployment_.link.latency_s + deployment_.backend.overhead_s;
  const std::int64_t arrival = link_free_[worker] + static_cast<std::int64_t>(std::llround(fixed * 1e9));
  ++transfer_.transfers;
  transfer_.bytes += double(send) * deployment_.prefill.memory.kv_bytes_per_token;
  transfer_.busy_seconds += wire;
  transfer_.wait_seconds += double(start - now) * 1e-9;
  const double seconds = double(arrival - now) * 1e-9;
  transfer_.seconds += seconds;
  transfer_.max_seconds = std::max(transfer_.max_seconds, seconds);
  const std::uint64_t id = e.id;
  executor_.At(0, arrival, [this, id] { Arrived(id); });
}

void DisaggTarget::Arrived(std::uint64_t id) {
  Live& live = live_[id];
  if (live.tracker == nullptr) return;
  const std::int64_t now = executor_.NowNs();
  live.produced = 1;
  live.arrived_ns = now;
  if (live.max_tokens <= 1) {
    SendFirst(live, now);
    Finish(live, now);
    return;
  }
  Worker& w = *decode_[live.decode_worker];
  perfmodel::Request r;
  r.id = id;
  r.prompt_tokens = live.prompt_tokens;
  r.max_tokens = live.max_tokens - 1;
  r.kv_present = true;
  INFERMARK_CHECK(w.scheduler.Submit(r, now), "a request the decode workers accept is refused");
  w.held.insert(id);
  RequestStep(w);
}

void DisaggTarget::SendFirst(Live& live, std::int64_t at) {
  live.first_sent = true;
  loadgen::Chunk chunk;
  chunk.at_ns = at;
  chunk.text = true;
  chunk.timed = options_.chunk_times;
  chunk.tokens_so_far = 1;
  live.tracker->OnChunk(chunk);
}

void DisaggTarget::OnDecoded(const perfmodel::TokenEvent& e, Worker& w) {
  Live& live = live_[e.id];
  if (live.tracker == nullptr) return;
  // The prefill worker's token leaves with the decode worker's stream, once the decode worker has
  // admitted the request (its KV blocks taken): the start of its first decode pass.
  if (!live.first_sent) SendFirst(live, std::max(live.arrived_ns, w.pass_start));
  live.produced += e.tokens;
  loadgen::Chunk chunk;
  chunk.at_ns = e.time;
  chunk.text = true;
  chunk.timed = options_.chunk_times;
  chunk.tokens_so_far = static_cast<std::uint32_t>(live.produced);
  live.tracker->OnChunk(chunk);
  if (e.finished) Finish(live, e.time);
}

void DisaggTarget::Finish(Live& live, std::int64_t at) {
  loadgen::RequestTracker& tracker = *live.tracker;
  live.tracker = nullptr;
  tracker.Usage(live.prompt_tokens, live.produced);
  loadgen::RequestEnd end;
  end.done_ns = at;
  tracker.Done(end);
}

void DisaggTarget::CancelAll(std::string_view why) {
  const std::string reason(why);
  for (Live& live : live_) {
    if (live.tracker == nullptr) continue;
    loadgen::RequestTracker* t = live.tracker;
    live.tracker = nullptr;
    loadgen::RequestEnd end;
    end.done_ns = executor_.NowNs();
    end.error_kind = "cancelled";
    end.error = reason;
    t->Done(end);
  }
  // A scheduler is never changed between a plan and its end: a worker with a pass in flight lets
  // its requests go when the pass ends.
  for (auto* pool : {&prefill_, &decode_}) {
    for (auto& w : *pool) {
      if (w->in_flight)
        w->abort_pending = true;
      else
        AbortEnded(*w);
    }
  }
}

void DisaggTarget::AbortEnded(Worker& w) {
  w.abort_pending = false;
  std::vector<std::uint64_t> ids;
  for (const std::uint64_t id : w.held)
    if (live_[id].tracker == nullptr) ids.push_back(id);
  w.scheduler.Abort(ids);
  for (const std::uint64_t id : ids) w.held.erase(id);
}

loadgen::TargetReport DisaggTarget::Report() const {
  loadgen::TargetReport r;
  r.predicted = true;
  r.client = Json::object();
  Json server = Json::object();
  server["engine"] = deployment_.Description();
  server["clock"] = "virtual";
  server["chunk_times"] = options_.chunk_times;
  server["events"] = executor_.events();
  server["router"] = RouterPolicyName(router_);
  auto workers = [](const std::vector<std::unique_ptr<Worker>>& pool) {
    Json list = Json::array();
    for (const auto& w : pool) {
      const perfmodel::SchedulerStats& s = w->scheduler.stats();
      list.push_back(
          {{"passes", s.steps}, {"plans", s.plans}, {"preemptions", s.preemptions}, {"max_running", s.max_running}});
    }
    return list;
  };
  server["prefill_workers"] = workers(prefill_);
  server["decode_workers"] = workers(decode_);
  const TransferStats& t = transfer_;
  server["kv_transfer"] = {{"backend", deployment_.backend.name},
                           {"link", deployment_.link.kind},
                           {"link_gb_s", deployment_.link.bytes_per_s / 1e9},
                           {"efficiency", deployment_.backend.efficiency},
                           {"transfers", t.transfers},
                           {"tokens", t.tokens},
                           {"reused_tokens", t.reused_tokens},
                           {"bytes_per_rank", t.bytes},
                           {"busy_seconds", t.busy_seconds},
                           {"queued_seconds", t.wait_seconds},
                           {"mean_seconds", t.transfers > 0 ? t.seconds / double(t.transfers) : 0.0},
                           {"max_seconds", t.max_seconds}};
  r.server = std::move(server);
  return r;
}

}  // namespace infermark::sim
