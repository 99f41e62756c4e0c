// Private to src/http: a receive on a plain TCP socket that also takes the kernel's arrival
// timestamp of the bytes (SCM_TIMESTAMPNS), run by the socket's own epoll reactor as a native read
// operation. Asio's async_wait, the other way to get at recvmsg, re-registers the descriptor with
// epoll_ctl on every call (and the wait's completion goes through the scheduler before the read).
// This operation is tried at once, as Asio's own receives are, and when the socket is empty it is
// queued behind the edge-triggered registration the socket already has, with no epoll_ctl.
#pragma once

#include "http/detail/asio.hpp"  // first: the reactor's inline code needs the scheduler complete

#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/reactor_op.hpp>
#include <cstdint>
#include <memory>

namespace infermark::http::detail {

/// One receive at a time, reused: a member of the connection that reads.
class TimestampedReceive final : public asio::detail::reactor_op {
 public:
  /// Called on the loop thread with the outcome: `arrival_ns` on the MonotonicNs() clock, 0 when
  /// the kernel gave no timestamp.
  using Done = void (*)(void* target, const ErrorCode& ec, std::size_t bytes, std::int64_t arrival_ns);

  TimestampedReceive();

  /// Receives into `buffer` from `socket`, then calls `on_done(target, …)`; `keep_alive` (the owner
  /// of this object) is held until then. Not again before `on_done` has run.
  void Start(Tcp::socket& socket, asio::mutable_buffer buffer, std::shared_ptr<void> keep_alive, void* target,
             Done on_done);

 private:
  static status Perform(asio::detail::reactor_op* base);
  static void Complete(void* owner, asio::detail::scheduler_operation* base, const ErrorCode& ignored,
                       std::size_t ignored_bytes);

  asio::detail::reactor* reactor_ = nullptr;
  int fd_ = -1;
  asio::mutable_buffer buffer_;
  std::int64_t arrival_ns_ = 0;
  std::shared_ptr<void> keep_alive_;
  void* target_ = nullptr;
  Done done_ = nullptr;
};

}  // namespace infermark::http::detail
