// Private: the output side of one server connection, shared between the connection (its loop
// thread) and the Responder / StreamWriter handles a handler holds (any thread). Everything a
// handler sends is appended to one buffer under a mutex; the connection swaps that buffer out and
// writes it whole, so sends made while a write is in flight, or before the loop gets round to
// flushing, leave together in one system call and one chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "http/headers.hpp"
#include "http/response.hpp"
#include "http/stream_writer.hpp"

namespace infermark::http::detail {

class ServerConnection;
class FlushQueue;

/// Output bounds of one connection.
struct OutputLimits {
  std::size_t high_water_bytes = 0;    ///< Above this, Send reports kBackPressure.
  std::size_t max_buffered_bytes = 0;  ///< Above this, the connection is closed.
};

/// Reports a write of a stream's output: events in it so far and the time of the write.
using WrittenCallback = std::function<void(std::uint64_t events, std::int64_t write_ns)>;

/// What the connection does after Take().
struct TakeResult {
  bool write = false;              ///< `into` holds bytes to write.
  bool finishes_exchange = false;  ///< Those bytes (or, without bytes, nothing more) end the response.
  bool close = false;              ///< Close the connection now.
  std::uint64_t events = 0;        ///< Stream events accepted up to the end of these bytes.
  std::shared_ptr<const WrittenCallback> on_written;  ///< To call just before writing, when set.
};

/// One connection's pending output and the state of the response being sent.
class OutputChannel {
 public:
  /// `queue` is the connection's loop flush queue; `connection` is handed to it when a flush is due.
  OutputChannel(OutputLimits limits, FlushQueue& queue, std::weak_ptr<ServerConnection> connection);

  // Handler side, any thread. `exchange` names the request being answered; a handle of an earlier
  // request on the same connection no longer matches and is treated as closed.

  /// Appends a whole response; false when not possible (answered already, connection gone).
  bool Respond(std::uint64_t exchange, const Response& response);
  /// Appends a streaming response head; false when not possible.
  bool StartStream(std::uint64_t exchange, int status, std::string_view content_type, const Headers& headers);
  /// Appends body bytes (or one SSE event) of a started stream.
  SendStatus Send(std::uint64_t exchange, std::string_view bytes, bool sse_event);
  /// Appends the end of a started stream.
  void End(std::uint64_t exchange);
  /// Requests a close once what was sent is written.
  void Abort(std::uint64_t exchange);
  /// Whether the exchange can still be answered (`stream`: whether its stream takes bytes).
  bool Open(std::uint64_t exchange, bool stream) const;
  /// Bytes accepted and not yet written.
  std::size_t Buffered() const;
  /// Sets the callback for a close before the response is complete (called at once if it happened).
  void SetOnClose(std::uint64_t exchange, std::function<void()> callback);
  /// Sets the callback told about each write of the exchange's stream.
  void SetOnWritten(std::uint64_t exchange, WrittenCallback callback);

  // Connection side, loop thread.

  /// Starts answering a new request; returns its exchange number.
  std::uint64_t BeginExchange(bool keep_alive, bool http10);
  /// Appends bytes outside any response (100 Continue).
  void SendInterim(std::string_view bytes);
  /// Moves pending output into `into` unless a write is in flight.
  TakeResult Take(std::string& into);
  /// The write of what Take() returned completed.
  void WriteDone();
  /// Queues a flush if anything waits (the deferred alternative to Take() after a write).
  void ScheduleFlush();
  /// Whether the connection may serve another request after the current response.
  bool KeepAlive() const;
  /// The connection closed: refuse everything from now on; returns the close callback to call.
  std::function<void()> Detach();

 private:
  enum class State { kIdle, kAwaiting, kStreaming, kComplete };
  bool CurrentLocked(std::uint64_t exchange) const { return attached_ && exchange == exchange_; }
  void ScheduleFlushLocked();
  void SealChunkLocked();

  const OutputLimits limits_;
  FlushQueue& queue_;
  const std::weak_ptr<ServerConnection> connection_;

  mutable std::mutex mutex_;
  std::string out_;                     // bytes not yet handed to the connection
  std::size_t chunk_start_ = kNoChunk;  // offset of the open chunk's size placeholder
  std::size_t in_flight_ = 0;           // bytes of the write in flight
  std::uint64_t exchange_ = 0;
  std::uint64_t closed_exchange_ = 0;  // exchange that was open when the connection closed
  State state_ = State::kIdle;
  std::function<void()> on_close_;
  std::shared_ptr<const WrittenCallback> on_written_;
  std::uint64_t events_ = 0;  // accepted Send calls of the current stream
  bool attached_ = true;
  bool keep_alive_ = true;
  bool http10_ = false;
  bool chunked_ = false;
  bool flush_scheduled_ = false;
  bool writing_ = false;
  bool complete_unreported_ = false;  // the response ended; the connection has not taken its end yet
  bool abort_ = false;                // close after writing what is pending
  bool close_now_ = false;            // close without writing (overflow)

  static constexpr std::size_t kNoChunk = static_cast<std::size_t>(-1);
};

}  // namespace infermark::http::detail
