// The handle through which a handler streams a response body (chunked transfer encoding, usually
// Server-Sent Events) after the handler returned, from any thread or timer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace infermark::http {

namespace detail {
class OutputChannel;
}

/// What became of the bytes handed to StreamWriter::Send / SendEvent.
enum class SendStatus {
  kOk,            ///< Accepted.
  kBackPressure,  ///< Accepted, but more than the high-water mark waits for the socket: slow down.
  kClosed,        ///< Dropped: the response ended, the peer went away, or the server stopped.
};

/// Writes one streaming response. Every method is thread-safe. Sends are appended to the
/// connection's output buffer (no allocation once it has grown to the working size) and written by
/// the connection's event loop: all that accumulates before the loop gets to it goes out in one
/// write system call and one chunk, so a producer that sends to many streams or several events per
/// turn pays one syscall per connection per turn, not one per event. Move-only; destroying a writer
/// whose stream was not ended aborts the response (see Abort).
class StreamWriter {
 public:
  /// A writer attached to nothing: Send returns kClosed.
  StreamWriter() = default;
  ~StreamWriter();
  StreamWriter(StreamWriter&& other) noexcept;
  StreamWriter& operator=(StreamWriter&& other) noexcept;
  StreamWriter(const StreamWriter&) = delete;
  StreamWriter& operator=(const StreamWriter&) = delete;

  /// Appends raw body bytes.
  SendStatus Send(std::string_view bytes);
  /// Appends one SSE event: `data: <line>\n` for each line of `data`, then a blank line.
  SendStatus SendEvent(std::string_view data);
  /// Ends the response (terminating chunk); the connection then serves its next request.
  void End();
  /// Closes the connection once the bytes already sent are written, without ending the response:
  /// the client sees a truncated stream, as when a server dies.
  void Abort();
  /// Whether Send would still accept bytes.
  bool Open() const;
  /// Bytes accepted but not yet written to the socket.
  std::size_t BufferedBytes() const;
  /// Calls `callback` once, on the connection's loop thread, if the connection closes before End()
  /// (peer disconnect, error, server stop); never after End(). Replaces an earlier callback.
  void OnClose(std::function<void()> callback);
  /// Calls `callback(events, write_ns)` on the connection's loop thread each time output of this
  /// stream is handed to the socket: `events` counts the accepted Send/SendEvent calls whose bytes
  /// are all in that write or earlier ones, `write_ns` is MonotonicNs() just before the write (the
  /// kernel takes the bytes at once unless the socket buffer is full). Gives an emission log the
  /// time bytes left, not the time they were produced. One call per write, not per event.
  void OnWritten(std::function<void(std::uint64_t events, std::int64_t write_ns)> callback);

 private:
  friend class Responder;
  StreamWriter(std::shared_ptr<detail::OutputChannel> channel, std::uint64_t exchange);
  std::shared_ptr<detail::OutputChannel> channel_;
  std::uint64_t exchange_ = 0;
};

}  // namespace infermark::http
