// Private: the TCP socket under a connection's stream, for a plain socket or TLS over one.
#pragma once

#include <type_traits>

#include "http/detail/asio.hpp"

namespace infermark::http::detail {

/// Whether `Stream` is TLS over a socket rather than the socket itself.
template <class Stream>
inline constexpr bool kIsTls = !std::is_same_v<Stream, Tcp::socket>;

/// The socket itself, or the layer under TLS.
template <class Stream>
Tcp::socket& TcpLayer(Stream& stream) {
  if constexpr (kIsTls<Stream>) {
    return stream.next_layer();
  } else {
    return stream;
  }
}

}  // namespace infermark::http::detail
