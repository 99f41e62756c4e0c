// Private: one epoll set per client loop for the timestamped reads of plain TCP connections.
//
// A streamed token costs the client one read. Waiting for it through Asio (socket.async_wait)
// re-arms the descriptor with epoll_ctl on every wait, so each token cost two system calls, and
// system calls are the client's largest cost at high concurrency. Here every socket is added once,
// edge-triggered, and one Asio wait on the set's own descriptor dispatches all sockets that became
// readable in a batch: a token costs its recvmsg alone.
#pragma once

#include <boost/asio/posix/stream_descriptor.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "http/detail/asio.hpp"

namespace infermark::http::detail {

/// What the reactor tells a socket's owner.
class ReadReady {
 public:
  /// New bytes, the peer's close or an error arrived on the socket (loop thread); `hangup` when
  /// the peer closed or the socket failed, which stays so: reads go on until they say which.
  virtual void OnReadable(bool hangup) = 0;

 protected:
  ~ReadReady() = default;
};

/// The loop's edge-triggered epoll set. Loop thread only, except construction.
class ReadReactor : public std::enable_shared_from_this<ReadReactor> {
 public:
  /// Creates the set on `context`; Usable() is false when the kernel refused it.
  explicit ReadReactor(asio::io_context& context);
  ~ReadReactor();
  ReadReactor(const ReadReactor&) = delete;
  ReadReactor& operator=(const ReadReactor&) = delete;

  /// Whether sockets can be added.
  bool Usable() const { return usable_; }
  /// Adds `fd` and returns its key, or 0 when the kernel refused (the caller reads through Asio).
  /// `owner` must stay valid until Remove(key).
  std::uint64_t Add(int fd, ReadReady* owner);
  /// Takes the socket out; events of it already fetched are dropped. Call before closing `fd`.
  void Remove(std::uint64_t key, int fd);

 private:
  struct Slot {
    ReadReady* owner = nullptr;
    std::uint32_t generation = 1;
  };
  void Arm();
  void Dispatch();

  asio::posix::stream_descriptor set_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_;
  std::size_t added_ = 0;
  bool armed_ = false;
  bool usable_ = false;
};

}  // namespace infermark::http::detail
