// Private: a ClientConnection over a concrete stream (tcp::socket or ssl::stream<tcp::socket>).
// Included only by client_connection_plain.cpp and client_connection_tls.cpp.
#pragma once

#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "http/detail/asio.hpp"
#include "http/detail/client_connection.hpp"
#include "http/detail/client_shared.hpp"
#include "http/detail/tcp_layer.hpp"

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
  static constexpr bool kTls = kIsTls<Stream>;

  Tcp::socket& Socket() { return TcpLayer(stream_); }
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
        Socket().async_wait(Tcp::socket::wait_read,
                            [self = Self(), buffer](const ErrorCode& ec) { self->ReadWithTimestamp(ec, buffer); });
        return;
      }
    }
    stream_.async_read_some(buffer, [self = Self()](const ErrorCode& ec, std::size_t n) { self->OnRead(ec, n); });
  }

  // Reads what the socket holds with recvmsg, to get the kernel's receive timestamp of the last
  // bytes read (SCM_TIMESTAMPNS, on CLOCK_REALTIME), moved onto the monotonic clock.
  void ReadWithTimestamp(const ErrorCode& wait_ec, asio::mutable_buffer buffer) {
    if (wait_ec) {
      OnRead(wait_ec, 0);
      return;
    }
    iovec io{buffer.data(), buffer.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(Socket().native_handle(), &message, MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        StartRead(buffer);  // a spurious wake-up
      } else {
        OnRead(ErrorCode(errno, boost::system::system_category()), 0);
      }
      return;
    }
    if (n == 0) {
      OnRead(asio::error::eof, 0);
      return;
    }
    std::int64_t arrival_ns = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
      timespec kernel{};
      std::memcpy(&kernel, CMSG_DATA(c), sizeof kernel);
      arrival_ns = KernelTimeToMonotonic(kernel.tv_sec * 1'000'000'000LL + kernel.tv_nsec);
    }
    OnRead({}, static_cast<std::size_t>(n), arrival_ns);
  }
  void StartWrite(const std::array<asio::const_buffer, 2>& buffers) override {
    asio::async_write(stream_, buffers, [self = Self()](const ErrorCode& ec, std::size_t n) { self->OnWrite(ec, n); });
  }
  void CloseTransport() override {
    ErrorCode ignored;
    Socket().close(ignored);
  }

  Stream stream_;
};

}  // namespace infermark::http::detail
