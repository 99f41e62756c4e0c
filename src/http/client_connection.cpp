#include "http/detail/client_connection.hpp"

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/optional/optional.hpp>
#include <charconv>
#include <exception>
#include <limits>

#include "core/clock.hpp"
#include "http/detail/client_shared.hpp"

namespace infermark::http::detail {

namespace beast_http = boost::beast::http;

namespace {

// A Beast body that stores nothing: every decoded body byte goes straight to the connection, as a
// view into the read buffer.
struct CallbackBody {
  using value_type = ClientConnection*;

  class reader {
   public:
    template <bool kIsRequest, class Fields>
    reader(beast_http::header<kIsRequest, Fields>&, value_type& sink) : sink_(sink) {}
    void init(const boost::optional<std::uint64_t>&, ErrorCode& ec) { ec = {}; }
    template <class ConstBufferSequence>
    std::size_t put(const ConstBufferSequence& buffers, ErrorCode& ec) {
      std::size_t used = 0;
      for (const auto buffer : boost::beast::buffers_range_ref(buffers)) {
        if (!sink_->DeliverBody(std::string_view(static_cast<const char*>(buffer.data()), buffer.size()))) {
          ec = asio::error::operation_aborted;  // a callback failed: stop parsing
          return used;
        }
        used += buffer.size();
      }
      ec = {};
      return used;
    }
    void finish(ErrorCode& ec) { ec = {}; }

   private:
    value_type& sink_;  // a reference: Beast builds the reader before the body is set
  };
};

// Reads start at 4 KiB and double while they come back full, up to 64 KiB, and halve while they
// come back less than a quarter full: a fast single stream gets large reads, 10,000 slow ones keep
// 4 KiB each (the buffer is released when it is empty and far larger than needed).
constexpr std::size_t kClientMinRead = 4096;
constexpr std::size_t kClientMaxRead = 64 * 1024;
constexpr std::size_t kSnippetBytes = 256;

std::int64_t MsToNs(std::chrono::milliseconds ms) {
  return static_cast<std::int64_t>(ms.count()) * 1'000'000;
}

void AppendUnsigned(std::string& out, std::uint64_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  out.append(digits, end);
}

bool MethodHasBody(std::string_view method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

}  // namespace

/// Beast's response parser behind a forward declaration, so the transport files never include it.
class ResponseParser {
 public:
  ResponseParser(ClientConnection* sink, std::size_t max_header_bytes, bool head_request) {
    parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(max_header_bytes, 0xFFFFFFFFu)));
    // Streams are as long as the server makes them. Not boost::none: Beast 1.74 compares the length
    // with the optional, and every length is greater than none.
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    parser.get().body() = sink;
    parser.skip(head_request);
  }
  beast_http::response_parser<CallbackBody> parser;  ///< One response's parser.
};

void DeliverCompletion(ClientLoop& loop, StreamCallbacks callbacks, ClientResult result) {
  loop.completions.emplace_back(std::move(callbacks), std::move(result));
  if (loop.delivering) return;
  loop.delivering = true;
  while (!loop.completions.empty()) {
    auto [c, r] = std::move(loop.completions.front());
    loop.completions.pop_front();
    if (c.on_complete) {
      try {
        c.on_complete(r);
      } catch (...) {
        // a throwing completion callback must not take the loop down
      }
    }
  }
  loop.delivering = false;
}

ClientConnection::ClientConnection(ClientShared& shared, ClientLoop& loop)
    : shared_(shared), loop_(loop), timer_(loop.context), read_size_(kClientMinRead) {}

ClientConnection::~ClientConnection() = default;

void ClientConnection::Register() {
  live_index_ = loop_.live.size();
  loop_.live.push_back(shared_from_this());
}

void ClientConnection::Begin(ClientRequest request, StreamCallbacks callbacks) {
  const std::int64_t now = MonotonicNs();
  const bool reused = phase_ == Phase::kIdle;
  if (reused) LeavePool();
  request_ = std::move(request);
  callbacks_ = std::move(callbacks);
  result_ = ClientResult();
  result_.reused_connection = reused;
  error_snippet_.clear();
  head_reported_ = callback_failed_ = false;
  parser_ = std::make_unique<ResponseParser>(this, shared_.options.max_header_bytes, request_.method == "HEAD");
  const auto timeout = request_.timeout.count() > 0 ? request_.timeout : shared_.options.request_timeout;
  request_deadline_ = timeout.count() > 0 ? now + MsToNs(timeout) : 0;
  last_activity_ns_ = now;
  Bump(loop_.counters.requests);
  if (reused) {
    phase_ = Phase::kActive;
    WriteRequest();
    ArmTimer();
    return;
  }
  phase_ = Phase::kConnecting;
  if (shared_.endpoints.empty()) {
    Fail(ErrorKind::kConnect, shared_.resolve_error);
    return;
  }
  Bump(loop_.counters.connections_opened);
  holds_open_slot_ = true;
  ++loop_.opening;
  connect_deadline_ = now + MsToNs(shared_.options.connect_timeout);
  ArmTimer();
  StartConnect(shared_.endpoints);
}

