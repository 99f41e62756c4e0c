#include "http/detail/output_channel.hpp"

#include "http/detail/flush_queue.hpp"
#include "http/detail/head_writer.hpp"
#include "http/sse_format.hpp"

namespace infermark::http::detail {
namespace {

// A chunk's size is written when the chunk is sealed, into room kept before its data: eight hex
// digits with leading zeros (allowed by RFC 9112's chunk-size = 1*HEXDIG) and CRLF. The chunk
// then needs no copy or second buffer, and everything appended between two writes is one chunk.
constexpr std::size_t kSizeDigits = 8;
constexpr std::string_view kSizePlaceholder = "00000000\r\n";
constexpr std::size_t kMaxChunk = 0xFFFFFFFFu;

}  // namespace

OutputChannel::OutputChannel(OutputLimits limits, FlushQueue& queue, std::weak_ptr<ServerConnection> connection)
    : limits_(limits), queue_(queue), connection_(std::move(connection)) {}

void OutputChannel::ScheduleFlushLocked() {
  // While a write is in flight its completion takes what accumulates; otherwise one flush is queued.
  // Queued under the lock: the queue exists as long as the channel is attached (the server detaches
  // every connection before it frees its loops).
  if (flush_scheduled_ || writing_ || !attached_) return;
  if (auto connection = connection_.lock()) {
    flush_scheduled_ = true;
    queue_.Add(std::move(connection));
  }
}

void OutputChannel::SealChunkLocked() {
  if (chunk_start_ == kNoChunk) return;
  std::size_t size = out_.size() - chunk_start_ - kSizePlaceholder.size();
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < kSizeDigits; ++i) {
    out_[chunk_start_ + kSizeDigits - 1 - i] = kHex[size & 0xF];
    size >>= 4;
  }
  out_.append("\r\n", 2);
  chunk_start_ = kNoChunk;
}

bool OutputChannel::Respond(std::uint64_t exchange, const Response& response) {
  std::lock_guard lock(mutex_);
  if (!CurrentLocked(exchange) || state_ != State::kAwaiting) return false;
  // 1xx, 204 and 304 carry no body (RFC 9110 §6.4.1): neither a length nor the bytes handed in.
  const bool bodiless = response.status < 200 || response.status == 204 || response.status == 304;
  AppendResponseHead(out_, response.status, response.content_type, response.headers,
                     bodiless ? BodyFraming::kNone : BodyFraming::kContentLength, response.body.size(), keep_alive_,
                     http10_);
  if (!bodiless) out_.append(response.body);
  state_ = State::kComplete;
  complete_unreported_ = true;
  on_close_ = nullptr;
  ScheduleFlushLocked();
  return true;
}

bool OutputChannel::StartStream(std::uint64_t exchange, int status, std::string_view content_type,
                                const Headers& headers) {
  std::lock_guard lock(mutex_);
  if (!CurrentLocked(exchange) || state_ != State::kAwaiting) return false;
  // HTTP/1.0 has no chunked encoding: the body runs until the connection closes.
  chunked_ = !http10_;
  if (!chunked_) keep_alive_ = false;
  AppendResponseHead(out_, status, content_type, headers, chunked_ ? BodyFraming::kChunked : BodyFraming::kUntilClose,
                     0, keep_alive_, http10_);
  state_ = State::kStreaming;
  ScheduleFlushLocked();
  return true;
}

SendStatus OutputChannel::Send(std::uint64_t exchange, std::string_view bytes, bool sse_event) {
  std::lock_guard lock(mutex_);
  if (!CurrentLocked(exchange) || state_ != State::kStreaming || abort_ || close_now_) return SendStatus::kClosed;
  // An empty chunk would read as the end of the body.
  if (!bytes.empty() || sse_event) {
    if (chunked_) {
      if (chunk_start_ != kNoChunk && out_.size() - chunk_start_ > kMaxChunk / 2) SealChunkLocked();
      if (chunk_start_ == kNoChunk) {
        chunk_start_ = out_.size();
        out_.append(kSizePlaceholder);
      }
    }
    if (sse_event) {
      AppendSseEvent(out_, bytes);
    } else {
      out_.append(bytes);
    }
  }
  ++events_;
  if (out_.size() + in_flight_ > limits_.max_buffered_bytes) {
    // The peer stopped reading: drop the connection rather than grow without bound.
    close_now_ = true;
    ScheduleFlushLocked();
    return SendStatus::kClosed;
  }
  ScheduleFlushLocked();
  return out_.size() + in_flight_ > limits_.high_water_bytes ? SendStatus::kBackPressure : SendStatus::kOk;
}

