// Open-file limit: 10,000 concurrent streams need 10,000 sockets on each side, far above the usual
// soft limit of 1,024, while the hard limit is normally much higher.
#pragma once

#include <cstdint>

namespace infermark::http {

/// Raises the soft RLIMIT_NOFILE to the hard limit (once per process; Server and Client call it)
/// and returns the soft limit in force afterwards.
std::uint64_t RaiseFileLimit();

}  // namespace infermark::http
