// What a target reports about one request, in the target's own terms turned into the client's
// record. Every target (HTTP against any server, the virtual clock against the performance
// model) fills records through this one class, so the rules of what starts and ends each clock —
// TTFT at the first chunk with a choice, E2EL at the last, ITL between timed chunks, the server's
// usage kept beside the client's count, "no chunks" as a failure — exist once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "metrics/request_record.hpp"

namespace infermark::loadgen {

/// One data event of a streamed answer.
struct Chunk {
  std::int64_t at_ns = 0;  ///< When it arrived (measured: the kernel's receive time; virtual: the end of its pass).
  /// It carries a choice (the reference's chunks: they start TTFT and count for ITL and E2EL).
  bool choice = true;
  /// A data event without a choice that still moves the latency end (the reference's chat handler).
  bool moves_end = false;
  bool text = false;  ///< It carries content or reasoning text (first-text TTFT).
  /// Its own arrival time is known. A virtual run that covers many passes with one event knows the
  /// first and last token's time but not each chunk's: such chunks add no ITL sample.
  bool timed = true;
  std::optional<std::uint32_t> tokens_so_far;  ///< Output tokens produced as of this chunk (usage per chunk).
  /// The built-in engine's modelled time of the pass that produced it (virtual ns), when told.
  std::optional<std::int64_t> model_ns;
  /// When the request entered the engine's model (virtual ns), when told.
  std::optional<std::int64_t> model_arrival_ns;
  std::string_view answer;  ///< Answer text it carries (kept when the client keeps text).
};

/// How a request ended.
struct RequestEnd {
  std::int64_t done_ns = 0;  ///< When the response ended or failed.
  std::string error_kind;    ///< Failure class ("timeout", "http_status", …); empty: the target saw no failure.
  std::string error;         ///< Failure details for people.
};

/// Told when a request frees its concurrency slot and when its record is final.
class RequestListener {
 public:
  virtual ~RequestListener() = default;
  /// Request `ordinal` no longer holds its slot (the closed loop's refill goes out now).
  virtual void OnFreed(std::size_t ordinal, std::int64_t done_ns) = 0;
  /// Request `ordinal`'s record is complete.
  virtual void OnClosed(std::size_t ordinal) = 0;
};

/// Fills one request's record from what its target reports. Calls arrive on one thread (the
/// request's event loop), in order: Sent and chunks, then Freed (optional), then Done once.
class RequestTracker {
 public:
  /// Reports to `listener` as request `ordinal`; `keep_text` keeps the answer's text.
  RequestTracker(metrics::RequestRecord& record, RequestListener& listener, std::size_t ordinal, bool keep_text)
      : record_(&record), listener_(&listener), ordinal_(ordinal), keep_text_(keep_text) {}

  /// The request went out at `ns` (the reference's start time).
  void Sent(std::int64_t ns) { record_->sent_ns = ns; }
  /// The response's HTTP status (0 when there is none).
  void Status(int status) { record_->http_status = status; }
  /// The server's id of the response (the first one reported is kept).
  void ResponseId(std::string_view id) {
    if (record_->response_id.empty()) record_->response_id.assign(id);
  }
  /// Token counts from the server's usage, where it reported them.
  void Usage(std::optional<std::int64_t> prompt_tokens, std::optional<std::int64_t> completion_tokens) {
    if (completion_tokens) record_->server_output_tokens = completion_tokens;
    if (prompt_tokens) record_->server_prompt_tokens = prompt_tokens;
  }
  /// One data event.
  void OnChunk(const Chunk& chunk);
  /// The request holds its slot no longer (before Done, so a refill is not delayed by closing the record).
  void Freed(std::int64_t done_ns);
  /// The request ended; the record becomes final. A request the target saw succeed without a
  /// single choice chunk fails as "no_chunks", as the reference counts it.
  void Done(const RequestEnd& end);

  /// Whether the answer's text is kept.
  [[nodiscard]] bool keeps_text() const { return keep_text_; }

 private:
  metrics::RequestRecord* record_;
  RequestListener* listener_;
  std::size_t ordinal_;
  bool keep_text_;
  bool freed_ = false;
  bool chunk_usage_consistent_ = true;
  bool chunk_model_consistent_ = true;
};

}  // namespace infermark::loadgen
