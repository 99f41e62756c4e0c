// A fixed set of event-loop threads, one Asio io_context each.
//
// Why one io_context per thread rather than one io_context run by N threads: every connection
// lives on one loop for its whole life, so its handlers never run concurrently and need no strand;
// the loops share no queue, no epoll set and no lock, so they scale with cores and keep each
// connection's data in one core's cache; posting from the loop's own thread is lock-free. The cost
// is that work is not rebalanced once a connection is placed (round robin), which is harmless for
// the many uniform streams of a benchmark. Server and Client each own one; they expose it so the
// engine's scheduler and the load generator's schedule can run timers on the same threads as
// their connections.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace infermark::http {

namespace detail {
struct EventLoopsAccess;
}

/// N threads, each running its own event loop until Stop().
class EventLoops {
 public:
  /// Starts `threads` loops (at least one). Loop i is pinned to cpus[i % cpus.size()] when `cpus`
  /// is not empty; threads are named "<name>-<i>".
  explicit EventLoops(std::size_t threads, std::vector<int> cpus = {}, const std::string& name = "http");
  /// Stops and joins the threads; tasks not yet run are destroyed unrun.
  ~EventLoops();
  EventLoops(const EventLoops&) = delete;
  EventLoops& operator=(const EventLoops&) = delete;

  /// Number of loops.
  std::size_t size() const;
  /// Runs `task` on loop `loop` (any thread may call; from that loop's own thread it runs after
  /// the current handler, never inline).
  void Post(std::size_t loop, std::function<void()> task) const;
  /// Runs `task` on loop `loop` at `when` (or as soon as possible after it).
  void RunAt(std::size_t loop, std::chrono::steady_clock::time_point when, std::function<void()> task) const;
  /// The index of the loop whose thread is calling, or nullopt on any other thread.
  std::optional<std::size_t> CurrentLoop() const;
  /// The next loop in round-robin order (thread-safe).
  std::size_t NextLoop() const;
  /// Stops the loops and joins their threads; idempotent. Must not be called from a loop thread.
  void Stop();

 private:
  friend struct detail::EventLoopsAccess;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infermark::http
