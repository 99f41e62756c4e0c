#include "http/detail/server_connection.hpp"

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <exception>

#include "core/clock.hpp"
#include "http/detail/responder_access.hpp"
#include "http/detail/server_shared.hpp"

namespace infermark::http::detail {

namespace beast_http = boost::beast::http;

/// Beast's request parser behind a forward declaration, so the transport files never include it.
class RequestParser {
 public:
  explicit RequestParser(const ServerOptions& options) {
    parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(options.max_header_bytes, 0xFFFFFFFFu)));
    parser.body_limit(static_cast<std::uint64_t>(options.max_body_bytes));
    parser.eager(true);
  }
  beast_http::request_parser<beast_http::string_body> parser;  ///< One request's parser.
};

namespace {

constexpr std::size_t kMinRead = 4096;
constexpr std::size_t kMaxRead = 64 * 1024;
// Bytes of a next (pipelined) request kept while a response is in progress; reading pauses above.
constexpr std::size_t kMaxPipelinedBytes = 64 * 1024;
constexpr std::int64_t kLingerNs = 2'000'000'000;

std::int64_t ToNs(std::chrono::milliseconds ms) {
  return static_cast<std::int64_t>(ms.count()) * 1'000'000;
}

int StatusFor(const ErrorCode& ec) {
  if (ec == beast_http::error::header_limit) return 431;
  if (ec == beast_http::error::body_limit) return 413;
  return 400;
}

bool ExpectsContinue(const beast_http::request_parser<beast_http::string_body>& parser) {
  const auto& header = parser.get();
  const auto expect = header[beast_http::field::expect];
  if (expect.size() != 12) return false;
  static constexpr std::string_view kContinue = "100-continue";
  for (std::size_t i = 0; i < 12; ++i) {
    const char c = expect[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != kContinue[i]) return false;
  }
  return true;
}

}  // namespace

ServerConnection::ServerConnection(ServerShared& shared, ServerLoop& loop)
    : shared_(shared), loop_(loop), timer_(loop.context), read_size_(kMinRead) {}

ServerConnection::~ServerConnection() = default;

void ServerConnection::Start() {
  const OutputLimits limits{shared_.options.high_water_bytes,
                            std::min<std::size_t>(shared_.options.max_buffered_bytes, std::size_t{1} << 40)};
  channel_ = std::make_shared<OutputChannel>(limits, loop_.flush_queue, weak_from_this());
  registry_index_ = loop_.live.size();
  loop_.live.push_back(shared_from_this());
  Bump(loop_.counters.accepted);
  Bump(loop_.counters.open);
  phase_ = Phase::kHandshake;
  SetDeadline(MonotonicNs() + ToNs(shared_.options.request_timeout));
  StartHandshake();
}

void ServerConnection::OnHandshake(const ErrorCode& ec) {
  if (phase_ == Phase::kClosed) return;
  if (ec) {
    Close();
    return;
  }
  phase_ = Phase::kWaiting;
  SetDeadline(MonotonicNs() + ToNs(shared_.options.keep_alive_timeout));
  ReadMore();
}

void ServerConnection::ReadMore() {
  if (reading_ || phase_ == Phase::kClosed || phase_ == Phase::kHandshake) return;
  // While a response is in progress the connection keeps reading, to notice a client that goes
  // away (OnClose) and to keep a pipelined next request, but not without bound.
  if (phase_ == Phase::kHandling && read_buffer_.size() >= kMaxPipelinedBytes) return;
  if (read_buffer_.size() == 0 && read_buffer_.capacity() > 2 * read_size_) read_buffer_.shrink_to_fit();
  reading_ = true;
  StartRead(read_buffer_.prepare(read_size_));
}

void ServerConnection::OnRead(const ErrorCode& ec, std::size_t bytes) {
  reading_ = false;
  if (phase_ == Phase::kClosed) return;
  if (ec) {
    Close();  // end of stream or error, in any phase: the peer is gone
    return;
  }
  const std::int64_t now = MonotonicNs();
  read_buffer_.commit(bytes);
  Bump(loop_.counters.bytes_read, bytes);
  if (bytes == read_size_ && read_size_ < kMaxRead) {
    read_size_ *= 2;
  } else if (bytes < read_size_ / 4 && read_size_ > kMinRead) {
    read_size_ /= 2;
  }
  switch (phase_) {
    case Phase::kLingering:
      read_buffer_.clear();
      break;
    case Phase::kWaiting:
    case Phase::kReceiving:
      ParseRequests(now);
      break;
    default:
      break;
  }
  ReadMore();
}

void ServerConnection::ParseRequests(std::int64_t now) {
  while ((phase_ == Phase::kWaiting || phase_ == Phase::kReceiving) && read_buffer_.size() != 0) {
    if (!parser_) {
      parser_ = std::make_unique<RequestParser>(shared_.options);
      continue_sent_ = false;
    }
    if (phase_ == Phase::kWaiting) {
      phase_ = Phase::kReceiving;
      SetDeadline(now + ToNs(shared_.options.request_timeout));
    }
    ErrorCode ec;
    const std::size_t used = parser_->parser.put(read_buffer_.data(), ec);
    read_buffer_.consume(used);
    if (ec && ec != beast_http::error::need_more) {
      RespondError(StatusFor(ec), ec.message());
      return;
    }
    if (parser_->parser.is_done()) {
      Dispatch(now);
      continue;
    }
    if (!continue_sent_ && parser_->parser.is_header_done() && ExpectsContinue(parser_->parser)) {
      continue_sent_ = true;
      channel_->SendInterim("HTTP/1.1 100 Continue\r\n\r\n");
    }
    if (ec || used == 0) return;  // need more bytes
  }
}

