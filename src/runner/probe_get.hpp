// One short GET to a server the runner watches (a worker's /metrics, a router's /health): a
// second to connect and two for the whole answer, so a server that hangs cannot hold the runner.
#pragma once

#include <string>

#include "http/client.hpp"

namespace infermark::runner {

/// GETs `target` from `host`:`port` on a fresh connection and returns the whole answer, or how
/// the request failed (head.status 0 when nothing answered).
http::FetchResult ProbeGet(const std::string& host, int port, const std::string& target);

}  // namespace infermark::runner
