// The host a result was produced on, as results and file names record it.
#pragma once

#include <string>

namespace infermark {

/// This machine's host name (gethostname); "localhost" when it has none.
std::string HostName();

}  // namespace infermark
