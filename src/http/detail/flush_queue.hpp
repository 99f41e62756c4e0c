// Private: connections of one loop that have output to write. Any thread adds to it; the loop
// drains it in one task, so a producer that feeds many streams wakes each loop once, not once per
// connection.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "http/detail/asio.hpp"

namespace infermark::http::detail {

class ServerConnection;

/// Pending flushes of one event loop.
class FlushQueue {
 public:
  /// A queue drained on `context`, at once or, with a positive `interval`, that long after the
  /// first flush became due (see ServerOptions::flush_interval).
  FlushQueue(asio::io_context& context, std::chrono::microseconds interval)
      : context_(context), interval_(interval), timer_(context) {}
  /// Queues a flush of `connection` (any thread).
  void Add(std::shared_ptr<ServerConnection> connection);
  /// While held (calls nest), flushes queue up without waking the loop and no connection of the
  /// loop takes output (see Held); the last Release wakes the loop once for all of them (any thread).
  void Hold();
  void Release();
  /// Whether a hold is on (any thread). A connection asks it before it takes its buffered output,
  /// under its own lock, so output written after a Hold never leaves before the last Release, not
  /// even with a flush queued or a write finishing before the hold began.
  bool Held();
  /// Drops queued connections (after the loop stopped).
  void Clear();

 private:
  void Drain();

  asio::io_context& context_;
  const std::chrono::microseconds interval_;
  asio::steady_timer timer_;  // loop thread only
  std::mutex mutex_;
  std::vector<std::shared_ptr<ServerConnection>> pending_;
  std::vector<std::shared_ptr<ServerConnection>> draining_;  // loop thread only; keeps its capacity
  bool posted_ = false;
  int holds_ = 0;

  void PostLocked();
};

}  // namespace infermark::http::detail
