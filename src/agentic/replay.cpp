#include "agentic/replay.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_set>

#include "agentic/session_tree.hpp"
#include "core/diagnostic.hpp"
#include "core/internal_error.hpp"
#include "core/split_mix.hpp"
#include "loadgen/request_tracker.hpp"

namespace infermark::agentic {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kPrepareAheadNs = 2'000'000;  // calls due later than this are made ahead

std::int64_t Ns(double s) {
  return static_cast<std::int64_t>(std::llround(s * 1e9));
}

// The server refused the request as longer than its context (vLLM, SGLang and the built-in
// engine answer 400 with the limit named).
bool IsOverflow(const metrics::RequestRecord& r) {
  if (r.http_status != 400) return false;
  const std::string& e = r.error;
  return e.find("context") != std::string::npos || e.find("max_model_len") != std::string::npos ||
         e.find("too long") != std::string::npos || e.find("maximum") != std::string::npos;
}

std::string Hex12(std::uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(12, '0');
  for (int i = 11; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kDigits[v & 15];
  return s;
}

enum class SubState : std::uint8_t { kPending, kRunning, kDone, kSkipped };

// A call made ready before it is due: its prompt, body and block identities.
struct Prepared {
  std::uint32_t call = 0;
  loadgen::Prompt prompt;
  std::string body;
};

struct Chain {
  int sub = -1;                     // -1: the parent
  std::uint32_t next = 0;           // the next call to send
  std::optional<std::uint32_t> at;  // the call the conversation holds
  std::optional<Conversation> conversation;
  bool done = false;
  bool scheduled = false;  // a timer or a request of this chain is pending
  std::optional<Prepared> prepared;
  std::shared_ptr<const std::vector<std::uint64_t>> last_blocks;  // the previous sent call's identities
};

struct Play {
  std::uint32_t lane = 0;
  std::uint32_t trace = 0;
  std::uint32_t pass = 0;
  std::uint64_t key = 0;
  std::string tag;
  std::int64_t tag_tokens = 0;
  SessionTree tree;
  Chain parent;
  std::vector<Chain> subs;
  std::vector<SubState> sub_state;
  std::vector<std::int64_t> sub_done_ns;
  std::int64_t parent_done_ns = 0;
  std::unordered_set<std::uint64_t> seen;  // chained block identities sent in this play
  int outstanding = 0;                     // timers and requests pending
  bool warming = false;
  std::uint32_t warm_next = 0;  // next warm-up call (parent index)
  std::uint32_t start = 0;      // first profiled parent call
};

struct Timer {
  std::int64_t due = 0;  // stored: real due + the shift in force when it was set
  std::uint64_t seq = 0;
  Play* play = nullptr;
  int sub = -1;
  bool opening = false;  // a lane's start turn, due as profiling opens (the opening wave)
  bool operator>(const Timer& o) const { return due != o.due ? due > o.due : seq > o.seq; }
};

class Replayer final : public loadgen::RequestListener {
 public:
  Replayer(const TraceCorpus& corpus, const ReplayOptions& options, const FillerText* text, loadgen::Target& target,
           loadgen::Executor& executor)
      : corpus_(corpus), options_(options), text_(text), target_(target), executor_(executor) {}

  ReplayRun Run();

  void OnFreed(std::size_t /*slot*/, std::int64_t /*done_ns*/) override {}
  void OnClosed(std::size_t slot) override {
    executor_.Post(0, [this, slot] { Closed(slot); });
  }

 private:
  enum class Phase { kWarmup, kProfiling, kDraining, kFinished };

  std::int64_t Cap(double gap_s) const {
    const double capped = options_.trace_idle_gap_cap_s > 0 ? std::min(gap_s, options_.trace_idle_gap_cap_s) : gap_s;
    return Ns(capped);
  }
  const Trace& TraceOf(const Play& p) const { return corpus_.traces[p.trace]; }
  const TraceCall& CallOf(const Play& p, int sub, std::uint32_t i) const {
    return sub < 0 ? TraceOf(p).calls[i] : TraceOf(p).subagents[static_cast<std::size_t>(sub)].calls[i];
  }
  Chain& ChainOf(Play& p, int sub) { return sub < 0 ? p.parent : p.subs[static_cast<std::size_t>(sub)]; }

  Play* StartPlay(std::uint32_t lane, std::uint32_t pass, bool initial);
  void Schedule(Play& p, int sub, std::int64_t due);
  void Arm();
  void OnTimer();
  void Fire(const Timer& t);
  Prepared Prepare(Play& p, int sub, std::uint32_t call, bool warmup);
  void Send(Play& p, int sub, std::uint32_t call, bool warmup, std::int64_t intended);
  void Closed(std::size_t slot);
  void AfterCall(Play& p, int sub, const ReplayRequest& r, std::int64_t done);
  void TryParent(Play& p, std::int64_t now);
  void Spawn(Play& p, std::uint32_t s, std::int64_t from);
  void MaybeEndPlay(Play& p);
  void OpenProfiling();
  void EndDuration();
  void Cancel(const std::string& why);
  void IdleGuard();
  void CheckFinished();

  const TraceCorpus& corpus_;
  const ReplayOptions& options_;
  const FillerText* text_;
  loadgen::Target& target_;
  loadgen::Executor& executor_;
  ReplayRun run_;
  Phase phase_ = Phase::kWarmup;
  std::vector<std::uint32_t> order_;  // usable traces in play order
  std::size_t next_trace_ = 0;
  std::uint64_t rng_ = 0;
  std::vector<std::unique_ptr<Play>> plays_;  // by lane
  std::vector<std::unique_ptr<Play>> retired_;
  std::size_t warm_lanes_ = 0;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t timer_seq_ = 0;
  std::int64_t shift_ = 0;
  std::int64_t armed_ = kNever;
  std::vector<std::optional<loadgen::RequestTracker>> trackers_;  // by slot
  std::vector<std::size_t> slot_request_;
  std::vector<Play*> slot_play_;
  std::vector<std::size_t> free_slots_;
  std::size_t in_flight_ = 0;
  std::size_t profiled_done_ = 0;
  std::size_t profiled_errors_ = 0;
  std::int64_t warmup_deadline_ = kNever;
  std::int64_t grace_deadline_ = kNever;
  bool finished_ = false;
};

Play* Replayer::StartPlay(std::uint32_t lane, std::uint32_t pass, bool initial) {
  auto play = std::make_unique<Play>();
  Play& p = *play;
  p.lane = lane;
  p.pass = pass;
  p.trace = order_[next_trace_++ % order_.size()];
  p.key = SplitMix64(options_.run_id ^ SplitMix64((std::uint64_t{pass} << 32) ^ lane) ^
                     SplitMix64(std::uint64_t{p.trace} + 0x1234567ULL));
  p.tag = "[rid:" + Hex12(p.key) + "]";
  p.tag_tokens = text_ != nullptr ? text_->CountTokens(p.tag) : 8;
  const Trace& trace = TraceOf(p);
  p.tree = BuildSessionTree(trace);
  p.subs.resize(trace.subagents.size());
  for (std::size_t s = 0; s < p.subs.size(); ++s) p.subs[s].sub = static_cast<int>(s);
  p.sub_state.assign(trace.subagents.size(), SubState::kPending);
  p.sub_done_ns.assign(trace.subagents.size(), 0);
  ++run_.plays_started;
  if (initial) {
    // A random start turn; the turns before it are history, the last ones re-sent as warm-up.
    rng_ = SplitMix64(rng_);
    const double u = static_cast<double>(rng_ >> 11) * 0x1.0p-53;
    const double ratio = options_.start_min_ratio + u * (options_.start_max_ratio - options_.start_min_ratio);
    const auto n = static_cast<std::uint32_t>(trace.calls.size());
    p.start = std::min<std::uint32_t>(static_cast<std::uint32_t>(std::floor(ratio * n)), n - 1);
    for (std::size_t s = 0; s < p.subs.size(); ++s) {
      if (p.tree.subagents[s].anchor < static_cast<int>(p.start)) p.sub_state[s] = SubState::kSkipped;
    }
    if (p.start > 0) {
      p.warming = true;
      const std::uint32_t extra = static_cast<std::uint32_t>(std::max(0, options_.warmup_requests_per_lane));
      p.warm_next = p.start - 1 - std::min(p.start - 1, extra);
    }
  }
  p.parent.next = p.start;
  Play* raw = play.get();
  if (plays_[lane]) {
    // A finished play is still on the stack of the call that ended it: kept, its history freed.
    Play& old = *plays_[lane];
    old.seen = {};
    old.parent.conversation.reset();
    for (Chain& c : old.subs) c.conversation.reset();
    retired_.push_back(std::move(plays_[lane]));
  }
  plays_[lane] = std::move(play);
  return raw;
}

void Replayer::Schedule(Play& p, int sub, std::int64_t due) {
  Chain& c = ChainOf(p, sub);
  c.scheduled = true;
  // A call due later is made now, so that when it is due only its bytes are written.
  if (due - executor_.NowNs() > kPrepareAheadNs) c.prepared = Prepare(p, sub, c.next, false);
  ++p.outstanding;
  timers_.push(Timer{due + shift_, timer_seq_++, &p, sub});
  Arm();
}

void Replayer::Arm() {
  if (timers_.empty()) return;
  const std::int64_t due = timers_.top().due - shift_;
  if (due >= armed_) return;
  armed_ = due;
  executor_.At(0, due, [this] { OnTimer(); });
}

void Replayer::OnTimer() {
  armed_ = kNever;
  const std::int64_t now = executor_.NowNs();
  while (!timers_.empty() && timers_.top().due - shift_ <= now) {
    const Timer t = timers_.top();
    timers_.pop();
    Fire(t);
  }
  Arm();
  IdleGuard();
}

void Replayer::Fire(const Timer& t) {
  Play& p = *t.play;
  --p.outstanding;
  Chain& c = ChainOf(p, t.sub);
  c.scheduled = false;
  if (phase_ == Phase::kDraining || phase_ == Phase::kFinished) return;
  Send(p, t.sub, c.next, false, t.due - shift_);
  if (t.opening) run_.requests.back().record.opening_wave = true;
}

Prepared Replayer::Prepare(Play& p, int sub, std::uint32_t call_index, bool warmup) {
  const Trace& trace = TraceOf(p);
  Chain& chain = ChainOf(p, sub);
  // The conversation moves call by call up to this one (history that was never sent included).
  if (!chain.conversation) chain.conversation.emplace(p.tag, p.tag_tokens, SplitMix64(p.key ^ 0xabcdefULL ^ p.trace));
  const std::uint32_t from = chain.at ? *chain.at + 1 : 0;
  for (std::uint32_t i = from; i <= call_index; ++i) {
    const TraceCall& call = CallOf(p, sub, i);
    const TraceCall* prev = i > 0 ? &CallOf(p, sub, i - 1) : nullptr;
    const std::uint64_t answer_key = SplitMix64(p.key ^ (std::uint64_t{i} << 8) ^ static_cast<std::uint64_t>(sub + 1));
    chain.conversation->Advance(call, corpus_.Hashes(call), prev,
                                prev != nullptr ? corpus_.Hashes(*prev) : std::span<const std::uint32_t>{}, answer_key);
  }
  chain.at = call_index;
  const TraceCall& call = CallOf(p, sub, call_index);
  Prepared ready;
  ready.call = call_index;
  ready.prompt.prompt_len = call.in;
  ready.prompt.output_len = warmup ? 1 : std::max<std::int64_t>(call.out, 1);
  ready.prompt.prefix_blocks = std::make_shared<std::vector<std::uint64_t>>(ChainBlocks(p.key, corpus_.Hashes(call)));
  ready.prompt.prefix_block_tokens = trace.block_size;
  if (options_.build_text && text_ != nullptr) {
    // The target frames a one-byte stand-in; the conversation is written straight into that
    // frame, so a megabyte of history is copied once.
    ready.prompt.messages_json = "\x01";
    const std::string frame = target_.BuildBody(ready.prompt);
    const std::size_t hole = frame.find('\x01');
    ready.prompt.messages_json.clear();
    if (hole == std::string::npos) {
      chain.conversation->WriteMessages(ready.prompt.messages_json, *text_);
    } else {
      ready.body.reserve(frame.size() + static_cast<std::size_t>(call.in) * 7 + 4096);
      ready.body.append(frame, 0, hole);
      chain.conversation->WriteMessages(ready.body, *text_);
      ready.body.append(frame, hole + 1, std::string::npos);
    }
  }
  return ready;
}

void Replayer::Send(Play& p, int sub, std::uint32_t call_index, bool warmup, std::int64_t intended) {
  const Trace& trace = TraceOf(p);
  Chain& chain = ChainOf(p, sub);
  chain.scheduled = true;
  Prepared ready = chain.prepared && chain.prepared->call == call_index && !warmup
                       ? std::move(*chain.prepared)
                       : Prepare(p, sub, call_index, warmup);
  chain.prepared.reset();
  const TraceCall& call = CallOf(p, sub, call_index);
  // The theoretical hit: leading blocks this play has sent before (counted as it goes out).
  const std::vector<std::uint64_t>& blocks = *ready.prompt.prefix_blocks;
  std::size_t hit = 0;
  // What the chain's previous call sent is known to be there: only the rest is looked up.
  if (chain.last_blocks) {
    const std::vector<std::uint64_t>& last = *chain.last_blocks;
    while (hit < blocks.size() && hit < last.size() && blocks[hit] == last[hit]) ++hit;
  }
  while (hit < blocks.size() && p.seen.count(blocks[hit]) != 0) ++hit;
  chain.last_blocks = ready.prompt.prefix_blocks;
  for (std::size_t k = hit; k < blocks.size(); ++k) p.seen.insert(blocks[k]);

  // A tree holds at most its parent and every subagent in flight, so the slots cannot run out.
  INFERMARK_CHECK(!free_slots_.empty(), "the replay ran out of request slots");
  const std::size_t slot = free_slots_.back();
  free_slots_.pop_back();
  ReplayRequest& r = run_.requests.emplace_back();
  r.trace = p.trace;
  r.subagent = sub;
  r.turn = call_index;
  r.pass = p.pass;
  r.lane = p.lane;
  r.warmup = warmup;
  r.input_tokens = call.in;
  r.expected_output = ready.prompt.output_len;
  r.theoretical_hit_tokens = std::min<std::int64_t>(static_cast<std::int64_t>(hit) * trace.block_size, call.in);
  r.record.index = run_.requests.size() - 1;
  r.record.intended_ns = intended;
  r.record.prompt_tokens = call.in;
  r.record.expected_output_tokens = r.expected_output;
  slot_request_[slot] = run_.requests.size() - 1;
  slot_play_[slot] = &p;
  trackers_[slot].emplace(r.record, *this, slot, false);
  ++p.outstanding;
  ++in_flight_;
  run_.max_in_flight = std::max(run_.max_in_flight, in_flight_);

  loadgen::RequestSpec spec;
  spec.ordinal = slot;
  spec.prompt = &ready.prompt;
  spec.lane = 0;
  spec.body = ready.body.empty() ? nullptr : &ready.body;
  target_.Issue(spec, *trackers_[slot]);
}

void Replayer::Closed(std::size_t slot) {
  const std::size_t index = slot_request_[slot];
  Play& p = *slot_play_[slot];
  trackers_[slot].reset();
  free_slots_.push_back(slot);
  --in_flight_;
  --p.outstanding;
  ReplayRequest& r = run_.requests[index];
  const std::int64_t done = r.record.done_ns.value_or(executor_.NowNs());
  r.overflow = !r.record.success && IsOverflow(r.record);
  r.cut = !r.record.success && r.record.error_kind == "cancelled" && phase_ != Phase::kWarmup &&
          phase_ != Phase::kProfiling;
  if (r.warmup) {
    if (!r.record.success && !r.cut) Cancel("a warm-up request failed: " + r.record.error);
  } else if (!r.cut) {
    run_.window_close_ns = std::max(run_.window_close_ns, done);
    ++profiled_done_;
    if (!r.record.success) ++profiled_errors_;
    if (profiled_done_ >= 20 && static_cast<double>(profiled_errors_) >
                                    options_.failed_request_threshold * static_cast<double>(profiled_done_)) {
      Cancel("more than " + std::to_string(options_.failed_request_threshold * 100) +
             "% of requests failed (--failed-request-threshold)");
    }
  }
  if (phase_ == Phase::kWarmup || phase_ == Phase::kProfiling) {
    AfterCall(p, r.subagent, r, done);
  } else {
    ChainOf(p, r.subagent).scheduled = false;
  }
  CheckFinished();
  IdleGuard();
}

void Replayer::AfterCall(Play& p, int sub, const ReplayRequest& r, std::int64_t done) {
  Chain& c = ChainOf(p, sub);
  c.scheduled = false;
  if (r.warmup) {
    ++p.warm_next;
    if (p.warm_next < p.start) {
      Send(p, -1, p.warm_next, true, done);
    } else {
      p.warming = false;
      p.parent_done_ns = done;
      // Its start turn is made now, while other lanes still warm up: when profiling opens every
      // lane's first call goes out at once, and each then only writes its bytes.
      p.parent.prepared = Prepare(p, -1, p.start, false);
      if (++warm_lanes_ == plays_.size()) OpenProfiling();
    }
    return;
  }
  if (r.overflow) {
    ++run_.sessions_ended_by_overflow;
    c.done = true;
  }
  const Trace& trace = TraceOf(p);
  if (sub < 0) {
    p.parent_done_ns = done;
    for (const std::uint32_t s : p.tree.spawns[r.turn]) {
      if (p.sub_state[s] == SubState::kPending) Spawn(p, s, done);
    }
    c.next = r.turn + 1;
    if (c.next >= trace.calls.size()) c.done = true;
    TryParent(p, done);
  } else {
    const auto s = static_cast<std::size_t>(sub);
    c.next = r.turn + 1;
    if (c.done || c.next >= trace.subagents[s].calls.size()) {
      c.done = true;
      p.sub_state[s] = SubState::kDone;
      p.sub_done_ns[s] = done;
      TryParent(p, done);
    } else {
      Schedule(p, sub, done + Cap(p.tree.subagents[s].gaps[c.next]));
    }
  }
  MaybeEndPlay(p);
}

void Replayer::Spawn(Play& p, std::uint32_t s, std::int64_t from) {
  p.sub_state[s] = SubState::kRunning;
  if (TraceOf(p).subagents[s].calls.empty()) {
    p.sub_state[s] = SubState::kDone;
    p.sub_done_ns[s] = from;
    return;
  }
  Schedule(p, static_cast<int>(s), from + Cap(p.tree.subagents[s].spawn_gap_s));
}

void Replayer::TryParent(Play& p, std::int64_t now) {
  Chain& c = p.parent;
  if (c.done || c.scheduled || p.warming) return;
  const std::uint32_t j = c.next;
  std::int64_t due = p.parent_done_ns + Cap(p.tree.parent_gaps[j]);
  for (const std::uint32_t s : p.tree.joins[j]) {
    const SubState st = p.sub_state[s];
    if (st == SubState::kSkipped) continue;
    if (st != SubState::kDone) return;
    due = std::max(due, p.sub_done_ns[s] + Cap(p.tree.subagents[s].join_gap_s));
  }
  Schedule(p, -1, std::max(due, now));
}

void Replayer::MaybeEndPlay(Play& p) {
  if (p.outstanding > 0 || p.warming) return;
  ++run_.plays_completed;
  if (phase_ != Phase::kProfiling) return;
  Play* next = StartPlay(p.lane, p.pass + 1, false);  // retires p
  const std::int64_t now = executor_.NowNs();
  next->parent_done_ns = now;
  for (const std::uint32_t s : next->tree.initial_spawns) Spawn(*next, s, now);
  TryParent(*next, now);
}

void Replayer::OpenProfiling() {
  phase_ = Phase::kProfiling;
  const std::int64_t now = executor_.NowNs();
  run_.window_open_ns = now;
  run_.window_close_ns = now;
  run_.duration_end_ns = now + Ns(options_.duration_s);
  target_.OpenWindow();
  executor_.At(0, run_.duration_end_ns, [this] { EndDuration(); });
  for (auto& play : plays_) {
    Play& p = *play;
    if (p.start == 0) {
      p.parent_done_ns = now;
      for (const std::uint32_t s : p.tree.initial_spawns) Spawn(p, s, now);
      TryParent(p, now);
    } else {
      // The start turn goes out as profiling opens: its gap was spent before the warm-up.
      p.parent.scheduled = true;
      ++p.outstanding;
      timers_.push(Timer{now + shift_, timer_seq_++, &p, -1, true});
      Arm();
    }
  }
}

void Replayer::EndDuration() {
  if (phase_ != Phase::kProfiling) return;
  phase_ = Phase::kDraining;
  while (!timers_.empty()) {
    --timers_.top().play->outstanding;
    timers_.pop();
  }
  grace_deadline_ = executor_.NowNs() + Ns(options_.grace_s);
  executor_.At(0, grace_deadline_, [this] {
    if (!finished_ && in_flight_ > 0) target_.CancelAll("the benchmark duration and its grace period ended");
  });
  CheckFinished();
}

void Replayer::Cancel(const std::string& why) {
  if (run_.cancelled || phase_ == Phase::kFinished) return;
  run_.cancelled = true;
  run_.cancel_reason = why;
  if (phase_ == Phase::kWarmup || run_.duration_end_ns == 0) run_.duration_end_ns = executor_.NowNs();
  phase_ = Phase::kDraining;
  while (!timers_.empty()) {
    --timers_.top().play->outstanding;
    timers_.pop();
  }
  if (in_flight_ > 0) target_.CancelAll(why);
  CheckFinished();
}

void Replayer::IdleGuard() {
  if (options_.system_idle_gap_cap_s <= 0 || in_flight_ > 0 || timers_.empty() || phase_ != Phase::kProfiling) return;
  const std::int64_t now = executor_.NowNs();
  const std::int64_t wait = timers_.top().due - shift_ - now;
  const std::int64_t cap = Ns(options_.system_idle_gap_cap_s);
  if (wait <= cap) return;
  shift_ += wait - cap;
  ++run_.idle_shifts;
  run_.idle_shifted_s += static_cast<double>(wait - cap) / 1e9;
  armed_ = kNever;  // the armed timer is later than the new top; a fresh one goes in
  Arm();
}

void Replayer::CheckFinished() {
  if (phase_ == Phase::kDraining && in_flight_ == 0) {
    phase_ = Phase::kFinished;
    finished_ = true;
  }
}

ReplayRun Replayer::Run() {
  for (std::uint32_t i = 0; i < corpus_.traces.size(); ++i) {
    if (!corpus_.traces[i].calls.empty()) order_.push_back(i);
  }
  if (order_.empty())
    throw InputError(Diagnostic{SourceMark{corpus_.origin, 0, 0}, "", "", "holds no trace with a call"});
  rng_ = SplitMix64(options_.seed);
  for (std::size_t i = order_.size(); i > 1; --i) {
    rng_ = SplitMix64(rng_);
    std::swap(order_[i - 1], order_[rng_ % i]);
  }
  std::size_t most_subagents = 0;
  for (const std::uint32_t t : order_) most_subagents = std::max(most_subagents, corpus_.traces[t].subagents.size());
  const std::size_t slots = options_.concurrency * (most_subagents + 1);
  trackers_.resize(slots);
  slot_request_.resize(slots);
  slot_play_.resize(slots);
  for (std::size_t s = slots; s > 0; --s) free_slots_.push_back(s - 1);
  target_.PrepareOpenPhase(slots);

  plays_.resize(options_.concurrency);
  executor_.Post(0, [this] {
    for (std::uint32_t lane = 0; lane < options_.concurrency; ++lane) StartPlay(lane, 0, true);
    warmup_deadline_ = executor_.NowNs() + Ns(options_.warmup_grace_s);
    executor_.At(0, warmup_deadline_, [this] {
      if (phase_ == Phase::kWarmup) Cancel("the warm-up did not drain within --warmup-grace-period");
    });
    for (auto& play : plays_) {
      if (play->warming) {
        Send(*play, -1, play->warm_next, true, executor_.NowNs());
      } else if (++warm_lanes_ == plays_.size()) {
        OpenProfiling();
      }
    }
  });
  executor_.RunUntil([this] { return finished_; },
                     [this] {
                       if (options_.stop != nullptr && options_.stop->load()) {
                         executor_.Post(0, [this] { Cancel("stopped by a signal (partial results)"); });
                       }
                       if (options_.tick) options_.tick();
                     });
  target_.CloseWindow();
  return std::move(run_);
}

}  // namespace

ReplayRun Replay(const TraceCorpus& corpus, const ReplayOptions& options, const FillerText* text,
                 loadgen::Target& target, loadgen::Executor& executor) {
  Replayer replayer(corpus, options, text, target, executor);
  return replayer.Run();
}

std::string ConversationId(const TraceCorpus& corpus, const ReplayRequest& request) {
  const Trace& t = corpus.traces[request.trace];
  if (request.subagent < 0) return t.id;
  return t.id + "::sa:" + t.subagents[static_cast<std::size_t>(request.subagent)].agent_id;
}

}  // namespace infermark::agentic
