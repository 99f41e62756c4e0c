#include "perfmodel/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "core/internal_error.hpp"

namespace infermark::perfmodel {

struct Scheduler::Seq {
  Request req;
  int prefill_target = 0;       // tokens to compute before decoding (prompt; + outputs after a preemption)
  int computed = 0;             // tokens whose KV is cached
  int emitted = 0;              // output tokens produced
  double progress = 0;          // expected output tokens with speculative decoding (fractional)
  int pending = 0;              // produced but not yet streamed (stream interval)
  bool started = false;         // first token reported
  int scheduled = 0;            // tokens in the planned pass
  bool counted = false;         // its first admission is in the prefix-cache counters
  PrefixChain chain;            // the prompt's prefix identity (no units without prefix caching)
  std::vector<UnitId> units;    // cached prefix units held, from the prompt's start
  std::int64_t own_blocks = 0;  // blocks of its own, after the units
  TimeNs ready = 0;             // loads from the host tier end
  bool present = false;         // its prompt's KV arrives computed (until admitted)

  [[nodiscard]] bool InPrefill() const { return computed < prefill_target; }
};

Scheduler::Scheduler(const SchedulerConfig& config, const StepTimeModel& model)
    : config_(config), model_(model), cache_(config) {}

Scheduler::~Scheduler() = default;

std::int64_t Scheduler::BlocksFor(double tokens) const {
  return static_cast<std::int64_t>(std::ceil(tokens / config_.block_size - 1e-9));
}

bool Scheduler::Accepts(int prompt_tokens, int max_tokens) const {
  const std::int64_t total = std::int64_t{prompt_tokens} + max_tokens;
  if (prompt_tokens < 1 || max_tokens < 1 || total > config_.max_model_len) return false;
  return BlocksFor(double(total) + model_.decode_query_tokens()) <= cache_.NumBlocks();
}

bool Scheduler::Submit(const Request& request, TimeNs /*now*/) {
  if (!Accepts(request.prompt_tokens, request.max_tokens)) return false;
  auto s = std::make_unique<Seq>();
  s->req = request;
  s->prefill_target = request.prompt_tokens;
  if (request.kv_present) s->present = true;
  if (!request.kv_present && config_.prefix_caching && request.prefix_blocks && !request.prefix_blocks->empty())
    s->chain = PrefixChain(request.prefix_blocks, request.block_tokens, config_.block_size, request.prompt_tokens);
  waiting_.push_back(std::move(s));
  return true;
}

int Scheduler::TokensThisStep(const Seq& s) const {
  const double g = config_.tokens_per_step;
  const int produced =
      g == 1.0 ? 1
               : static_cast<int>(std::floor(s.progress + g + 1e-9)) - static_cast<int>(std::floor(s.progress + 1e-9));
  return std::min(std::max(produced, 1), s.req.max_tokens - s.emitted);
}

std::int64_t Scheduler::Held(const Seq& s) const {
  const std::int64_t per_unit = s.chain.unit_tokens() / config_.block_size;
  return static_cast<std::int64_t>(s.units.size()) * per_unit + s.own_blocks;
}

void Scheduler::ReleaseAll(Seq& s) {
  cache_.Release(s.units);
  cache_.Free(s.own_blocks);
  s.own_blocks = 0;
}

void Scheduler::PreemptLast() {
  std::unique_ptr<Seq> s = std::move(running_.back());
  running_.pop_back();
  ReleaseAll(*s);
  // Recompute: the prompt and every output so far are prefilled again, then decoding resumes.
  s->computed = 0;
  s->prefill_target = s->req.prompt_tokens + s->emitted;
  s->scheduled = 0;
  s->ready = 0;
  ++stats_.preemptions;
  waiting_.push_front(std::move(s));
}

bool Scheduler::TryPlanSpan(TimeNs now, std::int64_t max_steps, TimeNs horizon, StepPlan& plan) {
  if (max_steps < 2 || running_.empty()) return false;
  if (!waiting_.empty() && running_.size() < static_cast<std::size_t>(config_.max_num_seqs)) return false;
  const double q = model_.decode_query_tokens();
  if (double(running_.size()) * q > config_.max_num_batched_tokens) return false;
  const double g = config_.tokens_per_step;
  const ContextCaps& caps = model_.caps();
  std::int64_t k = max_steps;
  for (const auto& s : running_) {
    if (s->InPrefill()) return false;
    const double left = s->req.max_tokens - s->progress;
    k = std::min<std::int64_t>(k, static_cast<std::int64_t>(std::ceil(left / g - 1e-9)));
    // Stop where a context crosses a cap: the step time is affine in the step index only while
    // every sequence stays on one side of each cap.
    const double ctx = s->computed + q;
    for (int c = 0; c < kAttentionClasses; ++c)
      if (caps.cap[c] > 0 && ctx < caps.cap[c])
        k = std::min<std::int64_t>(k, static_cast<std::int64_t>(std::floor((caps.cap[c] - ctx) / g)) + 1);
  }
  if (k < 2) return false;
  BatchShape first, second;
  for (const auto& s : running_) {
    AddDecode(first, s->computed + q, q, caps);
    AddDecode(second, s->computed + q + g, q, caps);
  }
  const double t0 = model_.Seconds(first), t1 = model_.Seconds(second);
  const double slope = t1 - t0;
  auto total_ns = [&](std::int64_t steps) {
    const double kd = double(steps);
    return static_cast<TimeNs>(std::llround((kd * t0 + slope * kd * (kd - 1) / 2) * 1e9));
  };
  // Something happens at the horizon (an arrival, a timer): the span ends by then, so that what
  // happens there finds the batch at a step boundary, as a real engine's would.
  if (horizon < std::numeric_limits<TimeNs>::max() && now + total_ns(k) > horizon) {
    std::int64_t lo = 1, hi = k;  // the longest span that ends by the horizon
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (now + total_ns(mid) <= horizon)
        lo = mid;
      else
        hi = mid - 1;
    }
    k = lo;
    if (k < 2) return false;
  }
  // Blocks for the whole span, taken now: the most steps whose growth fits in the pool.
  auto need = [&](std::int64_t steps) {
    std::int64_t n = 0;
    const double growth = std::ceil(double(steps - 1) * g - 1e-9) + q;
    for (const auto& s : running_) n += std::max<std::int64_t>(0, BlocksFor(s->computed + growth) - Held(*s));
    return n;
  };
  if (need(k) > cache_.Available()) {
    std::int64_t lo = 1, hi = k;  // need(lo) fits is checked below
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (need(mid) <= cache_.Available())
        lo = mid;
      else
        hi = mid - 1;
    }
    k = lo;
    if (k < 2) return false;
  }
  const double growth = std::ceil(double(k - 1) * g - 1e-9) + q;
  for (auto& s : running_) {
    const std::int64_t extra = BlocksFor(s->computed + growth) - Held(*s);
    if (extra > 0) {
      cache_.Allocate(extra, now, &ready_);
      s->own_blocks += extra;
    }
    s->scheduled = static_cast<int>(q);
  }
  span_first_ = t0;
  span_slope_ = slope;
  const double kd = double(k);
  // The average step: every field of the shape is affine in the step index.
  const double mid = (kd - 1) / 2;
  BatchShape mean = first;
  for (int c = 0; c < kAttentionClasses; ++c) mean.decode_ctx[c] += (second.decode_ctx[c] - first.decode_ctx[c]) * mid;
  plan.idle = false;
  plan.start = now;
  plan.duration = total_ns(k);
  plan.steps = k;
  plan.shape = mean;
  return true;
}

