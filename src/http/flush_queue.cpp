#include "http/detail/flush_queue.hpp"

#include "http/detail/server_connection.hpp"

namespace infermark::http::detail {

void FlushQueue::Add(std::shared_ptr<ServerConnection> connection) {
  std::lock_guard lock(mutex_);
  pending_.push_back(std::move(connection));
  if (holds_ == 0) PostLocked();
}

void FlushQueue::Hold() {
  std::lock_guard lock(mutex_);
  ++holds_;
}

bool FlushQueue::Held() {
  std::lock_guard lock(mutex_);
  return holds_ > 0;
}

void FlushQueue::Release() {
  std::lock_guard lock(mutex_);
  if (holds_ > 0 && --holds_ == 0 && !pending_.empty()) PostLocked();
}

void FlushQueue::PostLocked() {
  if (posted_) return;
  posted_ = true;
  if (interval_.count() <= 0) {
    asio::post(context_, [this] { Drain(); });
  } else {
    asio::post(context_, [this] {  // the timer belongs to the loop thread
      timer_.expires_after(interval_);
      timer_.async_wait([this](const ErrorCode& ec) {
        if (!ec) Drain();
      });
    });
  }
}

void FlushQueue::Drain() {
  {
    std::lock_guard lock(mutex_);
    draining_.swap(pending_);
    posted_ = false;
  }
  for (auto& connection : draining_) connection->Flush();
  draining_.clear();
}

void FlushQueue::Clear() {
  timer_.cancel();
  std::lock_guard lock(mutex_);
  pending_.clear();
  draining_.clear();
}

}  // namespace infermark::http::detail
