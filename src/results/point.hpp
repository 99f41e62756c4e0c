// One stored benchmark point: its natural key (what was served, where, at which load), the
// processed metrics, and where it came from (provenance).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::results {

/// Whether a point was measured against a server or predicted on the built-in engine's virtual clock.
enum class PointKind { kMeasured, kPredicted };

/// "measured" or "predicted".
const char* PointKindName(PointKind kind);

/// Where a point came from. Empty strings mean "not known".
struct Provenance {
  PointKind kind = PointKind::kMeasured;  ///< Measured or predicted.
  double time_scale = 1.0;        ///< The engine ran the modelled hardware this many times faster (1: real time).
  std::string config_key;         ///< Recipe (master-config key) the point belongs to.
  Json matrix_row;                ///< The matrix row that was run (null when unknown).
  std::string image;              ///< Serving image or engine build.
  std::string engine_flags;       ///< Server command line or engine flags.
  std::string host;               ///< Host (or runner) that produced it.
  std::string infermark_version;  ///< infermark version that produced the result file.
  std::string git_commit;         ///< The commit that infermark was built from ("unknown" outside a checkout).
  std::string metrics_version;    ///< Metric definitions' version (`metrics_version` in the result).
  std::string verdict;            ///< VALID / INVALID (with reasons) when the load generator said so.
  std::string started_at;         ///< Benchmark start, ISO 8601 UTC.
  std::string ended_at;           ///< Benchmark end, ISO 8601 UTC.
  std::string source_path;        ///< File it was read from.
  /// Why the power aggregation judged its power not valid (the reasons of its power_validation
  /// sidecar, e.g. `telemetry_file_missing`); empty when valid, unmeasured or unknown.
  std::vector<std::string> power_invalid_reasons;
  /// What the host added to each figure, from the result's `infermark` block: `{"kind": "exact" |
  /// "client", "figures": {result key: {"abs", "rel"}}, "marks": [{"key", "abs", "rel", "headline",
  /// "cause"}]}`, abs in the result's units (before de-scaling); null when the result has none
  /// (predicted points, older results, other clients).
  Json host_error;
};

/// `scenario_type` of fixed-length points (InferenceX's `fixed-seq-len` scenario).
inline constexpr const char* kFixedSeqLenScenario = "fixed-seq-len";
/// `scenario_type` of agentic-coding points (InferenceX's AgentX trace replay).
inline constexpr const char* kAgenticScenario = "agentic-coding";

/// The natural key of a point: equal keys mean "the same experiment", across runs. Fixed-length
/// points are keyed by their sequence lengths; agentic points have none and are keyed by their
/// KV offload mode instead (users = `conc`).
struct PointKey {
  std::string scenario_type = kFixedSeqLenScenario;  ///< `fixed-seq-len` or `agentic-coding`.
  std::string model;                                 ///< Model id (`model` of the agg record).
  std::string hw;                                    ///< Hardware / runner type.
  std::string framework;                             ///< Serving framework.
  std::string precision;                             ///< Precision.
  std::string spec_decoding;                         ///< Speculative decoding method.
  bool disagg = false;                               ///< Disaggregated prefill/decode.
  std::string topology;            ///< Parallelism, e.g. `tp8-ep1-dpafalse-pp1-dcp1-pcp1` (or prefill/decode pools).
  long long isl = 0;               ///< Input sequence length (0 for agentic points: they have none).
  long long osl = 0;               ///< Output sequence length (0 for agentic points).
  long long conc = 0;              ///< Client concurrency; for agentic points the number of users (live sessions).
  std::string kv_offloading;       ///< Agentic: KV offloading (`none` or `dram`); empty for fixed-length points.
  std::string kv_offload_backend;  ///< Agentic: the offload backend's name (`hicache`…); empty without offloading.

  /// True for an agentic-coding point.
  [[nodiscard]] bool Agentic() const;
  /// Agentic: `kvnone` or `kvdram-<backend>` (as InferenceX's exp-name writes it); empty otherwise.
  [[nodiscard]] std::string OffloadMode() const;

  /// One line that holds every field, the store's unique key within a run.
  [[nodiscard]] std::string Canonical() const;
  /// The key without concurrency: points of one curve share it.
  [[nodiscard]] std::string Curve() const;
  /// (hardware, framework, precision, spec-decoding), and the offload mode for agentic points: one
  /// Pareto frontier per group.
  [[nodiscard]] std::string Group() const;
  /// (model, isl, osl), or (model, agentic-coding): points of one scenario are drawn on one chart.
  [[nodiscard]] std::string Scenario() const;
};

