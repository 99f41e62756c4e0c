#include "engine/realtime_engine.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "core/clock.hpp"
#include "engine/api_error.hpp"

namespace infermark::engine {
namespace {

constexpr std::int64_t kCatchUpNs = 5'000'000;     // a pass beginning this late (real) counts as caught up
constexpr std::int64_t kMaxSpeedTurnNs = 500'000;  // max speed: a turn yields to the loop after this
constexpr int kMaxSpeedStepsPerTurn = 64;          // … or after this many passes
constexpr auto kDrainPoll = std::chrono::microseconds(200);
constexpr std::int64_t kMaxLeadNs = 400'000;    // no lead (wake-up and work, hand-off) beyond this
constexpr std::int64_t kLeadMarginNs = 20'000;  // the timer fires this much earlier still

void AppendInt(std::string& out, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

std::chrono::steady_clock::time_point AtNs(std::int64_t ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

}  // namespace

struct RealtimeEngine::Stream {
  std::uint64_t id = 0;
  std::string request_id;  // "cmpl-…" or "chatcmpl-…"
  std::string head;        // `data: {"id":…,"object":…,"created":…,"model":…,"choices":[`
  Endpoint endpoint = Endpoint::kCompletions;
  bool stream = false;
  bool include_usage = false;
  bool continuous_usage = false;
  bool pressured = false;
  bool remote_decode = false;   // prefill role: answer with the KV hand-off
  bool remote_prefill = false;  // decode role: the prompt's KV comes from a prefill worker
  bool submitted = false;       // the scheduler holds it
  bool queued = false;          // arrived, waiting in arrivals_ for the first pass that starts after it
  bool timing = false;          // its events carry the model's clock
  std::int64_t arrival_v = 0;   // when it entered the model (virtual)
  int prompt_tokens = 0;
  int max_tokens = 0;
  int output_tokens = 0;
  int reasoning_tokens = 0;
  int emitted = 0;
  std::uint64_t vocab_offset = 0;
  std::uint64_t created = 0;
  std::int64_t received_ns = 0;
  std::int64_t last_ns = 0;
  http::StreamWriter writer;
  http::Responder responder;
  std::shared_ptr<EmissionTrack> track;

  [[nodiscard]] bool Chat() const { return endpoint == Endpoint::kChat; }
  [[nodiscard]] const char* FinishReason() const { return output_tokens >= max_tokens ? "length" : "stop"; }
};

RealtimeEngine::RealtimeEngine(const perfmodel::SchedulerConfig& config, const perfmodel::StepTimeModel& model,
                               const tokenizer::WordVocabulary& vocabulary, http::EventLoops& loops,
                               RealtimeOptions options)
    : config_(config),
      model_(model),
      vocabulary_(vocabulary),
      loops_(loops),
      options_(std::move(options)),
      scheduler_(config_, model_),
      epoch_ns_(MonotonicNs()) {
  metrics_.sglang = options_.framework == "sglang";
}

RealtimeEngine::~RealtimeEngine() = default;

std::int64_t RealtimeEngine::VirtualNow() const {
  if (options_.time_scale <= 0) return last_end_v_;
  return VirtualAt(MonotonicNs());
}

std::int64_t RealtimeEngine::VirtualAt(std::int64_t real_ns) const {
  return static_cast<std::int64_t>(double(std::max<std::int64_t>(real_ns - epoch_ns_, 0)) * options_.time_scale);
}

RealtimeEngine::Stream* RealtimeEngine::Find(std::uint64_t id) {
  const std::size_t slot = id & 0xFFFFFFFFu;
  if (slot >= slots_.size() || !slots_[slot] || slots_[slot]->id != id) return nullptr;
  return slots_[slot].get();
}

void RealtimeEngine::Release(Stream* s) {
  const auto slot = static_cast<std::uint32_t>(s->id & 0xFFFFFFFFu);
  slots_[slot].reset();
  free_slots_.push_back(slot);
}

void RealtimeEngine::Admit(AdmittedRequest request) {
  if (shut_down_) {
    request.responder.Respond(503, "application/json",
                              ErrorBody(ApiError{503, "the server is shutting down", "server_error", "", ""}));
    return;
  }
  if (options_.max_waiting > 0 && std::int64_t(scheduler_.Waiting()) >= options_.max_waiting) {
    ++metrics_.rejected;
    http::Response r;
    r.status = 429;
    r.body = ErrorBody(ApiError{429,
                                "too many requests waiting for admission (" + std::to_string(scheduler_.Waiting()) +
                                    ", the bound is " + std::to_string(options_.max_waiting) + "); retry later",
                                "rate_limit_error", "", "queue_full"});
    r.headers.push_back({"Retry-After", "1"});
    request.responder.Respond(r);
    return;
  }
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  auto owned = std::make_unique<Stream>();
  Stream& s = *owned;
  const std::uint64_t serial = ++next_serial_;
  s.id = (serial << 32) | slot;
  s.endpoint = request.endpoint;
  s.stream = request.stream;
  s.include_usage = request.include_usage;
  s.continuous_usage = request.continuous_usage && request.include_usage;
  s.prompt_tokens = request.prompt_tokens;
  s.max_tokens = request.max_tokens;
  s.output_tokens = request.output_tokens;
  s.reasoning_tokens = request.reasoning_tokens;
  s.vocab_offset = serial * 7;
  s.created = request.created;
  s.received_ns = request.received_ns;
  s.remote_decode = request.remote_decode;
  s.timing = request.timing;
  // The request enters the model when its bytes arrived: parsing and tokenizing it is the host's
  // work, which a modelled GPU does not wait for (at max speed there is no clock to place it on).
  s.arrival_v = options_.time_scale > 0 && request.received_ns > 0 ? VirtualAt(request.received_ns) : VirtualNow();
  char hex[17];
  const auto end = std::to_chars(hex, hex + 16, serial, 16).ptr;
  s.request_id = std::string(s.Chat() ? "chatcmpl-" : "cmpl-") + std::string(hex, end);
  s.head = "data: {\"id\":\"" + s.request_id + "\",\"object\":\"" +
           (s.Chat() ? "chat.completion.chunk" : "text_completion") + "\",\"created\":" + std::to_string(s.created) +
           ",\"model\":" + options_.model_json + ",\"choices\":[";
  const std::size_t loop = options_.engine_loop;
  const std::uint64_t id = s.id;
  auto on_close = [this, loop, id] { loops_.Post(loop, [this, id] { Cancel(id); }); };
  if (s.stream) {
    s.writer = request.responder.StartStream(200, "text/event-stream", {{"Cache-Control", "no-cache"}});
    if (!s.writer.Open()) {
      free_slots_.push_back(slot);
      return;
    }
    s.writer.OnClose(on_close);
    if (options_.emission_log) {
      s.track = std::make_shared<EmissionTrack>(options_.emission_log, s.request_id, s.arrival_v);
    }
    // Each write's time: the emission log's, and the first and last after each release with their
    // count, which measure the hand-off to the connection loops and each write (PaceRelease).
    s.writer.OnWritten([track = s.track, writes = writes_](std::uint64_t events, std::int64_t ns) {
      if (track) track->Written(events, ns);
      std::int64_t none = 0;
      writes->first.compare_exchange_strong(none, ns, std::memory_order_relaxed);
      std::int64_t seen = writes->last.load(std::memory_order_relaxed);
      while (seen < ns && !writes->last.compare_exchange_weak(seen, ns, std::memory_order_relaxed)) {
      }
      writes->count.fetch_add(1, std::memory_order_relaxed);
    });
  } else {
    s.responder = std::move(request.responder);
    s.responder.OnClose(on_close);
  }
  if (request.kv_transfer_s >= 0) {
    // The prompt was computed elsewhere: its KV arrives after the modelled transfer (real time:
    // divided by the time scale, counted from the request's arrival).
    s.remote_prefill = true;
    metrics_.prompt_tokens += static_cast<std::uint64_t>(s.prompt_tokens);
    slots_[slot] = std::move(owned);
    const std::int64_t delay =
        options_.time_scale > 0 ? std::llround(request.kv_transfer_s * 1e9 / options_.time_scale) : 0;
    if (delay > 0) {
      loops_.RunAt(loop, AtNs(request.received_ns + delay), [this, id] { KvArrived(id); });
    } else {
      KvArrived(id);
    }
    return;
  }
  perfmodel::Request r;
  r.id = s.id;
  r.prompt_tokens = s.prompt_tokens;
  r.max_tokens = s.output_tokens;
  r.prefix_blocks = std::move(request.prefix_blocks);
  r.block_tokens = request.prefix_block_tokens;
  if (!scheduler_.Accepts(r.prompt_tokens, r.max_tokens)) {
    // Checked by the front end before admission; kept as an answer rather than a hang.
    const std::string body = ErrorBody(ApiError{400, "the request does not fit in the KV cache",
                                                "invalid_request_error", "max_tokens", "context_length_exceeded"});
    if (s.stream) {
      s.writer.Abort();
    } else {
      s.responder.Respond(400, "application/json", body);
    }
    free_slots_.push_back(slot);
    return;
  }
  s.queued = true;
  metrics_.prompt_tokens += static_cast<std::uint64_t>(s.prompt_tokens);
  const std::int64_t arrival_v = s.arrival_v;
  slots_[slot] = std::move(owned);
  Enqueue(r, arrival_v);
  Kick();
}

void RealtimeEngine::Enqueue(const perfmodel::Request& r, std::int64_t arrival_v) {
  // Preparation threads may hand requests over slightly out of their arrival order.
  auto at = arrivals_.end();
  while (at != arrivals_.begin() && std::prev(at)->at_v > arrival_v) --at;
  arrivals_.insert(at, Arrival{arrival_v, r});
}

void RealtimeEngine::SubmitArrived(std::int64_t start) {
  while (!arrivals_.empty() && arrivals_.front().at_v <= start) {
    Arrival a = std::move(arrivals_.front());
    arrivals_.pop_front();
    Stream* s = Find(a.request.id);
    if (s == nullptr) continue;  // cancelled while it waited
    s->queued = false;
    s->submitted = scheduler_.Submit(a.request, a.at_v);
    if (!s->submitted) {
      // Checked when it was admitted; kept as an answer rather than a hang.
      if (s->stream) {
        s->writer.Abort();
      } else {
        s->responder.Respond(400, "application/json",
                             ErrorBody(ApiError{400, "the request does not fit in the KV cache",
                                                "invalid_request_error", "max_tokens", "context_length_exceeded"}));
      }
      Release(s);
    }
  }
}

void RealtimeEngine::KvArrived(std::uint64_t id) {
  Stream* s = Find(id);
  if (s == nullptr || shut_down_) return;
  if (s->output_tokens <= 1) {
    // The prefill worker's token is the whole answer.
    now_ns_ = MonotonicNs();
    step_model_ns_ = VirtualNow();
    SendRemoteFirst(*s);
    return;
  }
  perfmodel::Request r;
  r.id = id;
  r.prompt_tokens = s->prompt_tokens;
  r.max_tokens = s->output_tokens - 1;  // the prefill worker sampled the first
  r.kv_present = true;
  if (!scheduler_.Accepts(r.prompt_tokens, r.max_tokens)) {
    // Checked by the front end before admission; kept as an answer rather than a hang.
    if (s->stream) {
      s->writer.Abort();
    } else {
      s->responder.Respond(400, "application/json",
                           ErrorBody(ApiError{400, "the request does not fit in the KV cache", "invalid_request_error",
                                              "max_tokens", "context_length_exceeded"}));
    }
    Release(s);
    return;
  }
  s->queued = true;
  s->arrival_v = VirtualNow();
  kv_received_tokens_ += static_cast<std::uint64_t>(s->prompt_tokens);
  remote_firsts_.push_back(id);
  Enqueue(r, s->arrival_v);
  Kick();
}

void RealtimeEngine::FlushRemoteFirsts(std::int64_t pass_start) {
  // The prefill worker's token leaves with the decode stream when the request's KV is admitted:
  // at the start of the first pass after its arrival, as the predicted disaggregated run sends it.
  if (remote_firsts_.empty()) return;
  now_ns_ = MonotonicNs();
  step_model_ns_ = pass_start;
  for (const std::uint64_t id : remote_firsts_)
    if (Stream* s = Find(id)) SendRemoteFirst(*s);
  remote_firsts_.clear();
}

void RealtimeEngine::SendRemoteFirst(Stream& s) {
  s.emitted = 1;
  ++metrics_.generation_tokens;
  metrics_.ttft.Observe(double(now_ns_ - s.received_ns) * 1e-9);
  s.last_ns = now_ns_;
  const bool finished = s.output_tokens <= 1;
  if (s.stream) {
    if (s.Chat()) SendRoleChunk(s);
    SendTokens(s, 0, 1, finished);
  }
  if (finished) Finish(s);
}

void RealtimeEngine::Cancel(std::uint64_t id) {
  Stream* s = Find(id);
  if (!s) return;
  ++metrics_.aborted;
  if (s->submitted) aborts_.push_back(id);
  if (s->queued) {
    std::erase_if(arrivals_, [id](const Arrival& a) { return a.request.id == id; });
  }
  Release(s);
  Kick();
}

void RealtimeEngine::Kick() {
  if (busy_ || shut_down_) return;
  busy_ = true;
  loops_.Post(options_.engine_loop, [this] { Turn(); });
}

void RealtimeEngine::Turn() {
  if (options_.hold_output) options_.hold_output();
  released_ = false;
  struct Release {
    RealtimeEngine& engine;
    ~Release() { engine.ReleaseOutput(); }
  } release{*this};
  TurnHeld();
}

void RealtimeEngine::ReleaseOutput() {
  if (released_) return;
  released_ = true;
  released_at_ns_ = MonotonicNs();
  writes_->first.store(0, std::memory_order_relaxed);
  writes_->last.store(0, std::memory_order_relaxed);
  writes_->count.store(0, std::memory_order_relaxed);
  if (options_.release_output) options_.release_output();
}

void RealtimeEngine::PaceRelease(std::int64_t woke_ns) {
  // The tokens of the pass just completed leave when the modelled GPU produced them: the timer
  // fired early by the host's measured wake-up and work, and the output, rendered and held, is let
  // go one measured hand-off before the pass's modelled end (the connection loops' wake-up and
  // write), so that it is written at that end rather than a wake-up or two after it.
  const std::int64_t done = MonotonicNs();
  // How late the timer fired, and how long completing the pass took: a decode pass costs about the
  // same each time, a pass that took in prompt tokens in proportion to them (KV bookkeeping, the
  // requests' first tokens), so the latter is estimated per prompt token.
  wake_ns_ = Track(wake_ns_, woke_ns - timer_target_ns_, true);
  if (pass_prompt_tokens_ > 0) {
    prompt_work_ps_ = Track(prompt_work_ps_, (done - woke_ns) * 1000 / pass_prompt_tokens_, true, 20);
  } else {
    decode_work_ns_ = Track(decode_work_ns_, done - woke_ns, true);
  }
  // The pass's first tokens are written first, one after another: centred on the pass's end, so
  // that the TTFT of the requests it starts is neither early nor late on the whole.
  const std::int64_t target =
      due_ns_ - write_lead_ns_ - std::max<std::int64_t>(firsts_in_pass_ - 1, 0) * per_write_ns_ / 2;
  if (emitted_in_pass_) {
    while (MonotonicNs() < target) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
  }
  ReleaseOutput();
  // How late this pass's output went out against its modelled end (the expected write time is the
  // release plus the hand-off): a loop that fires late and an engine whose own work takes long both
  // mean that the host, not the modelled GPU, sets the figures. Clients read it from /metrics.
  const double late = double(std::max<std::int64_t>(released_at_ns_ + write_lead_ns_ - due_ns_, 0)) * 1e-9;
  metrics_.step_lateness.Observe(late);
  metrics_.step_lateness_max = std::max(metrics_.step_lateness_max, late);
}

std::int64_t RealtimeEngine::Track(std::int64_t estimate, std::int64_t sample, bool tail, std::int64_t step) {
  // A streaming quantile (stochastic approximation): a fixed step up when the sample is above the
  // estimate, a smaller one down otherwise, so the estimate settles where the sample is above it
  // one time in ten (tail) or two (median). A stall moves it by one step, not by the stall: a lead
  // that followed stalls would make the engine spin most of each pass and starve its own threads.
  const std::int64_t up = tail ? 9 * step : step;
  return std::clamp<std::int64_t>(sample > estimate ? estimate + up : estimate - step, 0, kMaxLeadNs);
}

void RealtimeEngine::TurnHeld() {
  if (shut_down_) {
    busy_ = false;
    return;
  }
  if (in_flight_) {
    in_flight_ = false;
    // The hand-off of the last release: from letting the output go to its first write; and what
    // each further write of a pass costs (one connection loop writes them one after another).
    const WriteTimes& w = *writes_;
    if (const std::int64_t first = w.first.load(std::memory_order_relaxed);
        first > released_at_ns_ && released_at_ns_ > 0) {
      write_lead_ns_ = Track(write_lead_ns_, first - released_at_ns_, false);
      const std::int64_t n = w.count.load(std::memory_order_relaxed);
      if (n > 1) {
        per_write_ns_ = Track(per_write_ns_, (w.last.load(std::memory_order_relaxed) - first) / (n - 1), false, 200);
      }
    }
    const std::int64_t woke = MonotonicNs();
    now_ns_ = std::max(woke, due_ns_);
    step_model_ns_ = last_end_v_;
    emitted_in_pass_ = false;
    firsts_in_pass_ = 0;
    // A connection loop writes a pass's streams one after another, in the order their output was
    // queued: the requests' first tokens (their TTFT) go first, the other streams' tokens after.
    defer_later_tokens_ = options_.time_scale > 0;
    scheduler_.Complete(*this);
    defer_later_tokens_ = false;
    for (const perfmodel::TokenEvent& e : deferred_) OnChunk(e);
    deferred_.clear();
    if (options_.time_scale > 0) PaceRelease(woke);
  }
  if (!aborts_.empty()) {
    scheduler_.Abort(aborts_);
    aborts_.clear();
  }
  if (options_.time_scale <= 0) {
    MaxSpeedTurn();
    return;
  }
  // The next pass begins where the last ended on the modelled timeline, however late the host got
  // there: a late pass's tokens have just gone out late, and the passes due meanwhile follow at
  // once. An idle engine begins with the first request waiting, at its arrival.
  const std::int64_t vnow = VirtualNow();
  std::int64_t start = continuous_         ? last_end_v_
                       : arrivals_.empty() ? vnow
                                           : std::max(last_end_v_, arrivals_.front().at_v);
  if (continuous_) {
    const std::int64_t late_v = vnow - start;
    if (double(late_v) > double(kCatchUpNs) * options_.time_scale) {
      ++metrics_.clock_slips;
      metrics_.clock_slip_seconds += double(late_v) / options_.time_scale * 1e-9;
    }
  }
  SubmitArrived(start);
  perfmodel::StepPlan plan = scheduler_.Plan(start, 1);
  if (plan.idle && !arrivals_.empty()) {
    // Nothing had arrived by then: the modelled GPU idles until the next arrival.
    start = std::max(start, arrivals_.front().at_v);
    SubmitArrived(start);
    plan = scheduler_.Plan(start, 1);
  }
  FlushRemoteFirsts(plan.idle ? start : plan.start);
  if (plan.idle) {
    busy_ = false;
    continuous_ = false;
    return;
  }
  in_flight_ = true;
  continuous_ = true;
  last_end_v_ = plan.start + plan.duration;
  due_ns_ = epoch_ns_ + static_cast<std::int64_t>(double(last_end_v_) / options_.time_scale);
  // Early by the hand-off and the host's wake-up and work, so that the tokens can leave on time.
  pass_prompt_tokens_ = static_cast<std::int64_t>(plan.shape.prefill_tokens);
  const std::int64_t work =
      pass_prompt_tokens_ > 0 ? std::min(pass_prompt_tokens_ * prompt_work_ps_ / 1000, kMaxLeadNs) : decode_work_ns_;
  timer_target_ns_ = due_ns_ - write_lead_ns_ - wake_ns_ - work - kLeadMarginNs;
  loops_.RunAt(options_.engine_loop, AtNs(timer_target_ns_), [this] { Turn(); });
}

void RealtimeEngine::MaxSpeedTurn() {
  const std::int64_t deadline = MonotonicNs() + kMaxSpeedTurnNs;
  for (int i = 0; i < kMaxSpeedStepsPerTurn; ++i) {
    SubmitArrived(last_end_v_);
    const perfmodel::StepPlan plan = scheduler_.Plan(last_end_v_, 1);
    FlushRemoteFirsts(plan.idle ? last_end_v_ : plan.start);
    if (plan.idle) {
      busy_ = false;
      return;
    }
    last_end_v_ = plan.start + plan.duration;
    step_model_ns_ = last_end_v_;
    now_ns_ = MonotonicNs();
    scheduler_.Complete(*this);
    if (!aborts_.empty()) {
      scheduler_.Abort(aborts_);
      aborts_.clear();
    }
    if (!pressured_.empty()) {
      loops_.RunAt(options_.engine_loop, AtNs(now_ns_) + kDrainPoll, [this] { Drain(); });
      return;
    }
    if (now_ns_ >= deadline) break;
  }
  loops_.Post(options_.engine_loop, [this] { Turn(); });
}

void RealtimeEngine::Drain() {
  std::erase_if(pressured_, [this](std::uint64_t id) {
    Stream* s = Find(id);
    if (!s) return true;
    if (s->writer.Open() && s->writer.BufferedBytes() >= options_.high_water_bytes / 2) return false;
    s->pressured = false;
    return true;
  });
  if (pressured_.empty()) {
    Turn();
  } else {
    loops_.RunAt(options_.engine_loop, std::chrono::steady_clock::now() + kDrainPoll, [this] { Drain(); });
  }
}

void RealtimeEngine::SendEvent(Stream& s, const std::string& bytes, int tokens) {
  emitted_in_pass_ = true;
  // Logged before the send: the connection's thread may write the bytes before Send returns.
  if (s.track) s.track->Sent(tokens, tokens > 0 ? step_model_ns_ : -1);
  const http::SendStatus status = s.writer.Send(bytes);
  if (status == http::SendStatus::kBackPressure && options_.time_scale <= 0 && !s.pressured) {
    s.pressured = true;
    pressured_.push_back(s.id);
  }
}

void RealtimeEngine::AppendTiming(std::string& out, const Stream& s) const {
  if (!s.timing) return;
  out += ",\"infermark_timing\":[";
  AppendInt(out, s.arrival_v);
  out += ',';
  AppendInt(out, step_model_ns_);
  out += ']';
}

void RealtimeEngine::AppendUsage(std::string& out, const Stream& s) const {
  out += "\"usage\":{\"prompt_tokens\":";
  AppendInt(out, s.prompt_tokens);
  out += ",\"total_tokens\":";
  AppendInt(out, s.prompt_tokens + s.emitted);
  out += ",\"completion_tokens\":";
  AppendInt(out, s.emitted);
  out += '}';
}

void RealtimeEngine::SendTokens(Stream& s, int begin, int end, bool finished) {
  std::string& out = scratch_;
  out.clear();
  out += s.head;
  const char* finish = finished ? s.FinishReason() : nullptr;
  if (!s.Chat()) {
    out += "{\"index\":0,\"text\":\"";
    vocabulary_.Append(out, s.vocab_offset, std::uint64_t(begin), std::uint64_t(end));
    out += "\",\"logprobs\":null,\"finish_reason\":";
    if (finish) {
      out += '"';
      out += finish;
      out += "\"";
    } else {
      out += "null";
    }
    out += ",\"stop_reason\":null}]";
  } else {
    out += "{\"index\":0,\"delta\":{";
    const int split = std::clamp(s.reasoning_tokens, begin, end);
    if (split > begin) {
      out += "\"reasoning_content\":\"";
      vocabulary_.Append(out, s.vocab_offset, std::uint64_t(begin), std::uint64_t(split));
      out += '"';
    }
    if (end > split) {
      if (split > begin) out += ',';
      out += "\"content\":\"";
      vocabulary_.Append(out, s.vocab_offset, std::uint64_t(split), std::uint64_t(end));
      out += '"';
    }
    out += "},\"logprobs\":null,\"finish_reason\":";
    if (finish) {
      out += '"';
      out += finish;
      out += "\"";
    } else {
      out += "null";
    }
    out += "}]";
  }
  if (s.continuous_usage) {
    out += ',';
    AppendUsage(out, s);
  }
  AppendTiming(out, s);
  out += "}\n\n";
  SendEvent(s, out, end - begin);
}

void RealtimeEngine::SendUsage(Stream& s) {
  std::string& out = scratch_;
  out.clear();
  out += s.head;
  out += "],";
  AppendUsage(out, s);
  AppendTiming(out, s);
  out += "}\n\n";
  SendEvent(s, out, 0);
}

void RealtimeEngine::RespondWhole(Stream& s) {
  nlohmann::ordered_json body;
  body["id"] = s.request_id;
  body["object"] = s.Chat() ? "chat.completion" : "text_completion";
  body["created"] = s.created;
  body["model"] = options_.model_name;
  nlohmann::ordered_json choice;
  choice["index"] = 0;
  std::string text;
  if (s.Chat()) {
    const int split = std::clamp(s.reasoning_tokens, 0, s.emitted);
    std::string reasoning;
    vocabulary_.Append(reasoning, s.vocab_offset, 0, std::uint64_t(split));
    vocabulary_.Append(text, s.vocab_offset, std::uint64_t(split), std::uint64_t(s.emitted));
    nlohmann::ordered_json message;
    message["role"] = "assistant";
    message["content"] = text;
    message["reasoning_content"] = split > 0 ? nlohmann::ordered_json(reasoning) : nlohmann::ordered_json(nullptr);
    choice["message"] = std::move(message);
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = s.FinishReason();
  } else {
    vocabulary_.Append(text, s.vocab_offset, 0, std::uint64_t(s.emitted));
    choice["text"] = text;
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = s.FinishReason();
    choice["stop_reason"] = nullptr;
  }
  body["choices"] = nlohmann::ordered_json::array({std::move(choice)});
  body["usage"] = {{"prompt_tokens", s.prompt_tokens},
                   {"total_tokens", s.prompt_tokens + s.emitted},
                   {"completion_tokens", s.emitted}};
  if (s.remote_decode && options_.kv_link) {
    // vLLM's disaggregated shape: the prefill answer tells the decode worker where the KV is; ours
    // also says how long its modelled hand-off takes, counted from the end of this prefill.
    const KvHandoff h = options_.kv_link->Send(s.prompt_tokens, step_model_ns_);
    nlohmann::ordered_json kv = nlohmann::ordered_json::parse(options_.kv_params_json);
    kv["do_remote_prefill"] = true;
    kv["do_remote_decode"] = false;
    kv["prompt_tokens"] = s.prompt_tokens;
    kv["transfer_s"] = h.transfer_s;
    kv["wire_s"] = h.wire_s;
    kv["queued_s"] = h.queued_s;
    kv["kv_bytes_per_rank"] = h.bytes;
    kv["time_scale"] = options_.time_scale;
    body["kv_transfer_params"] = std::move(kv);
  }
  s.responder.Respond(200, "application/json", body.dump());
}

void RealtimeEngine::SendRoleChunk(Stream& s) {
  // The role chunk opens a chat stream; it goes out with the first token, as vLLM sends it.
  std::string& out = scratch_;
  out.clear();
  out += s.head;
  out += "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]";
  if (s.continuous_usage) {
    out += ',';
    const int emitted = s.emitted;
    s.emitted = 0;
    AppendUsage(out, s);
    s.emitted = emitted;
  }
  AppendTiming(out, s);
  out += "}\n\n";
  SendEvent(s, out, 0);
}

void RealtimeEngine::OnChunk(const perfmodel::TokenEvent& event) {
  if (defer_later_tokens_ && !event.first) {
    deferred_.push_back(event);
    return;
  }
  if (event.first) ++firsts_in_pass_;
  Stream* sp = Find(event.id);
  if (!sp) return;
  Stream& s = *sp;
  // A decode worker's first pass carries the client's second token: the first came from prefill.
  const bool first = event.first && !s.remote_prefill;
  const int begin = s.emitted;
  s.emitted += event.tokens;
  metrics_.generation_tokens += static_cast<std::uint64_t>(event.tokens);
  if (first) {
    metrics_.ttft.Observe(double(now_ns_ - s.received_ns) * 1e-9);
  } else if (event.tokens > 0) {
    metrics_.tpot.Observe(double(now_ns_ - s.last_ns) * 1e-9 / event.tokens);
  }
  s.last_ns = now_ns_;
  if (s.stream) {
    if (first && s.Chat()) SendRoleChunk(s);
    SendTokens(s, begin, s.emitted, event.finished);
  }
  if (event.finished) Finish(s);
}

void RealtimeEngine::Finish(Stream& s) {
  metrics_.e2e.Observe(double(now_ns_ - s.received_ns) * 1e-9);
  if (s.output_tokens >= s.max_tokens) {
    ++metrics_.finished_length;
  } else {
    ++metrics_.finished_stop;
  }
  if (s.stream) {
    if (s.include_usage) SendUsage(s);
    static const std::string kDone = "data: [DONE]\n\n";
    SendEvent(s, kDone, 0);
    s.writer.End();
  } else {
    RespondWhole(s);
  }
  Release(&s);
}

void RealtimeEngine::RespondMetrics(http::Responder responder) {
  SchedulerGauges g;
  g.running = scheduler_.Running();
  g.waiting = scheduler_.Waiting();
  const auto total = scheduler_.cache().NumBlocks();
  g.kv_usage = total > 0 ? double(total - scheduler_.cache().Available()) / double(total) : 0.0;
  const perfmodel::SchedulerStats& st = scheduler_.stats();
  g.preemptions = st.preemptions;
  g.kv_capacity_tokens = total * config_.block_size;
  g.prefix_caching = config_.prefix_caching;
  g.host_tier = scheduler_.cache().HostCapacityTokens() > 0;
  g.prefix_queries = st.prefix_queries;
  g.prefix_hits = st.prefix_hits;
  g.host_queries = st.host_queries;
  g.host_hits = st.host_hits;
  // Prompt tokens whose KV came over the KV connector count as vLLM counts them: external.
  if (!metrics_.sglang) g.host_hits += static_cast<std::int64_t>(kv_received_tokens_);
  g.prompt_computed = st.prompt_computed;
  g.host_used_tokens = scheduler_.cache().HostUsedTokens();
  g.host_capacity_tokens = scheduler_.cache().HostCapacityTokens();
  g.offload_bytes = st.host.offload_bytes;
  g.offload_seconds = st.host.offload_seconds;
  g.onload_bytes = st.host.onload_bytes;
  g.onload_seconds = st.host.onload_seconds;
  g.evicted_tokens = st.host.evicted_tokens;
  std::string text = metrics_.Render(options_.model_name, g);
  if (!options_.role.empty()) AppendRoleMetrics(text);
  responder.Respond(200, "text/plain; version=0.0.4; charset=utf-8", text);
}

void RealtimeEngine::AppendRoleMetrics(std::string& out) const {
  const std::string labels = "{model_name=\"" + options_.model_name + "\"";
  out += "# HELP infermark:engine_role The worker's role in a disaggregated deployment.\n";
  out += "# TYPE infermark:engine_role gauge\n";
  out += "infermark:engine_role" + labels + ",role=\"" + options_.role + "\"} 1\n";
  if (!options_.kv_link) return;
  const KvLinkStats& k = options_.kv_link->stats();
  const KvLinkQueue& q = *options_.kv_link;
  const std::string link = labels + ",backend=\"" + q.model().backend.name + "\",link=\"" + q.model().link.kind + "\"}";
  auto counter = [&](const char* name, const char* help, double value) {
    out += std::string("# HELP ") + name + ' ' + help + "\n# TYPE " + name + " counter\n";
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    out += name + link + ' ' + std::string(buf, r.ptr) + '\n';
  };
  counter("infermark:kv_transfers_total", "Prompts whose KV was handed to a decode worker.", double(k.transfers));
  counter("infermark:kv_transfer_bytes_total", "KV bytes sent per prefill rank (modelled).", k.bytes);
  counter("infermark:kv_transfer_wire_seconds_total", "Link busy time of the hand-offs (modelled seconds).",
          k.wire_seconds);
  counter("infermark:kv_transfer_queued_seconds_total",
          "Time hand-offs waited behind earlier ones on the link (modelled seconds).", k.queued_seconds);
  counter("infermark:kv_transfer_seconds_total",
          "From the end of prefill until the KV is usable on the decode side, summed (modelled seconds).",
          k.transfer_seconds);
}

std::string RealtimeEngine::LatenessJson() const {
  const Histogram& h = metrics_.step_lateness;
  nlohmann::ordered_json j;
  j["passes"] = h.count();
  j["p99_ms"] = h.count() > 0 ? h.UpperBoundAt(99) * 1e3 : 0.0;
  j["max_ms"] = metrics_.step_lateness_max * 1e3;
  j["clock_slips"] = metrics_.clock_slips;
  j["clock_slipped_ms"] = metrics_.clock_slip_seconds * 1e3;
  return j.dump();
}

void RealtimeEngine::Shutdown() {
  shut_down_ = true;
}

}  // namespace infermark::engine
