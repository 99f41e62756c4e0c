#include "agentic/agentic_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "metrics/request_timeline.hpp"

namespace infermark::agentic {

std::string AgenticTimelineJsonl(const AgenticBench& bench) {
  std::vector<metrics::RequestRecord> records;
  metrics::TimelineColumn session{"session", {}};
  metrics::TimelineColumn input{"input_tokens", {}};
  metrics::TimelineColumn hits{"hit_tokens", {}};
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const ReplayRequest& r : bench.run.requests) {
    if (r.warmup || r.cut) continue;
    records.push_back(r.record);
    std::string conversation = ConversationId(bench.traces.corpus, r);
    conversation = conversation.substr(0, conversation.find("::sa:"));
    session.values.emplace_back(std::to_string(r.lane) + "/" + std::to_string(r.pass) + " " + conversation);
    input.values.emplace_back(r.input_tokens);
    hits.values.emplace_back(r.theoretical_hit_tokens);
    if (r.record.intended_ns) origin = std::min(origin, *r.record.intended_ns);
    if (r.record.sent_ns) origin = std::min(origin, *r.record.sent_ns);
  }
  if (origin == std::numeric_limits<std::int64_t>::max()) origin = 0;
  const double origin_unix = bench.unix_at_zero + static_cast<double>(origin) / 1e9;
  return metrics::RequestTimelineJsonl(records, origin_unix, {session, input, hits});
}

}  // namespace infermark::agentic
