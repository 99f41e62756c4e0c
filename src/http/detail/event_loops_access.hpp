// Private: the io_context behind one of the public EventLoops' loops.
#pragma once

#include <cstddef>

#include "http/detail/asio.hpp"
#include "http/event_loops.hpp"

namespace infermark::http::detail {

/// Reaches into EventLoops for the module's own connections and timers.
struct EventLoopsAccess {
  /// The io_context run by loop `loop`.
  static asio::io_context& Context(EventLoops& loops, std::size_t loop);
};

}  // namespace infermark::http::detail
