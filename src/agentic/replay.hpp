// The agentic client: lanes of session trees replayed against any target on any executor (an
// HTTP server on the client's event loop, or the performance model on the virtual clock), as
// InferenceX's AgentX scenario replays them. Concurrency is the number of live trees; a lane
// recycles when its whole tree (the parent and every subagent it spawned) has drained. Initial
// lanes start at a random turn after warm-up requests that prime the cache; recorded gaps are
// honoured end to start, capped per tree and when the whole system is idle; every request's
// intended time is kept, so the client's own lateness is measured.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "agentic/conversation.hpp"
#include "agentic/trace.hpp"
#include "loadgen/executor.hpp"
#include "loadgen/target.hpp"
#include "metrics/request_record.hpp"

namespace infermark::agentic {

/// The replay's settings (aiperf's flag names in the comments).
struct ReplayOptions {
  std::size_t concurrency = 1;              ///< --concurrency: live session trees.
  double duration_s = 3600;                 ///< --benchmark-duration: seconds of the profiling phase.
  int warmup_requests_per_lane = 0;         ///< --warmup-requests-per-lane: extra 1-token requests per lane.
  double start_min_ratio = 0.0;             ///< --trajectory-start-min-ratio.
  double start_max_ratio = 1.0;             ///< --trajectory-start-max-ratio.
  double trace_idle_gap_cap_s = 0;          ///< --trace-idle-gap-cap-seconds (0: no cap).
  double system_idle_gap_cap_s = 10;        ///< --system-idle-gap-cap-seconds (0: no guard).
  double grace_s = 30;                      ///< Seconds requests in flight at the end may still finish.
  double warmup_grace_s = 1800;             ///< --warmup-grace-period.
  double failed_request_threshold = 0.10;   ///< --failed-request-threshold: error ratio that cancels the run.
  std::uint64_t seed = 42;                  ///< --random-seed: trace order and start turns.
  std::uint64_t run_id = 0;                 ///< Keys the cache-bust tags (a fresh keyspace per run).
  bool build_text = true;                   ///< Write request bodies (off for targets that need only lengths).
  const std::atomic<bool>* stop = nullptr;  ///< Set from outside (SIGINT): the run ends, marked cancelled.
  std::function<void()> tick;               ///< Called every few milliseconds (progress).
};

/// One request the replay sent.
struct ReplayRequest {
  metrics::RequestRecord record;
  std::uint32_t trace = 0;  ///< Index into the corpus.
  int subagent = -1;        ///< Trace::subagents index (-1: the parent).
  std::uint32_t turn = 0;   ///< Index of the call within its chain.
  std::uint32_t pass = 0;   ///< Which play of its lane (0: the initial one).
  std::uint32_t lane = 0;
  bool warmup = false;
  std::int64_t input_tokens = 0;            ///< The call's recorded input (content tokens sent).
  std::int64_t expected_output = 0;         ///< max_tokens.
  std::int64_t theoretical_hit_tokens = 0;  ///< Tokens of its leading blocks sent before in the same play.
  bool overflow = false;                    ///< The server refused it as too long for its context.
  bool cut = false;  ///< Cut when the run ended (duration and grace over, or a stop): it never completed.
};

/// What a replay left behind.
struct ReplayRun {
  std::deque<ReplayRequest> requests;  ///< In send order.
  std::int64_t window_open_ns = 0;     ///< Profiling started (executor clock).
  std::int64_t window_close_ns = 0;    ///< The last profiling request ended.
  std::int64_t duration_end_ns = 0;    ///< No request was sent after this.
  bool cancelled = false;              ///< Stopped from outside, by the error threshold or a failed warm-up.
  std::string cancel_reason;
  std::size_t plays_started = 0;
  std::size_t plays_completed = 0;
  std::size_t sessions_ended_by_overflow = 0;
  std::size_t idle_shifts = 0;  ///< Times the system idle guard moved the timers.
  double idle_shifted_s = 0;
  std::size_t max_in_flight = 0;
};

/// Replays `corpus` against `target` on `executor` (lane 0 runs the whole client). `text` writes
/// the bodies (needed when options.build_text).
ReplayRun Replay(const TraceCorpus& corpus, const ReplayOptions& options, const FillerText* text,
                 loadgen::Target& target, loadgen::Executor& executor);

/// The id aiperf gives the request's conversation: the trace id, and `::sa:<agent>` for a subagent's.
std::string ConversationId(const TraceCorpus& corpus, const ReplayRequest& request);

}  // namespace infermark::agentic
