// InferenceX's agentic aggregate (`process_agentic_result`): aiperf's artifacts of one agentic row
// (per-request records, run summary, server metrics, server logs) plus the row's identity become
// `<RESULT_FILENAME>.json`, field for field, key for key and rounded as the reference writes it:
// warm-up and failed requests filtered out and accounted, latency, interactivity, QPS, throughput
// and token statistics, the theoretical prefix-cache hit rate, and the server's cache and KV
// figures through the vLLM, Dynamo-vLLM and SGLang adapters.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agentic/profile_export.hpp"
#include "core/json_text.hpp"

namespace infermark::agentic {

/// The row's identity, as the reference reads it from the environment (names in brackets).
struct AgenticIdentity {
  std::string runner_type;             ///< [RUNNER_TYPE] → `hw`.
  std::int64_t conc = 0;               ///< [CONC].
  std::string image;                   ///< [IMAGE].
  std::string model;                   ///< [MODEL].
  std::string model_prefix;            ///< [MODEL_PREFIX] → `infmax_model_prefix`.
  std::string framework;               ///< [FRAMEWORK]; also picks the server-metrics adapter when none is evident.
  std::string precision;               ///< [PRECISION].
  std::string spec_decoding = "none";  ///< [SPEC_DECODING].
  bool disagg = false;                 ///< [DISAGG].
  bool is_multinode = false;           ///< [IS_MULTINODE].
  std::int64_t tp = 1;                 ///< [TP].
  std::int64_t ep = 1;                 ///< [EP_SIZE].
  std::string dp_attention = "false";  ///< [DP_ATTENTION], written as given.
  std::int64_t pp = 1;                 ///< [PP_SIZE] (single node).
  std::int64_t dcp_size = 1;           ///< [DCP_SIZE] (single node).
  std::int64_t pcp_size = 1;           ///< [PCP_SIZE] (single node).
  /// One side of a multinode deployment ([PREFILL_…] / [DECODE_…]).
  struct Workers {
    std::int64_t num_workers = 0;        ///< [*_NUM_WORKERS].
    std::int64_t tp = 0;                 ///< [*_TP].
    std::int64_t pp = 1;                 ///< [*_PP_SIZE].
    std::int64_t dcp_size = 1;           ///< [*_DCP_SIZE].
    std::int64_t pcp_size = 1;           ///< [*_PCP_SIZE].
    std::int64_t ep = 1;                 ///< [*_EP].
    std::string dp_attention = "false";  ///< [*_DP_ATTN].
    std::string hardware;                ///< [*_HARDWARE] (both sides or neither).
  };
  Workers prefill;                 ///< Multinode only.
  Workers decode;                  ///< Multinode only.
  std::string kv_offloading;       ///< [KV_OFFLOADING] (required): "none" or "dram".
  std::string kv_offload_backend;  ///< [KV_OFFLOAD_BACKEND]: empty iff offloading is none.
  /// [KV_OFFLOAD_BACKEND_METADATA]: JSON `{"name"[, "version"]}` naming the backend, required when
  /// offloading is on; written as the aggregate's `kv_offload_backend` (null when offloading is none).
  std::string kv_offload_backend_metadata;
  std::string recipe_fingerprint;      ///< [RECIPE_FINGERPRINT].
  std::string router_metadata;         ///< [ROUTER_METADATA]: JSON `{"name", "version"}`, optional.
  std::string kv_p2p_transfer;         ///< [KV_P2P_TRANSFER], optional.
  std::int64_t total_cpu_dram_gb = 0;  ///< [TOTAL_CPU_DRAM_GB] → `allocated_cpu_dram_gb`.
  std::string result_filename;         ///< [RESULT_FILENAME], without .json.
};

/// Reads the identity from environment variables through `lookup` (nullopt: unset), as the
/// reference does; an empty value counts as unset. Throws InputError (field = the variable) for a
/// number that is not a whole number.
AgenticIdentity IdentityFromEnvironment(const std::function<std::optional<std::string>(const std::string&)>& lookup);
/// The same from this process's environment.
AgenticIdentity IdentityFromEnvironment();

/// Expected output tokens per call, from the trace: key (trace id, turn index), where the trace
/// id is the conversation id up to its first "::" (subagent sessions share their parent's trace).
using ExpectedOutputs = std::map<std::pair<std::string, std::int64_t>, std::int64_t>;

/// What one row's artifact folder holds.
struct AgenticArtifacts {
  std::vector<ProfileRecord> records;     ///< profile_export.jsonl, all rows (warm-up and errors included).
  std::optional<ProfileSummary> summary;  ///< profile_export_aiperf.json, when present.
  Json server_metrics = Json::object();   ///< server_metrics_export.json as read ({} when absent).
  std::vector<std::string> server_logs;   ///< server.log and watchtower-*.out texts (first 64 MiB each).
};

/// Reads `<result_dir>/aiperf_artifacts` (or its first sub-folder holding profile_export.jsonl)
/// and the server logs the reference looks for (`<result_dir>/server.log`, `watchtower-*.out` in
/// result_dir and up to three folders above). Throws InputError when profile_export.jsonl is missing.
AgenticArtifacts ReadAgenticArtifacts(const std::string& result_dir);

/// The aggregate JSON (already rounded: floats to 5 decimals, whole values ≥ 1 as integers).
/// Throws InputError for an identity the reference refuses (offload settings, parallel sizes) or
/// server metrics of no known engine.
Json AgenticAggregate(const AgenticArtifacts& artifacts, const AgenticIdentity& identity,
                      const ExpectedOutputs& expected);

/// Reads the artifacts of `result_dir`, aggregates them and writes `<output_dir>/<result_filename>.json`
/// (indented by 2, as the reference writes it). Returns the path written.
std::string WriteAgenticAggregate(const std::string& result_dir, const std::string& output_dir,
                                  const AgenticIdentity& identity, const ExpectedOutputs& expected);

/// The reference's rounding of one float: Python's `round(x, 5)`, then a whole value of magnitude
/// ≥ 1 becomes an integer. Non-finite values are kept.
Json RoundAggregateNumber(double x);
/// Applies RoundAggregateNumber to every float inside `value`.
void RoundAggregateFloats(Json& value);

/// The stat block the aggregate writes for a sample: mean, p50, p75, p90, p95 (linear
/// interpolation at k = (n−1)·p/100) and the population std (0 for one value); {} when empty.
Json AggregateStats(const std::vector<double>& values);

/// The category of a failed request, as the aggregate counts it: the error's type (or
/// error_type, code, class, status), else the first line of its message up to ':' (≤ 120 chars).
std::string ErrorCategory(const Json& error);

}  // namespace infermark::agentic
