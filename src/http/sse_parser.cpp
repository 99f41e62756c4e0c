#include "http/sse_parser.hpp"

#include <cstring>

namespace infermark::http {
namespace {

// The first '\r' or '\n' in [p, end), or end. Two memchr passes (vectorized in libc) beat a
// byte loop: a line is found by its '\n', then only that line is searched for a '\r'.
const char* FindLineEnd(const char* p, const char* end) {
  const auto* lf = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
  const char* limit = lf != nullptr ? lf : end;
  const auto* cr = static_cast<const char*>(std::memchr(p, '\r', static_cast<std::size_t>(limit - p)));
  return cr != nullptr ? cr : limit;
}

}  // namespace

SseParser::SseParser(std::size_t max_event_bytes) : max_event_bytes_(max_event_bytes) {}

std::size_t SseParser::PendingBytes() const {
  return line_.size() + (have_data_ ? (in_view_ ? view_.size() : data_.size()) : 0);
}

bool SseParser::Finish() {
  const bool clean = !failed_ && line_.empty() && !have_data_;
  line_.clear();
  data_.clear();
  type_.clear();
  id_.clear();
  view_ = {};
  have_data_ = in_view_ = skip_lf_ = failed_ = false;
  return clean;
}

void SseParser::Dispatch(Callback callback, void* context) {
  if (have_data_) {
    const SseEvent event{in_view_ ? view_ : std::string_view(data_), type_, id_};
    callback(context, event);
    ++events_;
  }
  have_data_ = in_view_ = false;
  view_ = {};
  data_.clear();
  type_.clear();
}

void SseParser::ProcessLine(std::string_view line, bool in_input, Callback callback, void* context) {
  if (line.empty()) {
    Dispatch(callback, context);
    return;
  }
  if (line.front() == ':') return;  // comment (keep-alive pings)
  const std::size_t colon = line.find(':');
  const std::string_view name = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (name == "data") {
    if (!have_data_) {
      have_data_ = true;
      if (in_input) {
        view_ = value;
        in_view_ = true;
      } else {
        data_.assign(value);
      }
      return;
    }
    if (in_view_) {
      data_.assign(view_);
      in_view_ = false;
    }
    data_.push_back('\n');
    data_.append(value);
  } else if (name == "event") {
    type_.assign(value);
  } else if (name == "id") {
    if (value.find('\0') == std::string_view::npos) id_.assign(value);
  }
  // "retry" and unknown fields are ignored, as the spec says.
}

std::size_t SseParser::FeedImpl(std::string_view bytes, Callback callback, void* context) {
  if (failed_) return 0;
  events_ = 0;
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  if (skip_lf_ && p != end) {
    if (*p == '\n') ++p;
    skip_lf_ = false;
  }
  // Moves past the line end at `eol` ("\r\n", "\r" or "\n"); a '\r' at the very end may be the
  // first half of "\r\n", so a '\n' starting the next feed is skipped.
  auto past_line_end = [&](const char* eol) {
    if (*eol == '\r') {
      if (eol + 1 == end) {
        skip_lf_ = true;
        return end;
      }
      if (eol[1] == '\n') return eol + 2;
    }
    return eol + 1;
  };
  if (!line_.empty()) {
    const char* eol = FindLineEnd(p, end);
    line_.append(p, eol);
    if (eol == end) {
      p = end;
    } else {
      p = past_line_end(eol);
      ProcessLine(line_, false, callback, context);
      line_.clear();
    }
  }
  while (p != end) {
    const char* eol = FindLineEnd(p, end);
    if (eol == end) {
      line_.assign(p, end);
      break;
    }
    ProcessLine(std::string_view(p, static_cast<std::size_t>(eol - p)), true, callback, context);
    p = past_line_end(eol);
  }
  // A view into `bytes` must not outlive this call.
  if (in_view_) {
    data_.assign(view_);
    in_view_ = false;
    view_ = {};
  }
  if (PendingBytes() > max_event_bytes_) {
    failed_ = true;
    line_.clear();
    data_.clear();
  }
  return events_;
}

}  // namespace infermark::http
