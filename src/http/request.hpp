// A request as the server hands it to a handler: plain strings, no Beast types.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/headers.hpp"

namespace infermark::http {

/// One complete HTTP request (header and body) received by the server.
struct Request {
  std::string method{};          ///< Method as received, e.g. "POST".
  std::string target{};          ///< Request target as received: the path and an optional "?query".
  Headers headers{};             ///< Header fields in wire order.
  std::string body{};            ///< The whole body (decoded when it came chunked).
  int version = 11;              ///< 10 for HTTP/1.0, 11 for HTTP/1.1.
  std::size_t loop = 0;          ///< Index of the event loop that owns the connection.
  std::int64_t received_ns = 0;  ///< MonotonicNs() when the read that completed the request returned.
  /// The peer connected from a loopback address: it shares this host's clocks (MonotonicNs).
  bool local_peer = false;

  /// The target up to '?'.
  std::string_view Path() const;
  /// The target after '?', empty when there is none.
  std::string_view Query() const;
  /// The first header field called `name` (case-insensitive), or nullopt.
  std::optional<std::string_view> FindHeader(std::string_view name) const;
};

}  // namespace infermark::http
