#include "perfmodel/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace infermark::perfmodel {

struct Scheduler::Seq {
  Request req;
  int prefill_target = 0;   // tokens to compute before decoding (prompt; + outputs after a preemption)
  int computed = 0;         // tokens whose KV is cached
  int emitted = 0;          // output tokens produced
  double progress = 0;      // expected output tokens with speculative decoding (fractional)
  int pending = 0;          // produced but not yet streamed (stream interval)
  bool started = false;     // first token reported
  int scheduled = 0;        // tokens in the planned pass
  bool registered = false;  // prompt blocks offered to the prefix cache
  std::vector<BlockId> blocks;

  [[nodiscard]] bool InPrefill() const { return computed < prefill_target; }
};

Scheduler::Scheduler(const SchedulerConfig& config, const StepTimeModel& model)
    : config_(config), model_(model), pool_(config.num_blocks, config.prefix_caching) {}

Scheduler::~Scheduler() = default;

std::int64_t Scheduler::BlocksFor(double tokens) const {
  return static_cast<std::int64_t>(std::ceil(tokens / config_.block_size - 1e-9));
}

bool Scheduler::Submit(const Request& request, TimeNs /*now*/) {
  const std::int64_t total = std::int64_t{request.prompt_tokens} + request.max_tokens;
  if (request.prompt_tokens < 1 || request.max_tokens < 1 || total > config_.max_model_len) return false;
  if (BlocksFor(double(total) + model_.decode_query_tokens()) > pool_.NumBlocks()) return false;
  auto s = std::make_unique<Seq>();
  s->req = request;
  s->prefill_target = request.prompt_tokens;
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

void Scheduler::PreemptLast() {
  std::unique_ptr<Seq> s = std::move(running_.back());
  running_.pop_back();
  pool_.Release(s->blocks);
  // Recompute: the prompt and every output so far are prefilled again, then decoding resumes.
  s->computed = 0;
  s->prefill_target = s->req.prompt_tokens + s->emitted;
  s->scheduled = 0;
  s->registered = false;
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
    for (const auto& s : running_)
      n += std::max<std::int64_t>(0, BlocksFor(s->computed + growth) - static_cast<std::int64_t>(s->blocks.size()));
    return n;
  };
  if (need(k) > pool_.Available()) {
    std::int64_t lo = 1, hi = k;  // need(lo) fits is checked below
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (need(mid) <= pool_.Available())
        lo = mid;
      else
        hi = mid - 1;
    }
    k = lo;
    if (k < 2) return false;
  }
  const double growth = std::ceil(double(k - 1) * g - 1e-9) + q;
  for (auto& s : running_) {
    const std::int64_t extra = BlocksFor(s->computed + growth) - static_cast<std::int64_t>(s->blocks.size());
    if (extra > 0) pool_.Allocate(extra, s->blocks);
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
    const int want =
        s.InPrefill() ? static_cast<int>(std::min<std::int64_t>(s.prefill_target - s.computed, budget)) : q;
    if (want <= 0 || want > budget) continue;
    const std::int64_t extra = BlocksFor(double(s.computed + want)) - static_cast<std::int64_t>(s.blocks.size());
    bool self_preempted = false;
    while (extra > pool_.Available()) {
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
    pool_.Allocate(extra, s.blocks);
    s.scheduled = want;
    budget -= want;
  }
  // New requests join only when nobody was preempted in this pass (as vLLM does).
  while (!preempted && !waiting_.empty() && budget > 0 &&
         running_.size() < static_cast<std::size_t>(config_.max_num_seqs)) {
    Seq& s = *waiting_.front();
    std::vector<BlockId> cached;
    std::int64_t cached_tokens = 0;
    if (config_.prefix_caching && s.computed == 0 && !s.req.block_hashes.empty()) {
      // At least one prompt token is always computed, so the last token never comes from cache.
      std::vector<std::uint64_t> usable = s.req.block_hashes;
      const auto max_blocks = static_cast<std::size_t>((s.req.prompt_tokens - 1) / config_.block_size);
      if (usable.size() > max_blocks) usable.resize(max_blocks);
      cached_tokens = pool_.MatchPrefix(usable, cached) * config_.block_size;
    }
    const std::int64_t want = std::min<std::int64_t>(s.prefill_target - cached_tokens, budget);
    const std::int64_t extra = BlocksFor(double(cached_tokens + want)) - static_cast<std::int64_t>(cached.size());
    if (extra > pool_.Available()) {
      pool_.Release(cached);
      break;
    }
    s.blocks = std::move(cached);
    pool_.Allocate(extra, s.blocks);
    s.computed = static_cast<int>(cached_tokens);
    s.scheduled = static_cast<int>(want);
    budget -= want;
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
  span_first_ = double(plan.duration) * 1e-9;
  span_slope_ = 0;
}

StepPlan Scheduler::Plan(TimeNs now, std::int64_t max_steps, TimeNs horizon) {
  StepPlan plan;
  plan.start = now;
  span_ = TryPlanSpan(now, max_steps, horizon, plan);
  if (!span_) PlanSingle(now, plan);
  planned_ = !plan.idle;
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

void Scheduler::Finish(std::size_t index) {
  pool_.Release(running_[index]->blocks);
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
        if (config_.prefix_caching && !s->registered && s->computed >= s->req.prompt_tokens) {
          for (std::size_t b = 0; b < s->req.block_hashes.size() && b < s->blocks.size(); ++b)
            pool_.Register(s->blocks[b], s->req.block_hashes[b]);
          s->registered = true;
        }
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
}

void Scheduler::Abort(const std::vector<std::uint64_t>& ids) {
  if (ids.empty()) return;
  // One pass over each queue whatever the number of ids (a whole benchmark's clients may leave at once).
  const std::unordered_set<std::uint64_t> gone(ids.begin(), ids.end());
  std::size_t kept = 0;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    if (gone.count(running_[i]->req.id)) {
      pool_.Release(running_[i]->blocks);
    } else {
      running_[kept++] = std::move(running_[i]);
    }
  }
  running_.resize(kept);
  std::erase_if(waiting_, [&](const std::unique_ptr<Seq>& s) { return gone.count(s->req.id) > 0; });
}

std::int64_t Scheduler::BlocksHeld() const {
  std::int64_t n = 0;
  for (const auto& s : running_) n += static_cast<std::int64_t>(s->blocks.size());
  return n;
}

std::vector<std::uint64_t> Scheduler::RunningIds() const {
  std::vector<std::uint64_t> ids;
  for (const auto& s : running_) ids.push_back(s->req.id);
  return ids;
}

}  // namespace infermark::perfmodel
