#include "core/host.hpp"

#include <unistd.h>

namespace infermark {

std::string HostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') return "localhost";
  return host;
}

}  // namespace infermark