/// One repeat of a point measured several times (`--repeats`): its own result, kept as measured.
struct PointRepeat {
  int index = 0;            ///< 1-based, in the order measured.
  std::string verdict;      ///< That repeat's verdict (VALID / INVALID with reasons).
  std::string started_at;   ///< Its benchmark start, ISO 8601 UTC.
  std::string ended_at;     ///< Its benchmark end, ISO 8601 UTC.
  std::string source_path;  ///< Its result file.
  std::string raw_json;     ///< Its result file's text, verbatim.
  std::string raw_sha256;   ///< SHA-256 of raw_json.
  Json agg;                 ///< Its processed record.
};

/// A point ready to store or stored.
struct Point {
  PointKey key;             ///< Natural key.
  Json agg;                 ///< The processed record (InferenceX agg format), as measured (not de-scaled).
  Provenance provenance;    ///< Where it came from.
  std::string raw_json;     ///< The client result file's text, kept verbatim.
  std::string raw_sha256;   ///< SHA-256 of raw_json.
  std::int64_t id = 0;      ///< Store row id (0 before storing).
  std::int64_t run_id = 0;  ///< Store id of the run it belongs to (filled when read back from a store).
  std::string run_key;      ///< Run it belongs to (filled when read back from a store).
  std::string ingested_at;  ///< When it was stored (filled when read back).
  /// Its repeats when it was measured several times, in order: read from the repeat files beside a
  /// combined result, and back from the store by ResultStore::Points (AllPoints leaves them out:
  /// the record's `repeats` block holds every repeat's figures). Empty for a point measured once.
  std::vector<PointRepeat> repeats;
  std::string receipt_id;   ///< The measurement receipt of the bundle it was ingested from (empty: none).
};

/// The natural key read from an agg record, or from an agentic record (`scenario_type` is
/// `agentic-coding`: no isl/osl, the offload mode instead); throws InputError naming `path` and the
/// missing field.
PointKey KeyFromAgg(const Json& agg, const std::string& path);

/// The figures charts and comparisons use, de-scaled to the modelled hardware for time-scaled runs:
/// throughputs and interactivity divided by the time scale, latencies multiplied by it.
struct PointMetrics {
  double tput_per_gpu = 0;         ///< Total tokens/s per GPU.
  double output_tput_per_gpu = 0;  ///< Output tokens/s per GPU.
  double input_tput_per_gpu = 0;   ///< Input tokens/s per GPU.
  double median_intvty = 0;        ///< Median interactivity, tokens/s per user (1000/median TPOT ms; for
                                   ///< agentic points the full-response one, InferenceX's canonical).
  double median_e2el = 0;          ///< Median end-to-end latency, s.
  double median_ttft = 0;          ///< Median time to first token, s.
  double p99_ttft = 0;             ///< P99 time to first token, s.
  double median_tpot = 0;          ///< Median time per output token, s.
  double p99_itl = 0;              ///< P99 inter-token latency, s.
  // Agentic points (0 for fixed-length ones): interactivity as the slow-tail reciprocal of the
  // matching latency statistic, tokens/s per user.
  double p90_intvty = 0;                   ///< P90 interactivity (canonical, see median_intvty).
  double median_e2e_norm_intvty = 0;       ///< P50 E2E-normalized interactivity (1 / median(E2EL/OSL)).
  double p90_e2e_norm_intvty = 0;          ///< P90 E2E-normalized interactivity.
  double median_full_response_intvty = 0;  ///< P50 full-response interactivity.
  double p90_full_response_intvty = 0;     ///< P90 full-response interactivity.
  double p90_ttft = 0;                     ///< P90 time to first token, s.
  double p90_e2el = 0;                     ///< P90 end-to-end latency, s.
};

/// `point`'s metrics, de-scaled by its provenance's time scale. Missing fields read as 0.
PointMetrics DeScaled(const Point& point);

/// The interactivity a point is charted and compared on by default: median interactivity for
/// fixed-length points, P50 E2E-normalized interactivity for agentic ones (as the dashboard does).
double DefaultInteractivity(const Point& point, const PointMetrics& metrics);

}  // namespace infermark::results
