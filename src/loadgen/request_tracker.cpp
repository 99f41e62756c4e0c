#include "loadgen/request_tracker.hpp"

namespace infermark::loadgen {

void RequestTracker::OnChunk(const Chunk& c) {
  metrics::RequestRecord& r = *record_;
  if (keep_text_ && !c.answer.empty()) r.generated_text.append(c.answer);
  if (!c.choice) {
    if (c.moves_end) r.end_ns = c.at_ns;
    return;
  }
  if (!r.first_chunk_ns) r.first_chunk_ns = c.at_ns;
  if (c.text && !r.first_text_ns) r.first_text_ns = c.at_ns;
  r.end_ns = c.at_ns;
  if (!c.timed) return;
  r.chunk_ns.push_back(c.at_ns);
  // Token counts per chunk are kept only while every chunk carries one.
  if (c.tokens_so_far && chunk_usage_consistent_) {
    r.chunk_tokens.push_back(*c.tokens_so_far);
  } else {
    chunk_usage_consistent_ = false;
  }
}

void RequestTracker::Freed(std::int64_t done_ns) {
  if (freed_) return;
  freed_ = true;
  listener_->OnFreed(ordinal_, done_ns);
}

void RequestTracker::Done(const RequestEnd& end) {
  Freed(end.done_ns);
  metrics::RequestRecord& r = *record_;
  r.done_ns = end.done_ns;
  if (!chunk_usage_consistent_ || r.chunk_tokens.size() != r.chunk_ns.size()) r.chunk_tokens.clear();
  if (!end.error_kind.empty()) {
    r.success = false;
    r.error_kind = end.error_kind;
    r.error = end.error;
  } else if (!r.first_chunk_ns) {
    r.success = false;
    r.error_kind = "no_chunks";
    r.error = "Never received a valid chunk to calculate TTFT.";
  } else {
    r.success = true;
    r.error_kind.clear();
    r.error.clear();
  }
  listener_->OnClosed(ordinal_);
}

}  // namespace infermark::loadgen
