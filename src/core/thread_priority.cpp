#include "core/thread_priority.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace infermark {

bool RunAtIdlePriority() {
  sched_param param{};
  param.sched_priority = 0;
  return pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) == 0;
}

bool YieldToSiblings(int steps) {
  const auto tid = static_cast<id_t>(syscall(SYS_gettid));
  const int now = getpriority(PRIO_PROCESS, tid);
  return setpriority(PRIO_PROCESS, tid, now + steps) == 0;
}

}  // namespace infermark