void Scheduler::PlanSingle(TimeNs now, StepPlan& plan) {
  std::int64_t budget = config_.max_num_batched_tokens;
  const int q = static_cast<int>(model_.decode_query_tokens());
  bool preempted = false;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    Seq& s = *running_[i];
    s.scheduled = 0;
    if (s.ready > now) continue;  // its prefix is still being loaded from the host
    const int want =
        s.InPrefill() ? static_cast<int>(std::min<std::int64_t>(s.prefill_target - s.computed, budget)) : q;
    if (want <= 0 || want > budget) continue;
    const std::int64_t extra = BlocksFor(double(s.computed + want)) - Held(s);
    bool self_preempted = false;
    while (extra > cache_.Available()) {
      // Out of blocks: the most recently admitted sequence gives its blocks back (vLLM's order).
      const bool is_self = running_.back().get() == &s;
      PreemptLast();
      preempted = true;
      if (is_self) {
        self_preempted = true;
        break;
      }
    }
    if (self_preempted) break;
    cache_.Allocate(extra, now, &ready_);
    s.own_blocks += std::max<std::int64_t>(extra, 0);
    s.scheduled = want;
    budget -= want;
  }
  // New requests join only when nobody was preempted in this pass (as vLLM does).
  while (!preempted && !waiting_.empty() && budget > 0 &&
         running_.size() < static_cast<std::size_t>(config_.max_num_seqs)) {
    Seq& s = *waiting_.front();
    if (s.present) {
      // Its KV came from a prefill worker: blocks for the prompt, and it decodes in this pass.
      if (q > budget) break;
      const std::int64_t blocks = BlocksFor(double(s.prefill_target + q));
      if (blocks > cache_.Available()) break;
      cache_.Allocate(blocks, now, &ready_);
      s.own_blocks = blocks;
      s.computed = s.prefill_target;
      s.present = false;
      s.scheduled = q;
      budget -= q;
      running_.push_back(std::move(waiting_.front()));
      waiting_.pop_front();
      continue;
    }
    PrefixMatch match;
    const int unit = s.chain.unit_tokens();
    // At least one prompt token is always computed, so the last token never comes from cache.
    if (s.chain.units() > 0) match = cache_.Lookup(s.chain, (s.req.prompt_tokens - 1) / unit);
    const std::int64_t cached_tokens = static_cast<std::int64_t>(match.units.size()) * unit;
    const std::int64_t want = std::min<std::int64_t>(s.prefill_target - cached_tokens, budget);
    const std::int64_t per_unit = unit > 0 ? unit / config_.block_size : 0;
    const std::int64_t extra =
        BlocksFor(double(cached_tokens + want)) - static_cast<std::int64_t>(match.units.size()) * per_unit;
    if (extra + match.blocks_needed > cache_.Available()) break;
    const TimeNs loaded = cache_.Acquire(match, now, s.units, &ready_);
    cache_.Allocate(extra, now, &ready_);
    s.own_blocks = std::max<std::int64_t>(extra, 0);
    s.computed = static_cast<int>(cached_tokens);
    if (config_.prefix_caching && !s.counted) {
      // As vLLM counts them: queries and hits at a request's first scheduling, in tokens.
      s.counted = true;
      const std::int64_t device = std::int64_t{match.device_units} * unit;
      const std::int64_t host = std::int64_t{match.host_units} * unit;
      stats_.prefix_queries += s.req.prompt_tokens;
      stats_.prefix_hits += device;
      if (cache_.HostCapacityTokens() > 0) {
        stats_.host_queries += s.req.prompt_tokens;
        stats_.host_hits += host;
      }
      stats_.prompt_computed += s.req.prompt_tokens - device - host;
    }
    if (loaded > now) {
      // Its prefill goes on once the prefix is back from the host; other sequences run meanwhile.
      s.ready = loaded;
      s.scheduled = 0;
    } else {
      s.scheduled = static_cast<int>(want);
      budget -= want;
    }
    running_.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
  }
  BatchShape shape;
  const ContextCaps& caps = model_.caps();
  for (const auto& s : running_) {
    if (s->scheduled == 0) continue;
    if (s->InPrefill())
      AddPrefill(shape, s->computed, s->scheduled, caps);
    else
      AddDecode(shape, s->computed + s->scheduled, s->scheduled, caps);
  }
  plan.idle = shape.Tokens() <= 0;
  plan.start = now;
  plan.steps = plan.idle ? 0 : 1;
  plan.duration = plan.idle ? 0 : static_cast<TimeNs>(std::llround(model_.Seconds(shape) * 1e9));
  plan.shape = shape;
  if (plan.idle) {
    // Nothing to compute, but prefixes are on their way from the host: the GPU waits for the
    // first of them (a pass of no steps).
    TimeNs first = std::numeric_limits<TimeNs>::max();
    for (const auto& s : running_)
      if (s->ready > now) first = std::min(first, s->ready);
    if (first != std::numeric_limits<TimeNs>::max()) {
      plan.idle = false;
      plan.duration = first - now;
      ++stats_.stall_plans;
    }
  }
  span_first_ = double(plan.duration) * 1e-9;
  span_slope_ = 0;
}

