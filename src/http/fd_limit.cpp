#include "http/fd_limit.hpp"

#include <sys/resource.h>

#include <mutex>

namespace infermark::http {

std::uint64_t RaiseFileLimit() {
  static std::once_flag once;
  std::call_once(once, [] {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
    if (limit.rlim_cur < limit.rlim_max) {
      limit.rlim_cur = limit.rlim_max;
      setrlimit(RLIMIT_NOFILE, &limit);  // failure leaves the old limit; connections beyond it fail as data
    }
  });
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

}  // namespace infermark::http
