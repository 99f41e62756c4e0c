// The real-time driver of the scheduler: requests arrive from HTTP, the scheduler plans each
// forward pass, the step-time model gives its duration, and a timer on the engine's event loop
// fires at the pass's end (scaled by the time scale) to stream the tokens it produced. One loop
// thread owns all of it: no thread per request, no locks on the hot path.
//
// Clocks: the engine's virtual clock is real time × time scale since start. Passes run back to
// back on it and the engine keeps that modelled timeline whatever its host does: a timer that fires
// late (a loaded machine, a stopped process) sends that pass's tokens late, then the passes due
// meanwhile run at once and the engine is back on schedule, as a GPU whose host stalled would be.
// A request enters the model when its bytes arrived (not when it was parsed and tokenized), and a
// pass takes only requests that had arrived by its modelled start.
// At time scale 0 (max speed) passes complete at once, in turns of up to 64 passes or 0.5 ms
// after which the loop writes what the turn produced; a stream whose client is more than 1 MiB
// behind pauses the engine until it catches up (the engine is as fast as its slowest reader).
//
// Each chunk's JSON is pre-rendered per request (head) and per token (vocabulary words): a chunk
// costs a few appends into a reused buffer and one StreamWriter::Send, one SSE event per Send.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/emission_log.hpp"
#include "engine/kv_link.hpp"
#include "engine/openai_request.hpp"
#include "engine/serve_metrics.hpp"
#include "http/event_loops.hpp"
#include "http/responder.hpp"
#include "perfmodel/scheduler.hpp"
#include "tokenizer/word_vocabulary.hpp"

namespace infermark::engine {

/// A validated request, ready for the scheduler.
struct AdmittedRequest {
  Endpoint endpoint = Endpoint::kCompletions;  ///< Completions or chat.
  bool stream = false;                         ///< Stream SSE.
  bool include_usage = false;                  ///< Final usage chunk.
  bool continuous_usage = false;               ///< Usage in every chunk.
  int prompt_tokens = 0;                       ///< Prompt length.
  int max_tokens = 0;                          ///< The request's limit.
  int output_tokens = 0;                       ///< Tokens it will produce (EOS model applied).
  int reasoning_tokens = 0;                    ///< The first this many are reasoning_content (chat).
  /// Chained hashes of the prompt's leading blocks (prefix caching; null: none).
  std::shared_ptr<const std::vector<std::uint64_t>> prefix_blocks;
  int prefix_block_tokens = 16;  ///< Tokens per element of prefix_blocks.
  /// Prefill role: answer with `kv_transfer_params` (the modelled hand-off of the prompt's KV).
  bool remote_decode = false;
  /// Decode role: the prompt was computed by a prefill worker and its KV arrives this many
  /// modelled seconds after the request (negative: compute the prompt here).
  double kv_transfer_s = -1;
  std::int64_t received_ns = 0;  ///< When the request arrived (MonotonicNs); it enters the model then.
  /// Every event says when the request entered the model and which modelled pass produced it
  /// (`"infermark_timing":[arrival, pass end]`, virtual ns), for a client measuring host error.
  bool timing = false;
  std::uint64_t created = 0;  ///< Unix time for `created`.
  http::Responder responder;  ///< Where the answer goes.
};

/// Settings of the driver.
struct RealtimeOptions {
  double time_scale = 1.0;                     ///< 0 = max speed.
  std::int64_t max_waiting = 0;                ///< Queue bound (0: none).
  std::string model_json;                      ///< The served model name as a JSON string (quoted).
  std::string model_name;                      ///< The served model name.
  std::size_t engine_loop = 0;                 ///< Loop the engine runs on.
  std::size_t high_water_bytes = 1024 * 1024;  ///< Max speed: a stream buffered beyond this pauses the engine.
  std::shared_ptr<EmissionLog> emission_log;   ///< May be null.
  std::string framework = "vllm";              ///< Names the /metrics series: sglang's, else vLLM's.
  std::string role;                            ///< "", "prefill" or "decode" (ServeOptions::role).
  /// Prefill role: the worker's KV link (hand-offs of requests with remote_decode); null otherwise.
  std::shared_ptr<KvLinkQueue> kv_link;
  /// Prefill role: fields added to every `kv_transfer_params` answer (a JSON object: engine id, URL…).
  std::string kv_params_json = "{}";
  /// Called around each turn of the engine (a pass's tokens and the next plan), so that the output
  /// of all its streams leaves in one wake of each connection loop (http::Server::HoldOutput and
  /// ReleaseOutput). Either may be empty.
  std::function<void()> hold_output;
  std::function<void()> release_output;
};

/// The driver. Every method except the constructor must run on the engine loop.
class RealtimeEngine final : public perfmodel::EventSink {
 public:
  /// `model`, `vocabulary` and `loops` must outlive the engine.
  RealtimeEngine(const perfmodel::SchedulerConfig& config, const perfmodel::StepTimeModel& model,
                 const tokenizer::WordVocabulary& vocabulary, http::EventLoops& loops, RealtimeOptions options);
  ~RealtimeEngine() override;

