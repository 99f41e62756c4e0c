#include "http/event_loops.hpp"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "http/detail/asio.hpp"
#include "http/detail/event_loops_access.hpp"

namespace infermark::http {

namespace {

// Which loop the calling thread runs, so "post to my own loop" needs no lookup.
thread_local const void* current_owner = nullptr;
thread_local std::size_t current_index = 0;

}  // namespace

struct EventLoops::Impl {
  struct Loop {
    // Hint 1: one thread runs this context, so Asio skips locking its private queue on posts from
    // that thread.
    detail::asio::io_context context{1};
    detail::asio::executor_work_guard<detail::asio::io_context::executor_type> guard{context.get_executor()};
    std::thread thread;
  };
  std::vector<std::unique_ptr<Loop>> loops;
  mutable std::atomic<std::size_t> next{0};
  std::mutex stop_mutex;
  bool stopped = false;
};

EventLoops::EventLoops(std::size_t threads, std::vector<int> cpus, const std::string& name)
    : impl_(std::make_unique<Impl>()) {
  if (threads == 0) threads = 1;
  for (std::size_t i = 0; i < threads; ++i) impl_->loops.push_back(std::make_unique<Impl::Loop>());
  for (std::size_t i = 0; i < threads; ++i) {
    Impl::Loop& loop = *impl_->loops[i];
    const void* owner = impl_.get();
    loop.thread = std::thread([&loop, owner, i] {
      current_owner = owner;
      current_index = i;
      // An exception escaping a handler is a bug in that handler; report it and keep serving the
      // other connections rather than take the whole process down.
      while (true) {
        try {
          loop.context.run();
          break;
        } catch (const std::exception& e) {
          std::fprintf(stderr, "infermark: uncaught exception on event loop %zu: %s\n", i, e.what());
        } catch (...) {
          std::fprintf(stderr, "infermark: uncaught exception on event loop %zu\n", i);
        }
      }
    });
    const std::string thread_name = (name + "-" + std::to_string(i)).substr(0, 15);
    pthread_setname_np(loop.thread.native_handle(), thread_name.c_str());
    if (!cpus.empty()) {
      cpu_set_t set;
      CPU_ZERO(&set);
      const auto cpu = static_cast<std::size_t>(cpus[i % cpus.size()]);
      CPU_SET(cpu, &set);
      pthread_setaffinity_np(loop.thread.native_handle(), sizeof set, &set);  // best effort
    }
  }
}

EventLoops::~EventLoops() {
  Stop();
}

std::size_t EventLoops::size() const {
  return impl_->loops.size();
}

void EventLoops::Post(std::size_t loop, std::function<void()> task) const {
  detail::asio::post(impl_->loops[loop % impl_->loops.size()]->context, std::move(task));
}

void EventLoops::RunAt(std::size_t loop, std::chrono::steady_clock::time_point when, std::function<void()> task) const {
  auto& context = impl_->loops[loop % impl_->loops.size()]->context;
  auto timer = std::make_shared<detail::asio::steady_timer>(context, when);
  timer->async_wait([timer, task = std::move(task)](const detail::ErrorCode& ec) {
    if (!ec) task();
  });
}

std::optional<std::size_t> EventLoops::CurrentLoop() const {
  if (current_owner == impl_.get()) return current_index;
  return std::nullopt;
}

std::size_t EventLoops::NextLoop() const {
  return impl_->next.fetch_add(1, std::memory_order_relaxed) % impl_->loops.size();
}

void EventLoops::Stop() {
  std::lock_guard lock(impl_->stop_mutex);
  if (impl_->stopped) return;
  impl_->stopped = true;
  for (auto& loop : impl_->loops) {
    loop->guard.reset();
    loop->context.stop();
  }
  for (auto& loop : impl_->loops) {
    if (loop->thread.joinable()) loop->thread.join();
  }
}

namespace detail {

asio::io_context& EventLoopsAccess::Context(EventLoops& loops, std::size_t loop) {
  return loops.impl_->loops[loop % loops.impl_->loops.size()]->context;
}

}  // namespace detail

}  // namespace infermark::http
