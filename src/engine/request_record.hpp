// The engine's per-request record on its virtual clock: what one simulated request did, in
// nanoseconds from the start of the run. The runner converts these into the metrics module's
// records (metrics/request_record.hpp), so predicted and measured results share one code path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace infermark::engine {

/// Monotonic time in nanoseconds (virtual runs start at 0).
using TimeNs = std::int64_t;

/// One streamed chunk that carried output tokens.
struct ChunkRecord {
  TimeNs time_ns = 0;  ///< When the chunk arrived (client) or was sent (engine).
  int tokens = 0;      ///< Output tokens it carried (usage delta or counted).
};

/// Everything measured about one request.
struct RequestRecord {
  std::uint64_t id = 0;  ///< Request index in the run (prompt order).
  TimeNs intended_send_ns =
      0;  ///< When it should have been sent: the schedule (open loop) or the moment a slot freed (closed loop).
  TimeNs send_ns = 0;               ///< When its bytes left.
  TimeNs first_chunk_ns = -1;       ///< First chunk with `choices` (the reference client's TTFT point); -1 if none.
  TimeNs first_content_ns = -1;     ///< First chunk with content or reasoning text; -1 if none.
  TimeNs last_chunk_ns = -1;        ///< Last chunk with `choices` (the reference client's E2EL point).
  int prompt_tokens = 0;            ///< Prompt length in tokens.
  int output_tokens = 0;            ///< Output tokens (the server's usage).
  int counted_output_tokens = -1;   ///< Output tokens the client counted itself (-1 = not counted).
  std::vector<ChunkRecord> chunks;  ///< Every chunk, when the run records them (may be empty).
  bool success = false;             ///< Completed without error.
  std::string error;                ///< Why it failed (empty on success).

  /// Time to first token in seconds (reference definition), from `send_ns`.
  [[nodiscard]] double TtftSeconds() const { return double(first_chunk_ns - send_ns) * 1e-9; }
  /// End-to-end latency in seconds (send to last chunk).
  [[nodiscard]] double E2elSeconds() const { return double(last_chunk_ns - send_ns) * 1e-9; }
  /// Time per output token after the first, in seconds; 0 when fewer than two tokens.
  [[nodiscard]] double TpotSeconds() const {
    return output_tokens > 1 ? (E2elSeconds() - TtftSeconds()) / (output_tokens - 1) : 0.0;
  }
};

}  // namespace infermark::engine
