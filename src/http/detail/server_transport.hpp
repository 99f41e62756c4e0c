// Private: a ServerConnection over a concrete stream (tcp::socket or ssl::stream<tcp::socket>).
// Included only by server_connection_plain.cpp and server_connection_tls.cpp.
#pragma once

#include <memory>
#include <utility>

#include "http/detail/asio.hpp"
#include "http/detail/server_connection.hpp"
#include "http/detail/tcp_layer.hpp"

namespace infermark::http::detail {

/// The socket operations of a server connection.
template <class Stream>
class ServerTransport final : public ServerConnection {
 public:
  /// Wraps a stream built from `args`.
  template <class... Args>
  ServerTransport(ServerShared& shared, ServerLoop& loop, Args&&... args)
      : ServerConnection(shared, loop), stream_(std::forward<Args>(args)...) {}

 private:
  static constexpr bool kTls = kIsTls<Stream>;

  Tcp::socket& Socket() { return TcpLayer(stream_); }
  std::shared_ptr<ServerTransport> Self() { return std::static_pointer_cast<ServerTransport>(shared_from_this()); }

  void StartHandshake() override {
    ErrorCode ignored;
    Socket().set_option(Tcp::no_delay(true), ignored);  // every event should leave at once
    if constexpr (kTls) {
      stream_.async_handshake(Stream::server, [self = Self()](const ErrorCode& ec) { self->OnHandshake(ec); });
    } else {
      OnHandshake({});
    }
  }
  void StartRead(asio::mutable_buffer buffer) override {
    stream_.async_read_some(buffer, [self = Self()](const ErrorCode& ec, std::size_t n) { self->OnRead(ec, n); });
  }
  void StartWrite(asio::const_buffer buffer) override {
    asio::async_write(stream_, buffer, [self = Self()](const ErrorCode& ec, std::size_t n) { self->OnWrite(ec, n); });
  }
  void ShutdownSend() override {
    ErrorCode ignored;
    Socket().shutdown(Tcp::socket::shutdown_send, ignored);
  }
  void CloseTransport() override {
    ErrorCode ignored;
    Socket().close(ignored);
  }

  Stream stream_;
};

}  // namespace infermark::http::detail
