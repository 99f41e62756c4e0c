// An agentic run's requests as the point page's timeline (metrics/request_timeline.hpp), with three
// columns more: the session each call belongs to (its lane's play of a trace, subagent calls in
// their parent's), its input tokens and the tokens of its prefix a previous call of the same play
// had sent (the theoretical prefix-cache hits), so the page draws sessions and the cache hit rate
// over time. Warm-up calls and calls cut at the end are left out, as the aggregate leaves them out.
#pragma once

#include <string>

#include "agentic/agentic_bench.hpp"

namespace infermark::agentic {

/// The timeline of `bench`'s profiled calls as JSON Lines.
std::string AgenticTimelineJsonl(const AgenticBench& bench);

}  // namespace infermark::agentic
