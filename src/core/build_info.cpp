// The one translation unit that sees the generated commit header, so that a new commit
// recompiles this file alone.
#include "core/git_commit.hpp"
#include "core/version.hpp"

namespace infermark {

const char* GitCommit() {
  return INFERMARK_GIT_COMMIT;
}

}  // namespace infermark
