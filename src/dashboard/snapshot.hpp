// The dashboard's in-memory copy of the store: every point with the figures the API serves already
// derived (series label, de-scaled throughputs per GPU, interactivity, latencies in the API's units,
// power, energy and cost per token), and every run. Queries scan it; it is rebuilt when the store
// changes, never patched.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dashboard/latency_axes.hpp"
#include "results/host_error_summary.hpp"
#include "results/prediction_band_fields.hpp"
#include "store/result_store.hpp"

namespace infermark::dashboard {

/// Where a point came from, as the API shows it on hover.
struct PointProvenance {
  std::string image;              ///< Serving image or engine build.
  std::string flags;              ///< Server command line or engine flags.
  std::string host;               ///< Host or runner that produced it.
  std::string infermark_version;  ///< infermark version that produced the result.
  double time_scale = 1;          ///< Modelled hardware ran this many times faster (1: real time).
  std::string created_at;         ///< When the point was stored (ISO 8601 UTC).
  std::string source;             ///< How its run entered the store (`ingest`, `sweep`, `predict`…).
  std::string receipt_id;         ///< The measurement receipt it was ingested with (empty: none).
};

/// A predicted point's model-error bands (p10–p90 of calibration's held-out residuals) in the
/// API's units. Empty `scope`: the point has none (measured points never have any).
struct PointBands {
  std::string scope;                                       ///< Band group: `framework/vendor` or `pooled`.
  std::size_t residuals = 0;                               ///< Held-out residuals behind it.
  std::optional<results::FigureBand> tput_per_gpu;         ///< Total tok/s/GPU.
  std::optional<results::FigureBand> input_tput_per_gpu;   ///< Input tok/s/GPU.
  std::optional<results::FigureBand> output_tput_per_gpu;  ///< Output tok/s/GPU.
  std::optional<results::FigureBand> interactivity;        ///< tok/s/user.
  std::optional<results::FigureBand> e2el_s;               ///< Median end-to-end latency, s.
  std::optional<results::FigureBand> ttft_ms;              ///< Median time to first token, ms.
  std::optional<results::FigureBand> cost_per_m_tokens;    ///< USD per million output tokens.
};

/// One point with every figure the API serves. Optional figures are empty where unknown.
struct DashboardPoint {
  std::int64_t id = 0;      ///< Store id.
  std::int64_t run_id = 0;  ///< Store id of its run.
  std::string run_key;      ///< Its run's key.
  std::string run_label;    ///< Its run's label.
  std::string series;     ///< Chart series: hardware · framework · precision (· spec, · deployment, · predicted).
  std::string model;      ///< Model id.
  std::string hardware;   ///< Hardware key.
  std::string framework;  ///< Serving framework.
  std::string precision;  ///< Precision.
  std::string sequence;   ///< `1k/1k`, `8k/1k`… or `agentic`.
  std::optional<long long> isl;             ///< Input length (empty for agentic points).
  std::optional<long long> osl;             ///< Output length (empty for agentic points).
  bool agentic = false;                     ///< An agentic-coding point (conc = users).
  long long conc = 0;                       ///< Concurrency (users for agentic points).
  std::optional<long long> tp;              ///< Tensor parallelism (single-node points).
  std::optional<long long> ep;              ///< Expert parallelism (single-node points).
  bool dp_attn = false;                     ///< Data-parallel attention.
  bool disagg = false;                      ///< Disaggregated prefill/decode.
  std::optional<long long> prefill_gpus;    ///< GPUs of the prefill pool (multi-node points).
  std::optional<long long> decode_gpus;     ///< GPUs of the decode pool (multi-node points).
  std::string spec_decoding;                ///< Speculative decoding method (`none` without).
  long long num_gpus = 0;                   ///< GPUs the deployment used.
  bool predicted = false;                   ///< Predicted on the virtual clock rather than measured.
  std::string date;                         ///< The point's date (benchmark start, else storage), YYYY-MM-DD.
  double tput_per_gpu = 0;                  ///< Total tok/s/GPU (de-scaled).
  double input_tput_per_gpu = 0;            ///< Input tok/s/GPU.
  double output_tput_per_gpu = 0;           ///< Output tok/s/GPU.
  double interactivity = 0;                 ///< tok/s/user (median; P50 E2E-normalized for agentic points).
  double e2el_s = 0;                        ///< Median end-to-end latency, s.
  double ttft_ms = 0;                       ///< Median time to first token, ms.
  double tpot_ms = 0;                       ///< Median time per output token, ms.
  std::optional<double> w_per_gpu;          ///< Measured average power per GPU, W (valid power only).
  std::optional<double> j_per_token;        ///< Measured energy per output token, J (valid power only).
  std::optional<double> cost_per_m_tokens;  ///< USD per million output tokens from the price table.
  bool valid = true;                        ///< False when its run judged it INVALID (results/point_validity.hpp).
  std::string verdict;                      ///< `VALID`, `INVALID`, or empty when its run gave no verdict.
  std::optional<bool> power_valid;          ///< Whether its power telemetry is valid (empty: none, or predicted).
  /// Why its run judged it INVALID, one broken check each.
  std::vector<std::string> invalid_reasons;
  /// Why its power is not valid, as the power aggregation's sidecar said (empty when unknown).
  std::vector<std::string> power_invalid_reasons;
  /// What the host added to its figures (results/host_error_summary.hpp): kind, the headline figure
  /// it moved most, and the statistics it moved past the tolerance (a chart draws a point hollow
  /// when the statistic it plots is marked).
  results::HostErrorSummary host_error;
  int repeats = 1;            ///< Measurements behind its figures (1: measured once).
  std::string repeat_server;  ///< A repeated point: `same` (one server, back to back) or `fresh`.
  /// A repeated point: each repeat's figures, de-scaled, in repeat order (empty when measured once):
  /// total, input and output tok/s/GPU, interactivity (as `interactivity`), E2E latency (s), TTFT
  /// and TPOT (ms).
  struct Repeats {
    std::vector<double> tput_per_gpu;         ///< Total tok/s/GPU.
    std::vector<double> input_tput_per_gpu;   ///< Input tok/s/GPU.
    std::vector<double> output_tput_per_gpu;  ///< Output tok/s/GPU.
    std::vector<double> interactivity;        ///< tok/s/user.
    std::vector<double> e2el_s;               ///< Median E2E latency, s.
    std::vector<double> ttft_ms;              ///< Median TTFT, ms.
    std::vector<double> tpot_ms;              ///< Median TPOT, ms.
  } repeat_values;                            ///< See Repeats.
  PointProvenance provenance;                 ///< Where it came from.
  PointBands band;                            ///< Its model-error bands (predicted points).
  /// Store ids of the accuracy evaluations of its configuration (results::SameConfiguration).
  std::vector<std::int64_t> evaluation_ids;
  LatencyFigures latency;  ///< TTFT, TPOT, ITL, E2EL and interactivity at median, p90 and p99.
  std::string json;        ///< The point as the API writes it (PointJsonText), filled by LoadSnapshot.
};

/// An accuracy evaluation as the API serves it.
struct DashboardEvaluation {
  results::Evaluation evaluation;       ///< As stored (raw_json left empty).
  std::string run_label;                ///< Its run's label.
  std::vector<std::int64_t> point_ids;  ///< The points of its configuration (in any run).
};

/// A row attempt as the reliability view and the point page serve it.
struct DashboardAttempt {
  results::RowAttempt attempt;           ///< As stored (without its result and logs' tails).
  std::string run_label;                 ///< Its run's label.
  std::optional<std::int64_t> point_id;  ///< The point its row stored in its run, when there is one.
};

/// A run as the API lists it.
struct RunRow {
  std::int64_t id = 0;            ///< Store id.
  std::string key;                ///< Natural key.
  std::string label;              ///< Display name.
  std::string source;             ///< `ingest`, `sweep`, `predict`…
  std::string host;               ///< Host that ran it.
  std::string infermark_version;  ///< infermark version that ran it.
  std::string created_at;         ///< When its first point was stored.
  int points = 0;                 ///< Points stored.
  int predicted_points = 0;       ///< Of which predicted.
};

/// USD per GPU-hour of `hardware` on `date` (YYYY-MM-DD), or nothing when the price table has none.
using PriceLookup = std::function<std::optional<double>(const std::string& hardware, const std::string& date)>;

/// Everything the API reads, as one immutable value.
struct Snapshot {
  std::string store_kind = "sqlite";             ///< `sqlite` or `postgresql`.
  int schema_version = 0;                        ///< The store's schema version.
  std::vector<RunRow> runs;                      ///< Every run, oldest first.
  std::vector<DashboardPoint> points;            ///< Every point, by run then natural key.
  std::vector<DashboardEvaluation> evaluations;  ///< Every evaluation, by run then configuration.
  std::vector<DashboardAttempt> attempts;        ///< Every row attempt, by start time.
  /// The distinct values of the points' filter fields, sorted (what /meta lists), found once at load.
  struct FilterValues {
    std::vector<std::string> model, hardware, framework, precision, sequence, kind;  ///< Each field's values.
  } filter_values;
  std::unordered_map<std::int64_t, std::size_t> point_index;  ///< Each point's place in `points`, by id.

