// What one request of a benchmark run left behind: when it was meant to go, when it went, when
// each streamed chunk arrived and what the server said about tokens. Records are the source of
// truth; every metric and the result file are derived from them afterwards, so a measured run and
// a predicted (virtual-time) run that produce records share one metrics code path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace infermark::metrics {

/// One request's timeline and outcome. Times are nanoseconds on the run's clock (the monotonic
/// clock for a measured run, the virtual clock from 0 for a predicted one); an empty time means
/// the moment never came.
struct RequestRecord {
  std::size_t index = 0;  ///< Position in the dataset (0-based).
  std::optional<std::int64_t>
      intended_ns;                      ///< When the schedule wanted it sent (open loop) or its slot freed (closed).
  std::optional<std::int64_t> sent_ns;  ///< Just before the request was written (the reference's start time).
  /// Part of the opening wave: due at the very start, before any slot had freed (closed loop, or an
  /// open loop with an infinite rate). Its send lag measures how long the client takes to put a
  /// whole wave on the wire, not whether it keeps up, so it is reported apart.
  bool opening_wave = false;
  std::optional<std::int64_t> first_chunk_ns;  ///< First chunk with `choices`, even an empty one (TTFT end).
  std::optional<std::int64_t> first_text_ns;   ///< First chunk carrying content or reasoning text.
  /// The reference's latency end: the last choice chunk (completions) or the last data event (chat).
  std::optional<std::int64_t> end_ns;
  std::optional<std::int64_t> done_ns;  ///< When the response ended or failed.
  /// Arrival time of every chunk with `choices`, in order (ITL is their successive differences).
  std::vector<std::int64_t> chunk_ns{};
  /// Output tokens the server had produced as of each such chunk (`continuous_usage_stats`), one per
  /// entry of chunk_ns; empty when the server does not report them.
  std::vector<std::uint32_t> chunk_tokens{};
  bool success = false;  ///< Counted as completed by the reference's rules.
  std::string
      error_kind{};     ///< Failure class ("timeout", "reset", "http_status", "malformed_sse", …); empty on success.
  std::string error{};  ///< Failure details for people; empty on success.
  int http_status = 0;  ///< Response status (0: none).
  std::int64_t prompt_tokens = 0;                    ///< The client's prompt length (the reference's prompt_len).
  std::int64_t expected_output_tokens = 0;           ///< Output length asked for (max_tokens).
  std::optional<std::int64_t> server_prompt_tokens;  ///< usage.prompt_tokens, when reported.
  std::optional<std::int64_t> server_output_tokens;  ///< usage.completion_tokens, when reported.
  std::optional<std::int64_t> client_output_tokens;  ///< The client's own count (re-encoded text), when counted.
  std::string response_id{};  ///< The server's `id` of the response's chunks (joins with server logs).
  /// The `index` of the request whose end freed the slot this one went out on, when that end set
  /// this one's intended time (a closed loop's refill; an open loop's request that waited for a slot).
  std::optional<std::size_t> freed_by;
  // --- the built-in engine's model clock, when it reported it (`X-Infermark-Timing`) ---
  /// When the request entered the engine's model (virtual ns).
  std::optional<std::int64_t> model_arrival_ns;
  /// Modelled time of each entry of chunk_ns (virtual ns), when every timed chunk carried one.
  std::vector<std::int64_t> chunk_model_ns{};
  std::optional<std::int64_t> model_first_chunk_ns;  ///< Modelled time of the TTFT chunk.
  std::optional<std::int64_t> model_end_ns;          ///< Modelled time of the latency end's event.
  std::optional<std::int64_t> model_done_ns;         ///< Modelled time of the last event with one.
  std::string generated_text{};                      ///< Streamed text (content, then reasoning not included).
};

}  // namespace infermark::metrics
