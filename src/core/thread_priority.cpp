#include "core/thread_priority.hpp"

#include <pthread.h>
#include <sched.h>

namespace infermark {

bool RunAtIdlePriority() {
  sched_param param{};
  param.sched_priority = 0;
  return pthread_setschedparam(pthread_self(), SCHED_IDLE, &param) == 0;
}

}  // namespace infermark
