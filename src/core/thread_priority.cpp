#include "core/thread_priority.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace infermark {
namespace {

// The first version of the kernel's struct sched_attr (its header clashes with glibc's sched.h).
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime;
  std::uint64_t sched_deadline;
  std::uint64_t sched_period;
};

}  // namespace

bool RunAtIdlePriority() {
  sched_param param{};
  param.sched_priority = 0;
  return pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) == 0;
}

bool RunWithShortSlice(std::chrono::nanoseconds slice) {
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = SCHED_OTHER;
  attr.sched_runtime = static_cast<std::uint64_t>(slice.count());
  return ::syscall(SYS_sched_setattr, 0, &attr, 0U) == 0;
}

}  // namespace infermark
