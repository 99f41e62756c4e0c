#include "runner/exit_reason.hpp"

#include "runner/readiness.hpp"

namespace infermark::runner {

std::string ExitText(int status) {
  return status >= 128 ? "was killed by signal " + std::to_string(status - 128)
                       : "exited with status " + std::to_string(status);
}

std::string WithLogTail(std::string why, const std::string& log_path) {
  const std::string tail = LogTail(log_path, 3);
  if (!tail.empty()) why += "; log ends: " + tail;
  return why;
}

}  // namespace infermark::runner
