// Faults inside infermark, kept apart from bad input (InputError, exit 2) and from runs that ended
// INVALID (exit 1): a broken invariant is a bug, and exit 3 says so. INFERMARK_CHECK guards
// invariants in every build type (a check that vanishes in release builds guards nothing).
#pragma once

#include <stdexcept>
#include <string>

namespace infermark {

/// A bug in infermark: an invariant that did not hold.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Throws InternalError naming the file, line and `what` (a phrase saying what should have held).
[[noreturn]] void FailCheck(const char* file, int line, const std::string& what);

}  // namespace infermark

/// Throws InternalError when `condition` is false.
#define INFERMARK_CHECK(condition, what)                                  \
  do {                                                                    \
    if (!(condition)) ::infermark::FailCheck(__FILE__, __LINE__, (what)); \
  } while (false)
