// Coding-agent session traces in the "Weka" format that InferenceX's AgentX corpus uses: one
// session per trace, its model calls with their recorded token counts, 64-token block hash ids
// (local to the trace), the gaps between calls, and subagent groups with their own calls. Hash
// ids are held in one pool per corpus, so a 200k-token request costs a span, not a copy.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace infermark::agentic {

/// One model call of a session (`type` "n" or "s").
struct TraceCall {
  double t = 0;                  ///< Seconds from the session's (or subagent's) start.
  std::int64_t in = 0;           ///< Input tokens.
  std::int64_t out = 0;          ///< Output tokens.
  std::uint64_t hash_begin = 0;  ///< Its hash ids: [hash_begin, hash_begin + hash_count) of the corpus pool.
  std::uint32_t hash_count = 0;
  double think_time = 0;       ///< Recorded gap from the previous call's end to this call's start.
  double api_time = 0;         ///< Recorded duration of the call (seconds).
  std::optional<double> ttft;  ///< Recorded time to first token (streamed captures only).
  bool streamed = false;       ///< `type` "s".
  int line = 0;                ///< 1-based line (or 0 in a one-trace file) of its trace, for messages.
  /// Its position among the trace's calls in recorded order, subagents' calls in place (aiperf's
  /// turn index; dropped calls keep their numbers).
  std::uint32_t turn_index = 0;
};

/// A subagent group: calls a parent spawned, with their own clock.
struct TraceSubagent {
  double t = 0;                  ///< Seconds from the session's start when it was spawned.
  std::string agent_id;          ///< `<slug>_<NNN>[_<id8>]`.
  std::string subagent_type;     ///< As recorded (may be empty).
  double duration_ms = 0;        ///< Recorded wall time of the whole group.
  std::vector<TraceCall> calls;  ///< Its model calls, `t` relative to the session start as recorded.
};

/// One item of a session in recorded order: a call, or a subagent group.
struct TraceItem {
  bool subagent = false;
  std::uint32_t index = 0;  ///< Into Trace::calls or Trace::subagents.
};

/// One session.
struct Trace {
  std::string id;
  std::string model;               ///< The session's main model (first of `models`).
  int block_size = 64;             ///< Tokens per hash id.
  std::int64_t tool_tokens = 0;    ///< Recorded tool-definition tokens (0 when absent).
  std::int64_t system_tokens = 0;  ///< Recorded system-prompt tokens (0 when absent).
  std::vector<TraceCall> calls;    ///< The parent's calls, in order.
  std::vector<TraceSubagent> subagents;
  std::vector<TraceItem> items;  ///< Calls and subagents interleaved as recorded.
  std::string source;            ///< `file:line` (or the file) it came from.
};

/// A loaded corpus.
struct TraceCorpus {
  std::vector<Trace> traces;
  std::vector<std::uint32_t> hash_pool;  ///< Every call's hash ids, end to end.
  std::string origin;                    ///< What was read (path or dataset name).

  /// The hash ids of `call`.
  [[nodiscard]] std::span<const std::uint32_t> Hashes(const TraceCall& call) const {
    return {hash_pool.data() + call.hash_begin, call.hash_count};
  }
  /// Model calls in all traces (subagents' included).
  [[nodiscard]] std::size_t CallCount() const;
};

}  // namespace infermark::agentic
