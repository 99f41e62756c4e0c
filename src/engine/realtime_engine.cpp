#include "engine/realtime_engine.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "core/clock.hpp"
#include "engine/api_error.hpp"

namespace infermark::engine {
namespace {

constexpr std::int64_t kSlipNs = 5'000'000;        // real lateness after which the virtual clock slips
constexpr std::int64_t kMaxSpeedTurnNs = 500'000;  // max speed: a turn yields to the loop after this
constexpr int kMaxSpeedStepsPerTurn = 64;          // … or after this many passes
constexpr auto kDrainPoll = std::chrono::microseconds(200);

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
  return static_cast<std::int64_t>(double(MonotonicNs() - epoch_ns_) * options_.time_scale);
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
      s.track = std::make_shared<EmissionTrack>(options_.emission_log, s.request_id);
      s.writer.OnWritten([track = s.track](std::uint64_t events, std::int64_t ns) { track->Written(events, ns); });
    }
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
  if (!scheduler_.Submit(r, VirtualNow())) {
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
  s.submitted = true;
  metrics_.prompt_tokens += static_cast<std::uint64_t>(s.prompt_tokens);
  slots_[slot] = std::move(owned);
  Kick();
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
  if (!scheduler_.Submit(r, VirtualNow())) {
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
  s->submitted = true;
  kv_received_tokens_ += static_cast<std::uint64_t>(s->prompt_tokens);
  remote_firsts_.push_back(id);
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
  struct Release {
    const std::function<void()>& release;
    ~Release() {
      if (release) release();
    }
  } release{options_.release_output};
  TurnHeld();
}

void RealtimeEngine::TurnHeld() {
  if (shut_down_) {
    busy_ = false;
    return;
  }
  if (in_flight_) {
    in_flight_ = false;
    now_ns_ = MonotonicNs();
    step_model_ns_ = last_end_v_;
    scheduler_.Complete(*this);
    // How late the engine was done with this pass (its timer fired and its tokens went out)
    // against the pass's modelled end: a loop that fires late and an engine whose own work takes
    // long both mean that the host, not the modelled GPU, sets the figures. Clients read it from
    // /metrics to say so.
    const double late = double(std::max<std::int64_t>(MonotonicNs() - due_ns_, 0)) * 1e-9;
    metrics_.step_lateness.Observe(late);
    metrics_.step_lateness_max = std::max(metrics_.step_lateness_max, late);
  }
  if (!aborts_.empty()) {
    scheduler_.Abort(aborts_);
    aborts_.clear();
  }
  if (options_.time_scale <= 0) {
    MaxSpeedTurn();
    return;
  }
  const std::int64_t vnow = VirtualNow();
  const auto slip = static_cast<std::int64_t>(double(kSlipNs) * options_.time_scale);
  const bool slipped = continuous_ && vnow - last_end_v_ > slip;
  if (slipped) {
    ++metrics_.clock_slips;
    metrics_.clock_slip_seconds += double(vnow - last_end_v_) / options_.time_scale * 1e-9;
  }
  const std::int64_t start = continuous_ && !slipped ? last_end_v_ : vnow;
  const perfmodel::StepPlan plan = scheduler_.Plan(start, 1);
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
  loops_.RunAt(options_.engine_loop, AtNs(due_ns_), [this] { Turn(); });
}

void RealtimeEngine::MaxSpeedTurn() {
  const std::int64_t deadline = MonotonicNs() + kMaxSpeedTurnNs;
  for (int i = 0; i < kMaxSpeedStepsPerTurn; ++i) {
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
  // Logged before the send: the connection's thread may write the bytes before Send returns.
  if (s.track) s.track->Sent(tokens, tokens > 0 ? step_model_ns_ : -1);
  const http::SendStatus status = s.writer.Send(bytes);
  if (status == http::SendStatus::kBackPressure && options_.time_scale <= 0 && !s.pressured) {
    s.pressured = true;
    pressured_.push_back(s.id);
  }
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
  out += "}\n\n";
  SendEvent(s, out, end - begin);
}

void RealtimeEngine::SendUsage(Stream& s) {
  std::string& out = scratch_;
  out.clear();
  out += s.head;
  out += "],";
  AppendUsage(out, s);
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
  out += "}\n\n";
  SendEvent(s, out, 0);
}

void RealtimeEngine::OnChunk(const perfmodel::TokenEvent& event) {
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