  /// Takes a request: answers 429 when the queue is full, else starts its stream (streaming) and
  /// queues it.
  void Admit(AdmittedRequest request);
  /// Answers GET /metrics.
  void RespondMetrics(http::Responder responder);
  /// How late passes have ended against the modelled schedule since start, as a JSON object
  /// (`passes`, `p99_ms`, `max_ms`, `clock_slips`), for the model card.
  [[nodiscard]] std::string LatenessJson() const;
  /// Replaces RealtimeOptions::kv_params_json (the prefill worker learns its URL once it listens).
  void SetKvParams(std::string json) { options_.kv_params_json = std::move(json); }
  /// Ends every open stream (server shutdown).
  void Shutdown();
  /// The monotonic time (MonotonicNs) of virtual time 0.
  [[nodiscard]] std::int64_t EpochNs() const { return epoch_ns_; }

  void OnChunk(const perfmodel::TokenEvent& event) override;

 private:
  struct Stream;
  Stream* Find(std::uint64_t id);
  void Release(Stream* s);
  void Cancel(std::uint64_t id);
  void KvArrived(std::uint64_t id);
  void SendRemoteFirst(Stream& s);
  void FlushRemoteFirsts(std::int64_t pass_start);
  void SendRoleChunk(Stream& s);
  void Finish(Stream& s);
  void AppendRoleMetrics(std::string& out) const;
  void Kick();
  void Turn();
  void TurnHeld();  // Turn's work, with the connections' output held
  void PaceRelease(std::int64_t woke_ns);
  void ReleaseOutput();
  static std::int64_t Track(std::int64_t estimate, std::int64_t sample, bool tail, std::int64_t step = 2'000);
  void MaxSpeedTurn();
  void Drain();
  std::int64_t VirtualNow() const;
  void SendEvent(Stream& s, const std::string& bytes, int tokens);
  void AppendTiming(std::string& out, const Stream& s) const;
  void Enqueue(const perfmodel::Request& r, std::int64_t arrival_v);
  void SubmitArrived(std::int64_t start);
  std::int64_t VirtualAt(std::int64_t real_ns) const;
  void SendTokens(Stream& s, int begin, int end, bool finished);
  void SendUsage(Stream& s);
  void RespondWhole(Stream& s);
  void AppendUsage(std::string& out, const Stream& s) const;

  perfmodel::SchedulerConfig config_;
  const perfmodel::StepTimeModel& model_;
  const tokenizer::WordVocabulary& vocabulary_;
  http::EventLoops& loops_;
  RealtimeOptions options_;
  perfmodel::Scheduler scheduler_;
  ServeMetrics metrics_;
  std::vector<std::unique_ptr<Stream>> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_serial_ = 0;
  std::vector<std::uint64_t> aborts_;
  std::vector<std::uint64_t> pressured_;
  std::vector<std::uint64_t> remote_firsts_;  // decode role: KV arrived, first token due with the next pass
  struct Arrival {
    std::int64_t at_v;  // virtual time the request entered the model
    perfmodel::Request request;
  };
  std::deque<Arrival> arrivals_;          // admitted, not yet handed to the scheduler; by at_v
  std::uint64_t kv_received_tokens_ = 0;  // decode role: prompt tokens whose KV came from a prefill worker
  std::string scratch_;
  std::int64_t epoch_ns_ = 0;       // real time of virtual 0
  std::int64_t last_end_v_ = 0;     // virtual end of the last pass
  std::int64_t step_model_ns_ = 0;  // virtual end of the pass being completed
  std::int64_t now_ns_ = 0;         // real time the current pass completes
  std::int64_t due_ns_ = 0;         // real time the pass in flight is due to end
  bool busy_ = false;               // a turn is scheduled or a pass is in flight
  bool in_flight_ = false;          // a pass was planned and awaits Complete
  bool continuous_ = false;         // the next pass follows the last one back to back
  bool shut_down_ = false;
  // Pacing the output of real-time passes (PaceRelease): how long the host takes from the timer to
  // the pass's output rendered (a high estimate), and from releasing it to its first write.
  std::int64_t wake_ns_ = 150'000;        // how late the pass timer fires (a high estimate)
  std::int64_t decode_work_ns_ = 60'000;  // completing a decode pass
  std::int64_t prompt_work_ps_ = 80'000;  // completing a pass that took in prompt tokens, per token (ps)
  std::int64_t pass_prompt_tokens_ = 0;   // prompt tokens of the pass in flight
  std::int64_t write_lead_ns_ = 30'000;
  std::int64_t timer_target_ns_ = 0;  // when the pass's timer was asked to fire
  std::int64_t released_at_ns_ = 0;
  bool released_ = true;
  bool emitted_in_pass_ = false;
  struct WriteTimes {  // a pass's writes, as the connection loops report them
    std::atomic<std::int64_t> first{0};
    std::atomic<std::int64_t> last{0};
    std::atomic<std::int64_t> count{0};
  };
  std::shared_ptr<WriteTimes> writes_ = std::make_shared<WriteTimes>();
  std::int64_t per_write_ns_ = 5'000;            // each further write of a pass
  std::int64_t firsts_in_pass_ = 0;              // first tokens the pass completed sends
  bool defer_later_tokens_ = false;              // Complete: hold back tokens that are not a first
  std::vector<perfmodel::TokenEvent> deferred_;  // … here, to send after the first ones
};

}  // namespace infermark::engine