void ClientConnection::OnConnect(const ErrorCode& ec) {
  if (phase_ != Phase::kConnecting) return;
  if (ec) {
    Fail(ErrorKind::kConnect, "connect to " + shared_.host_header + ": " + ec.message());
    return;
  }
  StartHandshake();
}

void ClientConnection::OnHandshake(const ErrorCode& ec) {
  if (phase_ != Phase::kConnecting) return;
  if (ec) {
    Fail(ErrorKind::kTls, "TLS handshake with " + shared_.host_header + ": " + ec.message());
    return;
  }
  connected_ = true;
  connect_deadline_ = 0;
  phase_ = Phase::kActive;
  ReadMore();
  WriteRequest();
  ArmTimer();
}

void ClientConnection::WriteRequest() {
  // Head and body go out as two buffers of one write: the body is never copied.
  std::string& out = head_buffer_;
  out.clear();
  out.append(request_.method).append(" ").append(request_.target).append(" HTTP/1.1\r\nHost: ");
  out.append(shared_.host_header).append("\r\nUser-Agent: infermark\r\n");
  if (MethodHasBody(request_.method) || !request_.body.empty()) {
    if (!request_.content_type.empty() && IsSendableHeader("Content-Type", request_.content_type)) {
      out.append("Content-Type: ").append(request_.content_type).append("\r\n");
    }
    out.append("Content-Length: ");
    AppendUnsigned(out, request_.body.size());
    out.append("\r\n");
  }
  for (const auto& h : request_.headers) {
    if (IsSendableHeader(h.name, h.value)) out.append(h.name).append(": ").append(h.value).append("\r\n");
  }
  result_.sent_ns = MonotonicNs();
  if (!request_.sent_time_header.empty() && IsSendableHeader(request_.sent_time_header, "0")) {
    out.append(request_.sent_time_header).append(": ");
    AppendUnsigned(out, static_cast<std::uint64_t>(result_.sent_ns));
    out.append("\r\n");
  }
  out.append("\r\n");
  writing_ = true;
  last_activity_ns_ = result_.sent_ns;
  StartWrite({asio::buffer(head_buffer_), asio::buffer(request_.body)});
}

void ClientConnection::OnWrite(const ErrorCode& ec, std::size_t) {
  writing_ = false;
  if (phase_ != Phase::kActive) return;
  if (ec) {
    Fail(ErrorKind::kReset, "sending the request to " + shared_.host_header + ": " + ec.message());
    return;
  }
  request_.body = std::string();  // sent: free it while the response streams
}

void ClientConnection::ReadMore() {
  if (reading_ || phase_ == Phase::kClosed || !connected_) return;
  if (read_buffer_.size() == 0 && read_buffer_.capacity() > 2 * read_size_) read_buffer_.shrink_to_fit();
  reading_ = true;
  StartRead(read_buffer_.prepare(read_size_));
}

bool ClientConnection::KernelTimestamps() const {
  return shared_.options.kernel_timestamps;
}

std::int64_t ClientConnection::KernelTimeToMonotonic(std::int64_t realtime_ns) {
  RealtimeBridge& bridge = loop_.clock;
  const std::uint64_t steps = bridge.steps();
  const std::int64_t mono = bridge.ToMonotonic(realtime_ns);
  if (bridge.steps() != steps) {
    Bump(loop_.counters.clock_steps, bridge.steps() - steps);
    loop_.counters.largest_clock_step_ns.store(static_cast<std::uint64_t>(bridge.largest_step_ns()),
                                               std::memory_order_relaxed);
  }
  return mono;
}

