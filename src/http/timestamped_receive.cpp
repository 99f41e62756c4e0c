#include "http/detail/timestamped_receive.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

namespace infermark::http::detail {

namespace {

// The reactor's view of a socket: its registration with epoll. A pointer to the protected member
// of basic_socket, taken through a derived class, then applied to any socket.
struct SocketAccess : Tcp::socket {
  static constexpr auto kImpl = &SocketAccess::impl_;
};

asio::detail::reactor::per_descriptor_data& ReactorData(Tcp::socket& socket) {
  return (socket.*SocketAccess::kImpl).get_implementation().reactor_data_;
}

std::int64_t ToNs(const timespec& t) {
  return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000LL + t.tv_nsec;
}

}  // namespace

TimestampedReceive::TimestampedReceive() : reactor_op(ErrorCode(), &Perform, &Complete) {}

void TimestampedReceive::Start(Tcp::socket& socket, asio::mutable_buffer buffer, std::shared_ptr<void> keep_alive,
                               void* target, Done on_done) {
  if (reactor_ == nullptr) {
    reactor_ = &asio::use_service<asio::detail::reactor>(asio::query(socket.get_executor(), asio::execution::context));
  }
  fd_ = socket.native_handle();
  buffer_ = buffer;
  ec_ = ErrorCode();
  bytes_transferred_ = 0;
  arrival_ns_ = 0;
  keep_alive_ = std::move(keep_alive);
  target_ = target;
  done_ = on_done;
  reactor_->start_op(asio::detail::reactor::read_op, fd_, ReactorData(socket), this, true, true);
}

asio::detail::reactor_op::status TimestampedReceive::Perform(asio::detail::reactor_op* base) {
  auto* op = static_cast<TimestampedReceive*>(base);
  iovec io{op->buffer_.data(), op->buffer_.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr message{};
  message.msg_iov = &io;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t n = 0;
  do {
    n = ::recvmsg(op->fd_, &message, MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return not_done;
    op->ec_ = ErrorCode(errno, boost::system::system_category());
    return done;
  }
  if (n == 0) {
    op->ec_ = asio::error::eof;
    return done_and_exhausted;
  }
  op->bytes_transferred_ = static_cast<std::size_t>(n);
  for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec kernel{};
    std::memcpy(&kernel, CMSG_DATA(c), sizeof kernel);
    // The kernel stamps CLOCK_REALTIME; moved onto the monotonic clock by the clocks' offset now.
    timespec real{}, mono{};
    ::clock_gettime(CLOCK_REALTIME, &real);
    ::clock_gettime(CLOCK_MONOTONIC, &mono);
    op->arrival_ns_ = ToNs(kernel) - ToNs(real) + ToNs(mono);
  }
  // Even a short read leaves the next receive to be tried at once: a close that came in with the
  // bytes raises no further edge of the socket's edge-triggered registration.
  return done;
}

void TimestampedReceive::Complete(void* owner, asio::detail::scheduler_operation* base, const ErrorCode&,
                                  std::size_t) {
  auto* op = static_cast<TimestampedReceive*>(base);
  // Held to the end: the callback may start the next receive on this object, or close its owner.
  const std::shared_ptr<void> keep_alive = std::move(op->keep_alive_);
  if (owner == nullptr) return;  // the loop is being destroyed with the receive pending
  const ErrorCode ec = op->ec_;
  const std::size_t bytes = op->bytes_transferred_;
  const std::int64_t arrival_ns = op->arrival_ns_;
  op->done_(op->target_, ec, bytes, arrival_ns);
}

}  // namespace infermark::http::detail
