// Private: how the server builds the Responder handed to a handler.
#pragma once

#include <cstdint>
#include <memory>

#include "http/responder.hpp"

namespace infermark::http::detail {

/// Builds Responders for the connections.
struct ResponderAccess {
  /// A responder answering exchange `exchange` of `channel`.
  static Responder Make(std::shared_ptr<OutputChannel> channel, std::uint64_t exchange) {
    return Responder(std::move(channel), exchange);
  }
};

}  // namespace infermark::http::detail