void ClientConnection::OnRead(const ErrorCode& ec, std::size_t bytes, std::int64_t arrival_ns) {
  // The arrival time of these bytes: the kernel's, else now, before any parsing.
  const std::int64_t now = MonotonicNs();
  const std::int64_t arrived = arrival_ns != 0 && arrival_ns <= now ? arrival_ns : now;
  reading_ = false;
  if (phase_ == Phase::kClosed) return;
  if (ec) {
    if (phase_ != Phase::kActive) {
      Close();  // the server closed a pooled connection: it leaves the pool unused
      return;
    }
    const bool any_response = result_.first_byte_ns != 0;
    if (ec == asio::error::eof && parser_ && parser_->parser.got_some()) {
      ErrorCode eof_ec;
      parser_->parser.put_eof(eof_ec);  // a body delimited by the close is complete now
      if (!eof_ec && parser_->parser.is_done()) {
        if (!head_reported_) ReportHead();
        if (phase_ == Phase::kActive) CompleteResponse();
        return;
      }
    }
    if (!any_response) {
      Fail(ErrorKind::kReset, "connection to " + shared_.host_header + " closed before a response (" + ec.message() +
                                  (result_.reused_connection ? ", on a kept-alive connection)" : ")"));
    } else {
      Fail(ErrorKind::kTruncated, "connection to " + shared_.host_header + " ended after " +
                                      std::to_string(result_.body_bytes) + " body bytes, before the response ended (" +
                                      ec.message() + ")");
    }
    return;
  }
  read_buffer_.commit(bytes);
  Bump(loop_.counters.reads);
  if (arrival_ns != 0 && arrival_ns <= now) Bump(loop_.counters.read_delay[DelayBucket(now - arrival_ns)]);
  Bump(loop_.counters.bytes_read, bytes);
  if (bytes == read_size_ && read_size_ < kClientMaxRead) {
    read_size_ *= 2;
  } else if (bytes < read_size_ / 4 && read_size_ > kClientMinRead) {
    read_size_ /= 2;
  }
  if (phase_ != Phase::kActive) {
    Close();  // bytes nobody asked for: the connection cannot be trusted for a next request
    return;
  }
  read_ns_ = arrived;
  last_activity_ns_ = now;
  if (result_.first_byte_ns == 0) result_.first_byte_ns = arrived;
  Parse();
  ReadMore();
}

void ClientConnection::Parse() {
  while (phase_ == Phase::kActive && read_buffer_.size() != 0) {
    auto& parser = parser_->parser;
    ErrorCode ec;
    const std::size_t used = parser.put(read_buffer_.data(), ec);
    read_buffer_.consume(used);
    if (phase_ != Phase::kActive) return;
    if (callback_failed_) {
      Fail(ErrorKind::kCancelled, "a response callback threw: " + callback_error_);
      return;
    }
    if (ec == beast_http::error::need_more) return;
    if (ec) {
      Fail(ErrorKind::kMalformed, "bad response from " + shared_.host_header + ": " + ec.message());
      return;
    }
    if (!head_reported_ && parser.is_header_done()) {
      const int status = static_cast<int>(parser.get().result_int());
      if (status >= 100 && status < 200 && parser.is_done()) {
        // An interim response (100 Continue): the real one follows.
        parser_ = std::make_unique<ResponseParser>(this, shared_.options.max_header_bytes, request_.method == "HEAD");
        continue;
      }
      ReportHead();
      if (phase_ != Phase::kActive) return;
    }
    if (parser.is_done()) {
      CompleteResponse();
      return;
    }
    if (used == 0) return;
  }
}

