// CPU time of the calling thread and of an event loop's thread, for the HTTP benchmarks' CPU columns.
#pragma once

#include <ctime>
#include <future>

#include "http/event_loops.hpp"

namespace infermark::bench {

/// CPU seconds (user + system) the calling thread has used.
inline double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// CPU seconds used so far by the thread of loop 0 (asked on that loop).
inline double LoopCpuSeconds(http::EventLoops& loops) {
  std::promise<double> cpu;
  loops.Post(0, [&cpu] { cpu.set_value(ThreadCpuSeconds()); });
  return cpu.get_future().get();
}

}  // namespace infermark::bench
