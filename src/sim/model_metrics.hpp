// The performance model's counters as the serving engine would expose them on /metrics: the
// prefix-cache, host-tier and token series under vLLM's names (SGLang's for an SGLang
// deployment), so a predicted agentic point's server figures go through the same aggregation
// as a measured one's.
#pragma once

#include <string>

#include "perfmodel/deployment.hpp"
#include "perfmodel/scheduler.hpp"

namespace infermark::sim {

/// Prometheus text of `stats` for `deployment` (cumulative counters, as a scrape would read them).
std::string ModelMetricsText(const perfmodel::SchedulerStats& stats, const perfmodel::Deployment& deployment);

}  // namespace infermark::sim
