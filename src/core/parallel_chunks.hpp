// Splitting an index range into contiguous chunks that run on threads, results kept in order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <exception>
#include <future>
#include <thread>
#include <vector>

#include "core/fast_heap.hpp"

namespace infermark {

/// std::async on a thread of its own whose heap is tuned first (TuneThreadHeap).
template <typename Fn, typename... Args>
auto RunAsync(Fn fn, Args... args) {
  return std::async(std::launch::async, [fn, args...] {
    TuneThreadHeap();
    return fn(args...);
  });
}

/// The most threads LimitThreadBudget allows (0: no limit).
inline std::atomic<std::size_t> thread_budget_limit{0};

/// Caps ThreadBudget at `threads` for the rest of the process, for a command whose work is too
/// small to repay starting threads; $INFERMARK_THREADS, when set, still wins.
inline void LimitThreadBudget(std::size_t threads) {
  thread_budget_limit.store(std::max<std::size_t>(threads, 1), std::memory_order_relaxed);
}

/// Threads a command may use: $INFERMARK_THREADS when it is a positive number, else the
/// hardware's (at most LimitThreadBudget's).
inline std::size_t ThreadBudget() {
  static const bool from_env = [] {
    const char* env = std::getenv("INFERMARK_THREADS");
    return env != nullptr && *env != '\0';
  }();
  const std::size_t limit = thread_budget_limit.load(std::memory_order_relaxed);
  static const std::size_t budget = [] {
    if (const char* env = std::getenv("INFERMARK_THREADS"); env != nullptr) {
      char* end = nullptr;
      const unsigned long n = std::strtoul(env, &end, 10);
      if (end != env && *end == '\0' && n > 0) return static_cast<std::size_t>(n);
    }
    return std::max<std::size_t>(std::thread::hardware_concurrency(), 1);
  }();
  return limit > 0 && !from_env ? std::min(budget, limit) : budget;
}

/// How many chunks to cut `n` items into: one per thread of the budget (at most `max_chunks`),
/// and none smaller than `min_chunk` items, so small inputs stay on the calling thread.
inline std::size_t ChunkCount(std::size_t n, std::size_t min_chunk, std::size_t max_chunks = 16) {
  const std::size_t cpus = ThreadBudget();
  const std::size_t by_size = std::max<std::size_t>(n / std::max<std::size_t>(min_chunk, 1), 1);
  return std::min({cpus, by_size, std::max<std::size_t>(max_chunks, 1)});
}

/// Calls `fn(begin, end)` for `chunks` contiguous ranges covering [0, n), the first on the calling
/// thread and the others on their own, and returns the results in range order. When several
/// ranges throw, the exception of the earliest one is rethrown: the one a sequential loop over
/// [0, n) would have met first.
template <typename Fn>
auto MapChunks(std::size_t n, std::size_t chunks, Fn fn) -> std::vector<decltype(fn(std::size_t{}, std::size_t{}))> {
  using Result = decltype(fn(std::size_t{}, std::size_t{}));
  chunks = std::clamp<std::size_t>(chunks, 1, std::max<std::size_t>(n, 1));
  std::vector<std::future<Result>> rest;
  for (std::size_t c = 1; c < chunks; ++c) {
    rest.push_back(RunAsync(fn, n * c / chunks, n * (c + 1) / chunks));
  }
  std::vector<Result> out;
  out.reserve(chunks);
  std::exception_ptr first_error;
  try {
    out.push_back(fn(0, n / chunks));
  } catch (...) {
    first_error = std::current_exception();
  }
  for (auto& f : rest) {
    try {
      out.push_back(f.get());
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
  return out;
}

}  // namespace infermark
