// What an agentic run leaves on disk: aiperf's artifacts (per-request records, the run summary,
// the server's metrics) under the artifact folder, and InferenceX's agentic aggregate
// `<result_dir>/<result_filename>.json` computed from them, for measured and predicted runs alike.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "agentic/agentic_bench.hpp"
#include "agentic/aggregate.hpp"
#include "agentic/profile_export.hpp"
#include "agentic/replay.hpp"
#include "agentic/trace.hpp"

namespace infermark::agentic {

/// A finished run as the writers need it (measured or predicted).
struct AgenticRunView {
  const TraceCorpus* corpus = nullptr;
  const ReplayRun* run = nullptr;
  double unix_at_zero = 0;                   ///< Unix seconds of the run clock's 0.
  Json server_metrics = Json::object();      ///< server_metrics_export.json's body ({}: none).
  std::vector<std::string> invalid_reasons;  ///< Empty: valid.
  double time_scale = 1;                     ///< The served hardware ran this many times faster than modelled.
  bool predicted = false;                    ///< The answers came from the model on a virtual clock.
};

/// Where and what to write.
struct AgenticOutputOptions {
  std::string result_dir = ".";
  std::string result_filename;  ///< Without .json; empty: agentic_<model basename>_conc<N>.
  std::string artifact_dir;     ///< Empty: <result_dir>/aiperf_artifacts.
  std::string model;            ///< The model named in requests.
  std::size_t concurrency = 0;
  AgenticIdentity identity;  ///< The row's identity in the aggregate (hw, conc, topology, offload…).
};

/// What was written.
struct AgenticOutputs {
  std::string aggregate_path;
  std::string artifact_dir;
  std::vector<std::string> summary;  ///< Lines for people (figures from the aggregate).
  Json aggregate;                    ///< InferenceX's agentic aggregate, as written.
};

/// The identity of a run outside a matrix row: the environment's where set (as the reference
/// reads it), the run's own figures otherwise (conc, model, kv_offloading none, the file name).
AgenticIdentity StandaloneIdentity(const AgenticOutputOptions& options, const std::string& result_filename);

/// Expected output tokens of every call of `corpus`, keyed as the aggregate looks them up.
ExpectedOutputs ExpectedOutputsOf(const TraceCorpus& corpus);

/// aiperf's per-request records of a run (warm-ups marked; calls cut when the run ended are left out).
std::vector<ProfileRecord> ProfileRecords(const AgenticRunView& view);
/// aiperf's run summary (counts over the profiling phase, the theoretical prefix-cache hit in
/// blocks, the phase's start and end, validity).
ProfileSummary SummaryOf(const AgenticRunView& view, const std::vector<ProfileRecord>& records);

/// The view of a measured run.
AgenticRunView ViewOf(const AgenticBench& bench);

/// Writes the artifacts and the aggregate of `view`.
AgenticOutputs WriteAgenticOutputs(const AgenticRunView& view, const AgenticOutputOptions& options);

}  // namespace infermark::agentic
