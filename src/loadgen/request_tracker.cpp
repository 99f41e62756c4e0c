#include "loadgen/request_tracker.hpp"

namespace infermark::loadgen {

void RequestTracker::OnChunk(const Chunk& c) {
  metrics::RequestRecord& r = *record_;
  if (keep_text_ && !c.answer.empty()) r.generated_text.append(c.answer);
  if (c.model_arrival_ns && !r.model_arrival_ns) r.model_arrival_ns = c.model_arrival_ns;
  if (c.model_ns) r.model_done_ns = c.model_ns;
  if (!c.choice) {
    if (c.moves_end) {
      r.end_ns = c.at_ns;
      r.model_end_ns = c.model_ns;
    }
    return;
  }
  if (!r.first_chunk_ns) {
    r.first_chunk_ns = c.at_ns;
    r.model_first_chunk_ns = c.model_ns;
  }
  if (c.text && !r.first_text_ns) r.first_text_ns = c.at_ns;
  r.end_ns = c.at_ns;
  r.model_end_ns = c.model_ns;
  if (!c.timed) return;
  r.chunk_ns.push_back(c.at_ns);
  // Modelled times are kept only while every timed chunk carries one.
  if (c.model_ns && chunk_model_consistent_) {
    r.chunk_model_ns.push_back(*c.model_ns);
  } else {
    chunk_model_consistent_ = false;
  }
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
  if (!chunk_model_consistent_ || r.chunk_model_ns.size() != r.chunk_ns.size()) r.chunk_model_ns.clear();
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