void OutputChannel::End(std::uint64_t exchange) {
  std::lock_guard lock(mutex_);
  if (!CurrentLocked(exchange) || state_ != State::kStreaming || abort_ || close_now_) return;
  SealChunkLocked();
  if (chunked_) out_.append("0\r\n\r\n");
  state_ = State::kComplete;
  complete_unreported_ = true;
  on_close_ = nullptr;
  ScheduleFlushLocked();
}

void OutputChannel::Abort(std::uint64_t exchange) {
  std::lock_guard lock(mutex_);
  if (!CurrentLocked(exchange) || state_ == State::kComplete) return;
  abort_ = true;
  ScheduleFlushLocked();
}

bool OutputChannel::Open(std::uint64_t exchange, bool stream) const {
  std::lock_guard lock(mutex_);
  if (!CurrentLocked(exchange)) return false;
  if (stream) return state_ == State::kStreaming && !abort_ && !close_now_;
  return state_ == State::kAwaiting;
}

std::size_t OutputChannel::Buffered() const {
  std::lock_guard lock(mutex_);
  return out_.size() + in_flight_;
}

void OutputChannel::SetOnClose(std::uint64_t exchange, std::function<void()> callback) {
  std::unique_lock lock(mutex_);
  if (!attached_ && exchange == closed_exchange_ && exchange != 0) {
    lock.unlock();
    if (callback) callback();
    return;
  }
  if (!CurrentLocked(exchange) || state_ == State::kComplete) return;
  on_close_ = std::move(callback);
}

void OutputChannel::SetOnWritten(std::uint64_t exchange, WrittenCallback callback) {
  std::lock_guard lock(mutex_);
  if (!CurrentLocked(exchange) || state_ != State::kStreaming) return;
  on_written_ = callback ? std::make_shared<const WrittenCallback>(std::move(callback)) : nullptr;
}

std::uint64_t OutputChannel::BeginExchange(bool keep_alive, bool http10) {
  std::lock_guard lock(mutex_);
  ++exchange_;
  events_ = 0;
  on_written_ = nullptr;
  state_ = State::kAwaiting;
  keep_alive_ = keep_alive;
  http10_ = http10;
  chunked_ = false;
  chunk_start_ = kNoChunk;
  complete_unreported_ = abort_ = false;
  on_close_ = nullptr;
  return exchange_;
}

void OutputChannel::SendInterim(std::string_view bytes) {
  std::lock_guard lock(mutex_);
  out_.append(bytes);
  ScheduleFlushLocked();
}

TakeResult OutputChannel::Take(std::string& into) {
  std::lock_guard lock(mutex_);
  flush_scheduled_ = false;
  TakeResult result;
  if (close_now_) {
    result.close = true;
    return result;
  }
  if (writing_) return result;
  if (queue_.Held()) {
    // The loop's output is held: what is buffered waits in the queue for the last release.
    if (!out_.empty() || chunk_start_ != kNoChunk || complete_unreported_ || abort_) ScheduleFlushLocked();
    return result;
  }
  SealChunkLocked();
  if (out_.empty()) {
    result.finishes_exchange = complete_unreported_;
    complete_unreported_ = false;
    result.close = abort_ && !result.finishes_exchange;
    return result;
  }
  into.swap(out_);
  out_.clear();
  writing_ = true;
  in_flight_ = into.size();
  result.write = true;
  result.finishes_exchange = complete_unreported_;
  complete_unreported_ = false;
  if (on_written_) {
    result.events = events_;
    result.on_written = on_written_;
  }
  return result;
}

void OutputChannel::WriteDone() {
  std::lock_guard lock(mutex_);
  writing_ = false;
  in_flight_ = 0;
}

void OutputChannel::ScheduleFlush() {
  std::lock_guard lock(mutex_);
  if (!out_.empty() || chunk_start_ != kNoChunk || complete_unreported_ || abort_ || close_now_) ScheduleFlushLocked();
}

bool OutputChannel::KeepAlive() const {
  std::lock_guard lock(mutex_);
  return keep_alive_;
}

std::function<void()> OutputChannel::Detach() {
  std::lock_guard lock(mutex_);
  attached_ = false;
  std::function<void()> callback;
  if (state_ == State::kAwaiting || state_ == State::kStreaming) {
    callback = std::move(on_close_);
    closed_exchange_ = exchange_;
  }
  on_close_ = nullptr;
  on_written_ = nullptr;
  state_ = State::kIdle;
  out_.clear();
  out_.shrink_to_fit();
  return callback;
}

}  // namespace infermark::http::detail
