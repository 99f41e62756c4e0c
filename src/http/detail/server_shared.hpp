// Private: state shared by the server and its connections: settings, routes, per-loop registries.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/detail/asio.hpp"
#include "http/detail/counter.hpp"
#include "http/detail/flush_queue.hpp"
#include "http/server.hpp"

namespace infermark::http::detail {

class ServerConnection;

/// Counters of one loop; written by its thread only, read by Stats() from any thread.
struct ServerCounters {
  std::atomic<std::uint64_t> accepted{0};
  std::atomic<std::uint64_t> open{0};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> writes{0};
  std::atomic<std::uint64_t> bytes_written{0};
  std::atomic<std::uint64_t> bytes_read{0};
};

/// Per-loop server state.
struct ServerLoop {
  ServerLoop(asio::io_context& loop_context, std::size_t loop_index, std::chrono::microseconds flush_interval)
      : context(loop_context), index(loop_index), flush_queue(loop_context, flush_interval) {}
  asio::io_context& context;                            ///< The loop's io_context.
  std::size_t index;                                    ///< The loop's index.
  FlushQueue flush_queue;                               ///< Connections with output to write.
  std::vector<std::shared_ptr<ServerConnection>> live;  ///< Open connections (loop thread only).
  ServerCounters counters;                              ///< This loop's counters.
};

/// A handler for one method of one path.
struct Route {
  std::string method;  ///< Exact method.
  std::string path;    ///< Exact path.
  Handler handler;     ///< What handles it.
};

/// Settings, routes and loops of one server.
struct ServerShared {
  ServerOptions options;                           ///< Settings as given.
  std::vector<Route> routes;                       ///< Registered routes.
  Handler fallback;                                ///< For requests no route matches (may be empty).
  std::vector<std::unique_ptr<ServerLoop>> loops;  ///< One per event loop.

  /// The handler for a request: its route, else the fallback, else a built-in 404/405.
  const Handler& Find(std::string_view method, std::string_view path) const;
  Handler not_found;           ///< Built-in 404.
  Handler method_not_allowed;  ///< Built-in 405.
};

}  // namespace infermark::http::detail
