#include "core/internal_error.hpp"

namespace infermark {

void FailCheck(const char* file, int line, const std::string& what) {
  throw InternalError(std::string(file) + ":" + std::to_string(line) + ": " + what);
}

}  // namespace infermark
