#include "loadgen/dispatcher.hpp"

#include <algorithm>

namespace infermark::loadgen {

Dispatcher::Dispatcher(Target& target, Executor& executor, std::span<const Prompt> prompts, PhaseSpec phase)
    : target_(target),
      executor_(executor),
      prompts_(prompts),
      phase_(std::move(phase)),
      records_(phase_.order.size()),
      counters_(executor.Lanes() + 1) {
  trackers_.reserve(records_.size());
  for (std::size_t i = 0; i < records_.size(); ++i) {
    metrics::RequestRecord& r = records_[i];
    const Prompt& p = prompts_[phase_.order[i]];
    r.index = phase_.order[i];
    r.prompt_tokens = p.prompt_len;
    r.expected_output_tokens = p.output_len;
    trackers_.emplace_back(r, *this, i, phase_.keep_text);
  }
  target_.PreparePhase(prompts_, phase_.order);
}

// A pacing timer may still be armed when the phase is over (a stop signal ended it early) and fire
// while the executor's lanes run on: the dispatcher withdraws from it first.
Dispatcher::~Dispatcher() {
  std::lock_guard lock(pacer_->mu);
  pacer_->alive = false;
}

Dispatcher::LaneCounters& Dispatcher::Mine() {
  return counters_[executor_.CurrentLane().value_or(counters_.size() - 1)];
}

bool Dispatcher::Stopped() const {
  return stopped_.load(std::memory_order_relaxed) || (stop_at_ns_ && executor_.NowNs() >= *stop_at_ns_);
}

void Dispatcher::Start(std::int64_t start_ns) {
  start_ns_ = start_ns;
  if (phase_.duration_s > 0) stop_at_ns_ = start_ns + static_cast<std::int64_t>(phase_.duration_s * 1e9);
  const std::size_t n = records_.size();
  if (!phase_.offsets.empty()) {
    all_due_at_start_ = phase_.offsets.back() <= 0.0;  // an infinite rate
    Pace(0);
    return;
  }
  const std::size_t wave = phase_.concurrency ? std::min(n, static_cast<std::size_t>(*phase_.concurrency)) : n;
  for (std::size_t k = 0; k < wave; ++k) {
    const std::size_t i = next_.fetch_add(1);
    if (i >= n) break;
    records_[i].intended_ns = start_ns;
    records_[i].opening_wave = true;
    Mine().sent.fetch_add(1, std::memory_order_relaxed);
    Issue(i, std::nullopt);
  }
}

void Dispatcher::StopSending() {
  stopped_.store(true);
  std::lock_guard lock(mu_);
  waiting_.clear();
}

void Dispatcher::Issue(std::size_t i, std::optional<std::size_t> lane) {
  RequestSpec spec;
  spec.ordinal = i;
  spec.prompt = &prompts_[phase_.order[i]];
  spec.lane = lane;
  target_.Issue(spec, trackers_[i]);
}

// Open loop: runs on lane 0 at each arrival time, sends what is due and re-arms for the next.
void Dispatcher::Pace(std::size_t from) {
  const std::int64_t now = executor_.NowNs();
  const std::size_t n = records_.size();
  std::size_t i = from;
  std::vector<std::size_t> send_now;
  {
    std::lock_guard lock(mu_);
    if (stopped_.load()) return;
    while (i < n) {
      const std::int64_t due = start_ns_ + static_cast<std::int64_t>(phase_.offsets[i] * 1e9);
      if (due > now) break;
      if (stop_at_ns_ && due >= *stop_at_ns_) {
        i = n;
        break;
      }
      records_[i].intended_ns = due;
      if (phase_.concurrency && in_flight_ >= static_cast<std::size_t>(*phase_.concurrency)) {
        waiting_.push_back(i);
      } else {
        records_[i].opening_wave = all_due_at_start_;
        ++in_flight_;
        send_now.push_back(i);
      }
      ++i;
    }
    next_.store(i);
  }
  for (const std::size_t k : send_now) {
    Mine().sent.fetch_add(1, std::memory_order_relaxed);
    Issue(k, std::nullopt);
  }
  if (i < n) {
    const std::int64_t due = start_ns_ + static_cast<std::int64_t>(phase_.offsets[i] * 1e9);
    executor_.At(0, due, [this, pacer = pacer_, i] {
      std::lock_guard lock(pacer->mu);
      if (pacer->alive) Pace(i);
    });
  }
}

// On the request's lane: hand the slot to the next request at once (it was due the moment this
// one ended), before this one's record is closed.
void Dispatcher::OnFreed(std::size_t ordinal, std::int64_t done_ns) {
  const std::size_t n = records_.size();
  if (phase_.offsets.empty()) {
    if (Stopped()) return;
    const std::size_t i = next_.fetch_add(1);
    if (i >= n) return;
    records_[i].intended_ns = done_ns;
    records_[i].freed_by = records_[ordinal].index;
    Mine().sent.fetch_add(1, std::memory_order_relaxed);
    Issue(i, executor_.CurrentLane());
    return;
  }
  std::optional<std::size_t> next;
  {
    std::lock_guard lock(mu_);
    --in_flight_;
    if (!stopped_.load() && !waiting_.empty()) {
      next = waiting_.front();
      waiting_.pop_front();
      // A paced request that waited for a slot was due when it arrived or when the slot freed.
      metrics::RequestRecord& r = records_[*next];
      if (!r.intended_ns || *r.intended_ns < done_ns) {
        r.intended_ns = done_ns;
        r.freed_by = records_[ordinal].index;
      }
      ++in_flight_;
    }
  }
  if (next) {
    Mine().sent.fetch_add(1, std::memory_order_relaxed);
    Issue(*next, executor_.CurrentLane());
  }
}

void Dispatcher::OnClosed(std::size_t ordinal) {
  const metrics::RequestRecord& r = records_[ordinal];
  LaneCounters& c = Mine();
  if (!r.success) c.failed.fetch_add(1, std::memory_order_relaxed);
  if (r.server_output_tokens) c.output_tokens.fetch_add(*r.server_output_tokens, std::memory_order_relaxed);
  // Last, and with release order: a reader that sees this count sees the record complete.
  c.finished.fetch_add(1, std::memory_order_release);
}

template <typename T>
T Dispatcher::Sum(std::atomic<T> LaneCounters::*counter, std::memory_order order) const {
  T n = 0;
  for (const auto& c : counters_) n += (c.*counter).load(order);
  return n;
}

std::size_t Dispatcher::Sent() const {
  return Sum(&LaneCounters::sent, std::memory_order_acquire);
}

std::size_t Dispatcher::Finished() const {
  return Sum(&LaneCounters::finished, std::memory_order_acquire);
}

std::size_t Dispatcher::Failed() const {
  return Sum(&LaneCounters::failed, std::memory_order_relaxed);
}

std::int64_t Dispatcher::OutputTokens() const {
  return Sum(&LaneCounters::output_tokens, std::memory_order_relaxed);
}

bool Dispatcher::Done() const {
  // Finished before sent: every request counted finished was counted sent earlier, and a request
  // that frees a slot counts its successor sent before itself finished, so equal sums mean
  // nothing is in flight (and nothing is about to be sent by a request that just ended).
  const std::size_t finished = Finished();
  const std::size_t sent = Sent();
  if (finished != sent) return false;
  if (stopped_.load()) return true;
  const bool all_issued = next_.load() >= records_.size();
  if (phase_.offsets.empty()) return all_issued || Stopped();
  std::lock_guard lock(mu_);
  return (all_issued || Stopped()) && waiting_.empty();
}

std::vector<metrics::RequestRecord> Dispatcher::TakeSentRecords() {
  std::vector<metrics::RequestRecord> out;
  for (auto& r : records_) {
    if (r.sent_ns || r.done_ns) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace infermark::loadgen