  /// The run `ref` names (its id or its key), or nullptr.
  [[nodiscard]] const RunRow* FindRun(const std::string& ref) const;
  /// The point with id `id`, or nullptr (through `point_index` when it is filled).
  [[nodiscard]] const DashboardPoint* FindPoint(std::int64_t id) const;
};

/// The `sequence` label of a fixed-length point: lengths that are whole multiples of 1024 as `Nk`
/// (`1k/8k`), others as numbers (`1000/200`).
std::string SequenceLabel(long long isl, long long osl);

/// The dashboard's view of stored point `point` of run `run`; `prices` gives the cost per token
/// (empty lookup: no costs).
DashboardPoint DerivePoint(const results::Point& point, const RunRow& run, const PriceLookup& prices);

/// Reads every run, point and evaluation of `store` into a snapshot, deriving the points on the
/// thread budget (core/parallel_chunks.hpp), linking each point and the evaluations of its
/// configuration both ways, and writing each point's JSON text once.
Snapshot LoadSnapshot(results::ResultStore& store, const std::string& store_kind, const PriceLookup& prices);

/// Reads every row attempt of `store` into `snapshot` (whose runs and points are loaded), each
/// linked to the point its row stored in its run: the point of `points` (as read from the store,
/// in snapshot order) whose result file has the attempt's stem.
void LoadAttempts(Snapshot& snapshot, results::ResultStore& store, const std::vector<results::Point>& points);

}  // namespace infermark::dashboard
