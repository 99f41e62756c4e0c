// Prediction of an agentic-coding point: the agentic client (session-tree replay, exactly as a
// measured `bench agentic` runs it) against the performance model on the virtual clock. The
// requests carry their prefix identity, so the model's prefix cache sees what a real engine's
// would; no request text is built. A disaggregated deployment is replayed against every one of
// its workers (DisaggTarget), its prefill workers' prefix caches serving the conversations' turns.
#pragma once

#include "agentic/replay.hpp"
#include "agentic/trace.hpp"
#include "core/json_text.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/disaggregation.hpp"
#include "perfmodel/scheduler.hpp"
#include "sim/disagg_target.hpp"
#include "sim/virtual_target.hpp"

namespace infermark::sim {

/// A predicted agentic run.
struct AgenticPrediction {
  agentic::ReplayRun run;                  ///< Every request's record, on the virtual clock from 0.
  perfmodel::SchedulerStats stats;         ///< The model's counters (prefix-cache hits among them).
  std::int64_t virtual_start_unix_ns = 0;  ///< The Unix time the virtual clock's 0 stands for.
  /// The model's counters over the profiling window as server_metrics_export.json (vLLM's or
  /// SGLang's names), as a measured run scrapes them from the engine.
  Json server_metrics = Json::object();
  /// What the target reports of itself ({} for one deployment; a disaggregated one's workers,
  /// router and KV transfers).
  Json server_report = Json::object();
};

/// Replays `corpus` with `options` against `deployment` in virtual time (text is never built).
AgenticPrediction PredictAgentic(const perfmodel::Deployment& deployment, const agentic::TraceCorpus& corpus,
                                 const agentic::ReplayOptions& options,
                                 const VirtualTargetOptions& target_options = {});

/// A predicted agentic run against a disaggregated deployment.
struct AgenticDisaggPrediction {
  /// The run; its `stats` and `server_metrics` are the prefill workers' counters summed.
  AgenticPrediction agentic;
  TransferStats transfers;       ///< The KV link's counters.
  Json report = Json::object();  ///< The target's description (workers, router, transfers).
};

/// Replays `corpus` with `options` against every worker of `deployment` in virtual time, the
/// router choosing workers by `router`.
AgenticDisaggPrediction PredictAgenticDisagg(const perfmodel::DisaggDeployment& deployment,
                                             const agentic::TraceCorpus& corpus, const agentic::ReplayOptions& options,
                                             RouterPolicy router = RouterPolicy::kKvAware,
                                             const VirtualTargetOptions& target_options = {});

}  // namespace infermark::sim
