#include "http/detail/read_reactor.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <array>
#include <cerrno>

namespace infermark::http::detail {
namespace {

constexpr std::uint32_t kEvents = EPOLLIN | EPOLLRDHUP | EPOLLET;
constexpr int kBatch = 256;  // events taken per epoll_wait; more stay ready for the next one

std::uint64_t Key(std::uint32_t index, std::uint32_t generation) {
  return (static_cast<std::uint64_t>(generation) << 32) | index;
}

}  // namespace

ReadReactor::ReadReactor(asio::io_context& context) : set_(context) {
  const int fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) return;
  ErrorCode ec;
  set_.assign(fd, ec);
  if (ec) {
    ::close(fd);
    return;
  }
  usable_ = true;
}

ReadReactor::~ReadReactor() {
  ErrorCode ignored;
  set_.close(ignored);
}

std::uint64_t ReadReactor::Add(int fd, ReadReady* owner) {
  if (!usable_) return 0;
  std::uint32_t index = 0;
  if (free_.empty()) {
    index = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  } else {
    index = free_.back();
    free_.pop_back();
  }
  Slot& slot = slots_[index];
  slot.owner = owner;
  const std::uint64_t key = Key(index, slot.generation);
  epoll_event event{};
  event.events = kEvents;
  event.data.u64 = key;
  if (::epoll_ctl(set_.native_handle(), EPOLL_CTL_ADD, fd, &event) != 0) {
    slot.owner = nullptr;
    ++slot.generation;
    free_.push_back(index);
    return 0;
  }
  ++added_;
  Arm();
  return key;
}

void ReadReactor::Remove(std::uint64_t key, int fd) {
  const auto index = static_cast<std::uint32_t>(key);
  if (key == 0 || index >= slots_.size() || slots_[index].generation != static_cast<std::uint32_t>(key >> 32)) return;
  epoll_event ignored{};
  ::epoll_ctl(set_.native_handle(), EPOLL_CTL_DEL, fd, &ignored);
  Slot& slot = slots_[index];
  slot.owner = nullptr;
  ++slot.generation;
  free_.push_back(index);
  --added_;
}

void ReadReactor::Arm() {
  if (armed_ || added_ == 0 || !usable_) return;
  armed_ = true;
  set_.async_wait(asio::posix::stream_descriptor::wait_read, [weak = weak_from_this()](const ErrorCode& ec) {
    const auto self = weak.lock();
    if (!self) return;
    self->armed_ = false;
    if (!ec) self->Dispatch();
    if (ec != asio::error::operation_aborted) self->Arm();
  });
}

void ReadReactor::Dispatch() {
  std::array<epoll_event, kBatch> events{};
  int n = 0;
  do {
    n = ::epoll_wait(set_.native_handle(), events.data(), kBatch, 0);
  } while (n < 0 && errno == EINTR);
  for (int i = 0; i < n; ++i) {
    const std::uint64_t key = events[static_cast<std::size_t>(i)].data.u64;
    const auto index = static_cast<std::uint32_t>(key);
    // A socket removed by an owner earlier in this batch may have given its slot to a new one.
    if (index >= slots_.size() || slots_[index].generation != static_cast<std::uint32_t>(key >> 32)) continue;
    const std::uint32_t what = events[static_cast<std::size_t>(i)].events;
    if (ReadReady* owner = slots_[index].owner) owner->OnReadable((what & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0);
  }
}

}  // namespace infermark::http::detail
