// How a process of a row ended, in words for a row's reason: its exit status or signal, and the
// end of its log.
#pragma once

#include <string>

namespace infermark::runner {

/// "exited with status N", or "was killed by signal N" for a status of 128 + N.
std::string ExitText(int status);

/// `why` followed by "; log ends: " and the last three lines of the log at `log_path` (`why`
/// alone when the log is empty or unreadable).
std::string WithLogTail(std::string why, const std::string& log_path);

}  // namespace infermark::runner
