// What the client is asked to send, what it reports back while the response streams in, and how
// each request ended.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "http/error_kind.hpp"
#include "http/headers.hpp"

namespace infermark::http {

/// One request. Host, Content-Length and User-Agent are added by the client.
struct ClientRequest {
  std::string method = "POST";                    ///< Method.
  std::string target = "/";                       ///< Path and query.
  std::string content_type = "application/json";  ///< Content-Type of the body; empty sends none.
  std::string body{};                             ///< Body (may be empty).
  Headers headers{};                              ///< Extra fields (e.g. Authorization).
  /// When not empty, a field of this name carrying the send time (ClientResult::sent_ns, MonotonicNs
  /// in decimal) is written with the head: a server on this host learns when the request left.
  std::string sent_time_header{};
  /// Overrides ClientOptions::request_timeout for this request when positive.
  std::chrono::milliseconds timeout{0};
  /// Open a new connection for it even when one is idle (warming a pool up to a size). It still
  /// waits for an opening slot (ClientOptions::max_opening).
  bool new_connection = false;
};

/// The status line and header of a response.
struct ResponseHead {
  int status = 0;                ///< Status code.
  Headers headers{};             ///< Header fields in wire order.
  std::int64_t received_ns = 0;  ///< MonotonicNs() right after the read that completed the header.
};

/// How a request ended; passed to StreamCallbacks::on_complete exactly once.
struct ClientResult {
  ErrorKind error = ErrorKind::kNone;  ///< kNone on success.
  std::string message{};               ///< What went wrong, for people; empty on success.
  int status = 0;                      ///< Response status, 0 when no head arrived.
  std::int64_t sent_ns = 0;            ///< MonotonicNs() just before the request was written (0 if never).
  std::int64_t first_byte_ns = 0;      ///< MonotonicNs() after the first read with response bytes (0 if none).
  std::int64_t done_ns = 0;            ///< MonotonicNs() when the request ended.
  std::uint64_t body_bytes = 0;        ///< Body bytes received (after chunk decoding).
  bool reused_connection = false;      ///< Whether the request went on a kept-alive connection.

  /// Whether the request succeeded.
  bool ok() const { return error == ErrorKind::kNone; }
};

/// Callbacks of one request, all called on the loop thread that runs the request, in the order
/// on_head, on_body (zero or more times), on_complete (exactly once, also on failure). They must
/// not block. Any may be empty.
struct StreamCallbacks {
  /// The response head arrived.
  std::function<void(const ResponseHead& head)> on_head{};
  /// Body bytes, de-chunked: a view into the connection's read buffer, valid during the call only.
  /// `received_ns` is the arrival time, on the MonotonicNs() clock, of the socket read that
  /// delivered them, taken before any parsing: the kernel's receive timestamp of the read's last
  /// bytes (ClientOptions::kernel_timestamps) or the time right after the read returned.
  std::function<void(std::string_view data, std::int64_t received_ns)> on_body{};
  /// The request ended, successfully or not.
  std::function<void(const ClientResult& result)> on_complete{};
};

}  // namespace infermark::http
