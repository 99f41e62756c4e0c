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
#include "http/detail/read_reactor.hpp"
#include "http/detail/tcp_layer.hpp"

namespace infermark::http::detail {

/// The socket operations of a client connection. Plain TCP with kernel timestamps reads through
/// the loop's ReadReactor (one recvmsg per read, no epoll_ctl) when the loop has one; TLS and
/// plain reads without timestamps go through Asio.
template <class Stream>
class ClientTransport final : public ClientConnection, private ReadReady {
 public:
  /// Wraps a stream built from `args`.
  template <class... Args>
  ClientTransport(ClientShared& shared, ClientLoop& loop, Args&&... args)
      : ClientConnection(shared, loop), stream_(std::forward<Args>(args)...) {}
  ~ClientTransport() override { LeaveReactor(); }
  ClientTransport(const ClientTransport&) = delete;
  ClientTransport& operator=(const ClientTransport&) = delete;

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
          self->JoinReactor();
        }
      }
      self->OnConnect(ec);
    });
  }
  void StartHandshake() override;  // defined per stream type in its .cpp
  void StartRead(asio::mutable_buffer buffer) override {
    if constexpr (!kTls) {
      if (key_ != 0) {
        pending_ = buffer;
        read_wanted_ = true;
        // Bytes may already wait (the last read filled its buffer): read them from the loop, not
        // from inside the handler that asked.
        if (readable_) asio::post(Socket().get_executor(), [self = Self()] { self->TryRead(); });
        return;
      }
      if (KernelTimestamps()) {
        Socket().async_wait(Tcp::socket::wait_read,
                            [self = Self(), buffer](const ErrorCode& ec) { self->ReadWithTimestamp(ec, buffer); });
        return;
      }
    }
    stream_.async_read_some(buffer, [self = Self()](const ErrorCode& ec, std::size_t n) { self->OnRead(ec, n); });
  }

  void JoinReactor() {
    reactor_ = loop().reads;
    if (auto reactor = reactor_.lock()) key_ = reactor->Add(Socket().native_handle(), this);
  }
  void LeaveReactor() {
    if (key_ == 0) return;
    if (auto reactor = reactor_.lock()) reactor->Remove(key_, Socket().native_handle());
    key_ = 0;
    read_wanted_ = false;
  }
  void OnReadable(bool hangup) override {
    readable_ = true;
    hangup_ = hangup_ || hangup;
    if (read_wanted_) {
      const auto self = Self();  // the read may close the connection and drop the last owner
      TryRead();
    }
  }
  // The reactor's read: what the socket holds, or nothing until its next edge. A read that does
  // not fill the buffer drained the socket, so the next bytes will raise an edge; after a hang-up
  // no edge follows, so reads go on until the end of the stream or the error.
  void TryRead() {
    if (!read_wanted_ || key_ == 0) return;
    std::int64_t arrival_ns = 0;
    const ssize_t n = Receive(pending_, arrival_ns);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        readable_ = false;
        return;
      }
      read_wanted_ = false;
      OnRead(ErrorCode(errno, boost::system::system_category()), 0);
      return;
    }
    read_wanted_ = false;
    if (n == 0) {
      OnRead(asio::error::eof, 0);
      return;
    }
    if (static_cast<std::size_t>(n) < pending_.size() && !hangup_) readable_ = false;
    OnRead({}, static_cast<std::size_t>(n), arrival_ns);
  }

  // Asio's read with the kernel's timestamp, for loops without a reactor.
  void ReadWithTimestamp(const ErrorCode& wait_ec, asio::mutable_buffer buffer) {
    if (wait_ec) {
      OnRead(wait_ec, 0);
      return;
    }
    std::int64_t arrival_ns = 0;
    const ssize_t n = Receive(buffer, arrival_ns);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
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
    OnRead({}, static_cast<std::size_t>(n), arrival_ns);
  }

  // Reads what the socket holds with recvmsg, to get the kernel's receive timestamp of the last
  // bytes read (SCM_TIMESTAMPNS, on CLOCK_REALTIME), moved onto the monotonic clock into
  // `arrival_ns` (left 0 without one). Retries an interrupted call; otherwise as recvmsg.
  ssize_t Receive(asio::mutable_buffer buffer, std::int64_t& arrival_ns) {
    iovec io{buffer.data(), buffer.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t n = 0;
    do {
      n = ::recvmsg(Socket().native_handle(), &message, MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) return n;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
      timespec kernel{};
      std::memcpy(&kernel, CMSG_DATA(c), sizeof kernel);
      arrival_ns = KernelTimeToMonotonic(kernel.tv_sec * 1'000'000'000LL + kernel.tv_nsec);
    }
    return n;
  }
  void StartWrite(const std::array<asio::const_buffer, 2>& buffers) override {
    asio::async_write(stream_, buffers, [self = Self()](const ErrorCode& ec, std::size_t n) { self->OnWrite(ec, n); });
  }
  void CloseTransport() override {
    LeaveReactor();
    ErrorCode ignored;
    Socket().close(ignored);
  }

  Stream stream_;
  std::weak_ptr<ReadReactor> reactor_;  // the loop's, while the socket is in it
  std::uint64_t key_ = 0;               // the socket's key in the reactor; 0: reads go through Asio
  asio::mutable_buffer pending_;        // where the wanted read goes
  bool read_wanted_ = false;            // a read was started and has not completed
  bool readable_ = false;               // the reactor saw bytes not yet read to the end
  bool hangup_ = false;                 // the peer closed or the socket failed
};

}  // namespace infermark::http::detail
