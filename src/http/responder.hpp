// The handle a handler answers its request through: a full response or the start of a stream,
// now or later, from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "http/headers.hpp"
#include "http/response.hpp"
#include "http/stream_writer.hpp"

namespace infermark::http {

namespace detail {
struct ResponderAccess;
}

/// Answers one request exactly once. Thread-safe and move-only; a Responder destroyed without
/// answering sends "500 Internal Server Error", so a connection never hangs on a forgotten request.
class Responder {
 public:
  /// A responder attached to nothing (answers are dropped).
  Responder() = default;
  ~Responder();
  Responder(Responder&& other) noexcept;
  Responder& operator=(Responder&& other) noexcept;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  /// Sends a complete response. Returns false when the connection is gone or it was answered.
  bool Respond(const Response& response);
  /// Shorthand: status, Content-Type and body.
  bool Respond(int status, std::string_view content_type, std::string_view body);
  /// Sends the response head with chunked transfer encoding (close-delimited for HTTP/1.0 clients)
  /// and returns the writer for its body. The head is written right away, before any event. The
  /// returned writer is closed when the connection is gone or the request was already answered.
  StreamWriter StartStream(int status = 200, std::string_view content_type = "text/event-stream",
                           const Headers& headers = {});
  /// Whether the connection can still take the answer.
  bool Open() const;
  /// Calls `callback` once on the loop thread if the connection closes before the response is
  /// complete (for example a client that gives up while the engine is still generating).
  void OnClose(std::function<void()> callback);

 private:
  friend struct detail::ResponderAccess;
  Responder(std::shared_ptr<detail::OutputChannel> channel, std::uint64_t exchange);
  std::shared_ptr<detail::OutputChannel> channel_;
  std::uint64_t exchange_ = 0;
};

}  // namespace infermark::http