StepPlan Scheduler::Plan(TimeNs now, std::int64_t max_steps, TimeNs horizon) {
  StepPlan plan;
  plan.start = now;
  ready_ = now;
  span_ = TryPlanSpan(now, max_steps, horizon, plan);
  if (!span_) PlanSingle(now, plan);
  if (!plan.idle && ready_ > plan.start) {
    // Blocks it evicted were still being copied to the host: the pass starts when they are free.
    stats_.host.eviction_wait_seconds += double(ready_ - plan.start) * 1e-9;
    plan.start = ready_;
  }
  planned_ = !plan.idle;
  SyncStats();
  if (!plan.idle) {
    ++stats_.plans;
    stats_.steps += plan.steps;
    stats_.max_running = std::max<std::int64_t>(stats_.max_running, static_cast<std::int64_t>(running_.size()));
  }
  plan_ = plan;
  return plan;
}

void Scheduler::Emit(Seq& s, int tokens, TimeNs time, EventSink& sink) {
  s.pending += tokens;
  const bool finished = s.emitted >= s.req.max_tokens;
  const bool first = !s.started;
  if (first || finished || s.pending >= config_.stream_interval) {
    sink.OnChunk(TokenEvent{s.req.id, time, s.pending, first, finished});
    s.pending = 0;
    s.started = true;
  }
}

