// Private to src/http: the one place the module includes Boost.Asio. Nothing outside src/http
// includes this (public headers expose plain types), so only this module pays Asio's compile time.
#pragma once

// Boost 1.74's asio/awaitable.hpp uses std::exchange without including <utility> (fails under
// g++ 12 when it is reached first); include it here, before any Asio header.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <utility>

namespace infermark::http::detail {

namespace asio = boost::asio;
using ErrorCode = boost::system::error_code;
using Tcp = asio::ip::tcp;

/// A steady_clock time point from MonotonicNs() nanoseconds (same clock).
inline std::chrono::steady_clock::time_point TimePointFromNs(std::int64_t ns) {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

}  // namespace infermark::http::detail