void ClientConnection::ReportHead() {
  auto& parser = parser_->parser;
  head_reported_ = true;
  ReleaseOpenSlot();
  result_.status = static_cast<int>(parser.get().result_int());
  parser.eager(true);  // the head was parsed alone so on_head runs before the first body bytes
  if (!callbacks_.on_head) return;
  ResponseHead head;
  head.status = result_.status;
  head.received_ns = read_ns_;
  for (const auto& field : parser.get()) {
    head.headers.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  try {
    callbacks_.on_head(head);
  } catch (const std::exception& e) {
    Fail(ErrorKind::kCancelled, std::string("the on_head callback threw: ") + e.what());
  } catch (...) {
    Fail(ErrorKind::kCancelled, "the on_head callback threw");
  }
}

bool ClientConnection::DeliverBody(std::string_view data) {
  result_.body_bytes += data.size();
  if (result_.status >= 400 && error_snippet_.size() < kSnippetBytes) {
    error_snippet_.append(data.substr(0, kSnippetBytes - error_snippet_.size()));
  }
  if (!callbacks_.on_body) return true;
  try {
    callbacks_.on_body(data, read_ns_);
    return true;
  } catch (const std::exception& e) {
    callback_error_ = e.what();
  } catch (...) {
    callback_error_ = "unknown exception";
  }
  callback_failed_ = true;
  return false;
}

void ClientConnection::CompleteResponse() {
  result_.done_ns = read_ns_;
  if (result_.status >= 400) {
    result_.error = ErrorKind::kHttpStatus;
    result_.message = "HTTP " + std::to_string(result_.status);
    if (!error_snippet_.empty()) result_.message += ": " + error_snippet_;
  }
  // Reused only if the server keeps it open, nothing follows the response and the request has
  // been written whole (a server may answer before reading all of a large body).
  const bool reusable = parser_->parser.keep_alive() && read_buffer_.size() == 0 && !writing_;
  Finish(reusable);
}

void ClientConnection::Fail(ErrorKind kind, std::string message) {
  result_.error = kind;
  result_.message = std::move(message);
  result_.done_ns = MonotonicNs();
  Finish(false);
}

void ClientConnection::Finish(bool reusable) {
  auto self = shared_from_this();
  StreamCallbacks callbacks = std::move(callbacks_);
  callbacks_ = StreamCallbacks();
  ClientResult result = std::move(result_);
  parser_.reset();
  if (!writing_) request_ = ClientRequest();  // an aborted write may still point into the body
  request_deadline_ = connect_deadline_ = 0;
  if (reusable && phase_ == Phase::kActive) {
    // Back to the pool before the callback runs, so a request sent from on_complete reuses it.
    phase_ = Phase::kIdle;
    idle_index_ = loop_.idle.size();
    loop_.idle.push_back(self);
  } else {
    Close();
  }
  DeliverCompletion(loop_, std::move(callbacks), std::move(result));
}

void ClientConnection::Cancel(std::string_view why) {
  if (phase_ == Phase::kActive || phase_ == Phase::kConnecting) {
    Fail(ErrorKind::kCancelled, std::string(why));
  } else {
    Close();
  }
}

void ClientConnection::LeavePool() {
  auto& idle = loop_.idle;
  if (idle_index_ < idle.size() && idle[idle_index_].get() == this) {
    auto self = shared_from_this();
    idle[idle_index_] = std::move(idle.back());
    idle[idle_index_]->idle_index_ = idle_index_;
    idle.pop_back();
  }
}

void ClientConnection::ReleaseOpenSlot() {
  if (!holds_open_slot_) return;
  holds_open_slot_ = false;
  --loop_.opening;
  // Posted, not called: this runs inside Finish and Close, and a started request can fail at once.
  if (!loop_.awaiting_open.empty() && !loop_.open_kick_posted) {
    loop_.open_kick_posted = true;
    asio::post(loop_.context, loop_.open_kick);
  }
}

void ClientConnection::Close() {
  if (phase_ == Phase::kClosed) return;
  auto self = shared_from_this();  // the registries may hold the last reference
  ReleaseOpenSlot();
  if (phase_ == Phase::kIdle) LeavePool();
  phase_ = Phase::kClosed;
  CloseTransport();
  timer_.cancel();
  auto& live = loop_.live;
  if (live_index_ < live.size() && live[live_index_].get() == this) {
    live[live_index_] = std::move(live.back());
    live[live_index_]->live_index_ = live_index_;
    live.pop_back();
  }
}

std::int64_t ClientConnection::NextDeadline() const {
  std::int64_t next = 0;
  auto consider = [&next](std::int64_t t) {
    if (t != 0 && (next == 0 || t < next)) next = t;
  };
  if (phase_ == Phase::kConnecting) consider(connect_deadline_);
  if (phase_ == Phase::kConnecting || phase_ == Phase::kActive) {
    consider(request_deadline_);
    if (shared_.options.idle_timeout.count() > 0 && phase_ == Phase::kActive) {
      consider(last_activity_ns_ + MsToNs(shared_.options.idle_timeout));
    }
  }
  return next;
}

void ClientConnection::ArmTimer() {
  // One timer per connection, re-armed only when it fires early or must fire sooner, so the
  // per-read "last activity" update costs one store, not a timer operation.
  const std::int64_t next = NextDeadline();
  if (next == 0 || phase_ == Phase::kClosed) return;
  if (timer_armed_ && armed_ns_ <= next) return;
  timer_armed_ = true;
  armed_ns_ = next;
  const std::uint64_t generation = ++timer_generation_;
  timer_.expires_at(TimePointFromNs(next));
  timer_.async_wait([self = shared_from_this(), generation](const ErrorCode&) { self->OnTimer(generation); });
}

void ClientConnection::OnTimer(std::uint64_t generation) {
  if (generation != timer_generation_) return;
  timer_armed_ = false;
  if (phase_ != Phase::kConnecting && phase_ != Phase::kActive) return;
  const std::int64_t now = MonotonicNs();
  const auto& options = shared_.options;
  if (phase_ == Phase::kConnecting && connect_deadline_ != 0 && now >= connect_deadline_) {
    Fail(ErrorKind::kTimeout, "connect to " + shared_.host_header + " timed out after " +
                                  std::to_string(options.connect_timeout.count()) + " ms");
    return;
  }
  if (request_deadline_ != 0 && now >= request_deadline_) {
    Fail(ErrorKind::kTimeout, "no complete response within the request timeout");
    return;
  }
  if (phase_ == Phase::kActive && options.idle_timeout.count() > 0 &&
      now >= last_activity_ns_ + MsToNs(options.idle_timeout)) {
    Fail(ErrorKind::kTimeout,
         "no data from " + shared_.host_header + " for " + std::to_string(options.idle_timeout.count()) + " ms");
    return;
  }
  ArmTimer();
}

}  // namespace infermark::http::detail