void Scheduler::SyncStats() {
  const double wait = stats_.host.eviction_wait_seconds;
  stats_.host = cache_.stats();
  stats_.host.eviction_wait_seconds = wait;
  stats_.cached_blocks = cache_.CachedBlocks();
  stats_.host_used_tokens = cache_.HostUsedTokens();
}

void Scheduler::Register(Seq& s, TimeNs end) {
  // Every unit whose tokens are all computed joins the cache (as vLLM caches full blocks after
  // each pass), so a request sharing the prefix can hit it while this one is still in prefill.
  const int unit = s.chain.unit_tokens();
  const int upto = std::min(s.chain.units(), s.computed / unit);
  const int per_unit = unit / config_.block_size;
  for (int u = static_cast<int>(s.units.size()); u < upto; ++u) {
    INFERMARK_CHECK(s.own_blocks >= per_unit, "a computed prefix unit has no blocks");
    s.units.push_back(cache_.Promote(s.chain.Key(u), unit, per_unit, end));
    s.own_blocks -= per_unit;
  }
}

void Scheduler::Finish(std::size_t index) {
  ReleaseAll(*running_[index]);
  running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(index));
}

void Scheduler::Complete(EventSink& sink) {
  if (!planned_) return;
  planned_ = false;
  const TimeNs end = plan_.start + plan_.duration;
  const double g = config_.tokens_per_step;
  if (span_) {
    const std::int64_t k = plan_.steps;
    if (sink.WantsEveryStep()) {
      for (std::int64_t j = 0; j < k; ++j) {
        const double jd = double(j);
        const double at = (jd + 1) * span_first_ + span_slope_ * jd * (jd + 1) / 2;
        const TimeNs t = j + 1 == k ? end : plan_.start + static_cast<TimeNs>(std::llround(at * 1e9));
        for (auto& s : running_) {
          const int n = TokensThisStep(*s);
          s->progress += g;
          s->emitted += n;
          s->computed += n;
          Emit(*s, n, t, sink);
        }
      }
    } else {
      for (auto& s : running_) {
        const double before = s->progress;
        s->progress += g * double(k);
        int n = g == 1.0
                    ? static_cast<int>(k)
                    : static_cast<int>(std::floor(s->progress + 1e-9)) - static_cast<int>(std::floor(before + 1e-9));
        n = std::min(n, s->req.max_tokens - s->emitted);
        s->emitted += n;
        s->computed += n;
        Emit(*s, n, end, sink);
      }
    }
  } else {
    for (auto& s : running_) {
      if (s->scheduled == 0) continue;
      if (s->InPrefill()) {
        s->computed += s->scheduled;
        if (s->chain.units() > static_cast<int>(s->units.size())) Register(*s, end);
        if (s->InPrefill()) continue;
        // The pass that completes the prompt samples one token.
        s->emitted += 1;
        s->progress = s->emitted;
        Emit(*s, 1, end, sink);
      } else {
        const int n = TokensThisStep(*s);
        s->progress += g;
        s->emitted += n;
        s->computed += n;
        Emit(*s, n, end, sink);
      }
    }
  }
  for (std::size_t i = running_.size(); i-- > 0;)
    if (running_[i]->emitted >= running_[i]->req.max_tokens) Finish(i);
  SyncStats();
}

void Scheduler::Abort(const std::vector<std::uint64_t>& ids) {
  if (ids.empty()) return;
  // One pass over each queue whatever the number of ids (a whole benchmark's clients may leave at once).
  const std::unordered_set<std::uint64_t> gone(ids.begin(), ids.end());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    if (gone.count(running_[i]->req.id)) {
      ReleaseAll(*running_[i]);
    } else {
      running_[kept++] = std::move(running_[i]);
    }
  }
  running_.resize(kept);
  std::erase_if(waiting_, [&](const std::unique_ptr<Seq>& s) { return gone.count(s->req.id) > 0; });
}

std::int64_t Scheduler::BlocksHeld() const {
  std::int64_t n = 0;
  for (const auto& s : running_) n += Held(*s);
  return n;
}

std::vector<std::uint64_t> Scheduler::RunningIds() const {
  std::vector<std::uint64_t> ids;
  for (const auto& s : running_) ids.push_back(s->req.id);
  return ids;
}

}  // namespace infermark::perfmodel
