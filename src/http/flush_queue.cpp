#include "http/detail/flush_queue.hpp"

#include "http/detail/server_connection.hpp"

namespace infermark::http::detail {

void FlushQueue::Add(std::shared_ptr<ServerConnection> connection) {
  std::lock_guard lock(mutex_);
  pending_.push_back(std::move(connection));
  if (!posted_) {
    posted_ = true;
    asio::post(context_, [this] { Drain(); });
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
  std::lock_guard lock(mutex_);
  pending_.clear();
  draining_.clear();
}

}  // namespace infermark::http::detail
