// Private: a ClientConnection over a concrete stream (tcp::socket or ssl::stream<tcp::socket>).
// Included only by client_connection_plain.cpp and client_connection_tls.cpp.
#pragma once

#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <memory>
#include <type_traits>
#include <utility>

#include "http/detail/asio.hpp"
#include "http/detail/client_connection.hpp"
#include "http/detail/client_shared.hpp"
#include "http/detail/timestamped_receive.hpp"

namespace infermark::http::detail {

/// The socket operations of a client connection.
template <class Stream>
class ClientTransport final : public ClientConnection {
 public:
  /// Wraps a stream built from `args`.
  template <class... Args>
  ClientTransport(ClientShared& shared, ClientLoop& loop, Args&&... args)
      : ClientConnection(shared, loop), stream_(std::forward<Args>(args)...) {}

 private:
  static constexpr bool kTls = !std::is_same_v<Stream, Tcp::socket>;

  Tcp::socket& Socket() {
    if constexpr (kTls) {
      return stream_.next_layer();
    } else {
      return stream_;
    }
  }
  std::shared_ptr<ClientTransport> Self() { return std::static_pointer_cast<ClientTransport>(shared_from_this()); }

  void StartConnect(const std::vector<Tcp::endpoint>& endpoints) override {
    asio::async_connect(Socket(), endpoints, [self = Self()](const ErrorCode& ec, const Tcp::endpoint&) {
      if (!ec) {
        ErrorCode ignored;
        self->Socket().set_option(Tcp::no_delay(true), ignored);
        if (self->KernelTimestamps() && !kTls) {
          const int on = 1;
          ::setsockopt(self->Socket().native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
        }
      }
      self->OnConnect(ec);
    });
  }
  void StartHandshake() override;  // defined per stream type in its .cpp
  void StartRead(asio::mutable_buffer buffer) override {
    if constexpr (!kTls) {
      if (KernelTimestamps()) {
        receive_.Start(Socket(), buffer, shared_from_this(), this, &ClientTransport::Received);
        return;
      }
    }
    stream_.async_read_some(buffer, [self = Self()](const ErrorCode& ec, std::size_t n) { self->OnRead(ec, n); });
  }
  static void Received(void* self, const ErrorCode& ec, std::size_t bytes, std::int64_t arrival_ns) {
    static_cast<ClientTransport*>(self)->OnRead(ec, bytes, arrival_ns);
  }
  void StartWrite(const std::array<asio::const_buffer, 2>& buffers) override {
    asio::async_write(stream_, buffers, [self = Self()](const ErrorCode& ec, std::size_t n) { self->OnWrite(ec, n); });
  }
  void CloseTransport() override {
    ErrorCode ignored;
    Socket().close(ignored);
  }

  Stream stream_;
  TimestampedReceive receive_;  // plain TCP with kernel timestamps: reads with their arrival time
};

}  // namespace infermark::http::detail
