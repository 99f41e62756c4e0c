// Skipping teardown in short-lived commands.
#pragma once

#include <utility>

namespace infermark {

/// Moves `value` to storage that is never freed and returns it. A command that builds a large
/// structure (a parsed catalog, a matrix of rows) and then exits keeps it here: releasing 10^5
/// nodes one by one costs more than building them, and the process exit frees everything at once.
template <typename T>
T& KeepUntilExit(T value) {
  return *new T(std::move(value));  // NOLINT(cppcoreguidelines-owning-memory): intentionally never freed
}

}  // namespace infermark
