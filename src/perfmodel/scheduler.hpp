// The discrete-event scheduler of the built-in engine, modelled on vLLM's V1 scheduler:
// continuous batching, a paged KV cache, chunked prefill under a token budget, a cap on running
// sequences, preemption by recompute when blocks run out, prefix caching (a prompt's cached
// leading tokens skip prefill compute; attention still reads them) with an optional host-DRAM
// tier whose hits are loaded back over the host link before the prompt's prefill goes on, token
// batching per streamed chunk and speculative (MTP) decoding at an expected acceptance.
//
// It is clock-agnostic: `Plan(now)` decides the next forward pass and returns its duration from
// the step-time model; the caller waits (real time) or jumps (virtual time) to its end and calls
// `Complete`, which reports the tokens produced. When nothing can change the batch before a
// sequence finishes, `Plan` may cover a run of identical decode steps at once ("span"), which
// makes virtual time O(batch) per event instead of per token.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <vector>

#include "perfmodel/prefix_cache.hpp"
#include "perfmodel/step_time.hpp"

namespace infermark::perfmodel {

/// A request as the scheduler sees it.
struct Request {
  std::uint64_t id = 0;   ///< Caller's id, echoed in events.
  int prompt_tokens = 0;  ///< Prompt length.
  int max_tokens = 0;     ///< Output tokens to generate (ignore_eos: exactly these).
  /// Chained hashes of the prompt's leading blocks: element k names its first (k+1)·block_tokens
  /// tokens, so equal hashes mean equal prefixes (shared across the turns of a conversation).
  /// Null or empty: no identity known, nothing is looked up or cached.
  std::shared_ptr<const std::vector<std::uint64_t>> prefix_blocks{};
  int block_tokens = 64;  ///< Tokens per element of prefix_blocks.
  /// The prompt's KV arrives computed (a disaggregated decode worker): admission takes blocks for
  /// it and the request decodes at once, without prefill compute (a preemption recomputes it).
  bool kv_present = false;
};

/// Output tokens of one sequence leaving the engine at one time.
struct TokenEvent {
  std::uint64_t id = 0;   ///< Request id.
  TimeNs time = 0;        ///< End of the forward pass that produced them.
  int tokens = 0;         ///< Tokens in this chunk.
  bool first = false;     ///< Carries the request's first token.
  bool finished = false;  ///< The request is complete.
};

/// Receives what the scheduler produces.
class EventSink {
 public:
  virtual ~EventSink() = default;
  /// One streamed chunk.
  virtual void OnChunk(const TokenEvent& event) = 0;
  /// Whether chunks inside a span must be reported one step at a time (real time, detailed
  /// records); false reports a span's tokens once, at its end.
  [[nodiscard]] virtual bool WantsEveryStep() const { return true; }
};

/// The next forward pass (or span of identical decode passes).
struct StepPlan {
  bool idle = true;        ///< Nothing to run.
  TimeNs start = 0;        ///< When it starts.
  TimeNs duration = 0;     ///< How long all its steps take.
  std::int64_t steps = 0;  ///< Forward passes covered (1, or more for a span).
  BatchShape shape;        ///< Shape of the average step (steps × Seconds(shape) = duration).
};

/// Counters for reports and tests.
struct SchedulerStats {
  std::int64_t steps = 0;        ///< Forward passes run.
  std::int64_t plans = 0;        ///< Plans made (spans count once).
  std::int64_t preemptions = 0;  ///< Sequences preempted.
  std::int64_t max_running = 0;  ///< Largest batch seen.
  /// Prompt tokens looked up in the prefix cache, at each request's first admission
  /// (vllm:prefix_cache_queries; 0 with prefix caching off).
  std::int64_t prefix_queries = 0;
  std::int64_t prefix_hits = 0;  ///< Of those, tokens found on the GPU (vllm:prefix_cache_hits).
  /// Prompt tokens looked up with a host tier present (vllm:external_prefix_cache_queries).
  std::int64_t host_queries = 0;
  std::int64_t host_hits = 0;  ///< Of those, tokens loaded back from the host tier.
  /// Prompt tokens computed at first admission: the prompt less both kinds of hit.
  std::int64_t prompt_computed = 0;
  HostTierStats host;                 ///< Host-link traffic.
  std::int64_t cached_blocks = 0;     ///< GPU blocks holding cached prefix units now.
  std::int64_t host_used_tokens = 0;  ///< Tokens the host tier holds now.
  std::int64_t stall_plans = 0;       ///< Passes in which the GPU only waited for loads from the host.
};

/// The scheduler.
class Scheduler {
 public:
  /// `model` must outlive the scheduler.
  Scheduler(const SchedulerConfig& config, const StepTimeModel& model);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Queues a request arriving at `now`. False when it can never run (longer than max_model_len
  /// or than the whole KV cache); such a request is not queued.
  bool Submit(const Request& request, TimeNs now);

  /// Whether a request of `prompt_tokens` and `max_tokens` could ever run (what Submit checks).
  [[nodiscard]] bool Accepts(int prompt_tokens, int max_tokens) const;

  /// Decides the next pass starting at `now`: at most `max_steps` steps, and a span of several
  /// steps ends by `horizon` (when the caller expects something to happen then, such as an
  /// arrival). Must be followed by `Complete` before the next `Plan` unless idle.
  StepPlan Plan(TimeNs now, std::int64_t max_steps, TimeNs horizon = std::numeric_limits<TimeNs>::max());

  /// Applies the planned pass at its end and reports its chunks to `sink`.
  void Complete(EventSink& sink);

  /// Removes requests whose client went away: running ones give their KV blocks back, waiting
  /// ones leave the queue; unknown ids are ignored. Must not fall between `Plan` and `Complete`.
  void Abort(const std::vector<std::uint64_t>& ids);

  /// Sequences being served.
  [[nodiscard]] std::size_t Running() const { return running_.size(); }
  /// Sequences waiting for admission.
  [[nodiscard]] std::size_t Waiting() const { return waiting_.size(); }
  /// Nothing queued or running.
  [[nodiscard]] bool Empty() const { return running_.empty() && waiting_.empty(); }
  /// The KV cache: block pool, prefix cache and host tier (for tests and metrics).
  [[nodiscard]] const PrefixCache& cache() const { return cache_; }
  /// Counters.
  [[nodiscard]] const SchedulerStats& stats() const { return stats_; }
  /// KV blocks held by running sequences, counted per sequence (shared prefix blocks count once per holder).
  [[nodiscard]] std::int64_t BlocksHeld() const;
  /// Ids of running sequences in admission order (for tests).
  [[nodiscard]] std::vector<std::uint64_t> RunningIds() const;

 private:
  struct Seq;
  [[nodiscard]] std::int64_t BlocksFor(double tokens) const;
  [[nodiscard]] int TokensThisStep(const Seq& s) const;
  [[nodiscard]] std::int64_t Held(const Seq& s) const;
  void ReleaseAll(Seq& s);
  void Register(Seq& s, TimeNs end);
  void SyncStats();
  void PreemptLast();
  bool TryPlanSpan(TimeNs now, std::int64_t max_steps, TimeNs horizon, StepPlan& plan);
  void PlanSingle(TimeNs now, StepPlan& plan);
  void Emit(Seq& s, int tokens, TimeNs time, EventSink& sink);
  void Finish(std::size_t index);

  SchedulerConfig config_;
  const StepTimeModel& model_;
  PrefixCache cache_;
  std::vector<std::unique_ptr<Seq>> running_;  // admission order
  std::deque<std::unique_ptr<Seq>> waiting_;   // FIFO; preempted sequences go back to the front
  StepPlan plan_;
  bool planned_ = false;
  bool span_ = false;
  double span_first_ = 0, span_slope_ = 0;  // seconds of the span's first step and the change per step
  TimeNs ready_ = 0;                        // evicted blocks of this plan are free to reuse
  SchedulerStats stats_;
};

}  // namespace infermark::perfmodel