void ServerConnection::Dispatch(std::int64_t now) {
  auto message = parser_->parser.release();
  parser_.reset();
  Request request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  request.version = message.version() == 10 ? 10 : 11;
  request.headers.reserve(8);
  for (const auto& field : message)
    request.headers.push_back({std::string(field.name_string()), std::string(field.value())});
  request.body = std::move(message.body());
  request.loop = loop_.index;
  request.received_ns = now;
  request.local_peer = local_peer_;
  phase_ = Phase::kHandling;
  SetDeadline(0);
  Bump(loop_.counters.requests);
  const std::uint64_t exchange = channel_->BeginExchange(message.keep_alive(), request.version == 10);
  const Handler& handler = shared_.Find(request.method, request.Path());
  try {
    handler(request, ResponderAccess::Make(channel_, exchange));
  } catch (...) {
    // The Responder, destroyed by the unwinding, has answered 500 unless the handler answered.
  }
}

void ServerConnection::RespondError(int status, std::string_view message) {
  parser_.reset();
  phase_ = Phase::kHandling;
  SetDeadline(0);
  Bump(loop_.counters.requests);
  const std::uint64_t exchange = channel_->BeginExchange(false, false);
  Response response;
  response.status = status;
  response.content_type = "text/plain";
  response.body = std::string(message) + "\n";
  channel_->Respond(exchange, response);
}

void ServerConnection::Flush() {
  if (phase_ == Phase::kClosed) return;
  HandleTake(channel_->Take(write_buffer_));
}

void ServerConnection::HandleTake(const TakeResult& result) {
  if (result.close) {
    Close();
    return;
  }
  if (result.write) {
    finish_after_write_ = result.finishes_exchange;
    Bump(loop_.counters.writes);
    if (result.on_written) {
      try {
        (*result.on_written)(result.events, MonotonicNs());
      } catch (...) {
        // a failing callback must not take the loop down
      }
    }
    StartWrite(asio::buffer(write_buffer_));
    return;
  }
  if (result.finishes_exchange) FinishExchange();
}

void ServerConnection::OnWrite(const ErrorCode& ec, std::size_t bytes) {
  if (phase_ == Phase::kClosed) return;
  if (ec) {
    Close();
    return;
  }
  Bump(loop_.counters.bytes_written, bytes);
  channel_->WriteDone();
  // Keep the buffer's capacity for the next swap unless one burst made it large.
  if (write_buffer_.capacity() > 1024 * 1024) {
    std::string().swap(write_buffer_);
  } else {
    write_buffer_.clear();
  }
  if (std::exchange(finish_after_write_, false)) FinishExchange();
  if (phase_ == Phase::kClosed || phase_ == Phase::kLingering) return;
  if (shared_.options.flush_interval.count() > 0) {
    channel_->ScheduleFlush();  // what came during the write waits for the next window
  } else {
    HandleTake(channel_->Take(write_buffer_));
  }
}

void ServerConnection::FinishExchange() {
  if (phase_ != Phase::kHandling) return;
  if (!channel_->KeepAlive()) {
    StartLingeringClose();
    return;
  }
  const std::int64_t now = MonotonicNs();
  phase_ = Phase::kWaiting;
  SetDeadline(now + ToNs(shared_.options.keep_alive_timeout));
  ParseRequests(now);  // a pipelined request may be waiting in the buffer
  ReadMore();          // reading may have paused
}

void ServerConnection::StartLingeringClose() {
  // Half-close and drain what the client still sends: closing with unread bytes would make the
  // kernel send a reset that can destroy the response before the client reads it.
  phase_ = Phase::kLingering;
  ShutdownSend();
  read_buffer_.clear();
  SetDeadline(MonotonicNs() + kLingerNs);
  ReadMore();
}

void ServerConnection::Close() {
  if (phase_ == Phase::kClosed) return;
  auto self = shared_from_this();  // the registry may hold the last reference
  phase_ = Phase::kClosed;
  std::function<void()> on_close = channel_ ? channel_->Detach() : nullptr;
  CloseTransport();
  timer_.cancel();
  parser_.reset();
  auto& live = loop_.live;
  if (registry_index_ < live.size() && live[registry_index_].get() == this) {
    live[registry_index_] = std::move(live.back());
    live[registry_index_]->registry_index_ = registry_index_;
    live.pop_back();
    loop_.counters.open.store(loop_.counters.open.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  }
  if (on_close) {
    try {
      on_close();
    } catch (...) {
      // a failing close callback must not take the loop down
    }
  }
}

void ServerConnection::SetDeadline(std::int64_t deadline_ns) {
  // One timer per connection, re-armed only when it fires early or must fire sooner: moving a
  // deadline later (every request) costs nothing.
  deadline_ns_ = deadline_ns;
  if (deadline_ns == 0 || phase_ == Phase::kClosed) return;
  if (timer_armed_ && armed_ns_ <= deadline_ns) return;
  timer_armed_ = true;
  armed_ns_ = deadline_ns;
  const std::uint64_t generation = ++timer_generation_;
  timer_.expires_at(TimePointFromNs(deadline_ns));
  timer_.async_wait([self = shared_from_this(), generation](const ErrorCode&) { self->OnTimer(generation); });
}

void ServerConnection::OnTimer(std::uint64_t generation) {
  if (generation != timer_generation_) return;
  timer_armed_ = false;
  if (phase_ == Phase::kClosed || deadline_ns_ == 0) return;
  if (MonotonicNs() >= deadline_ns_) {
    Close();
    return;
  }
  SetDeadline(deadline_ns_);
}

}  // namespace infermark::http::detail
