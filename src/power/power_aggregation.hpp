// Measured GPU power turned into a result's energy fields exactly as InferenceX's
// utils/aggregate_power.py `run()` does: the benchmark window and counts from the client result,
// per-device integration of the telemetry CSV, the agg record patched in place
// (`power_metric_schema_version: 2`, integer `power_valid`, the metrics only when valid) and the
// `power_validation_<name>.json` sidecar, with the reference's exit status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "power/power_integration.hpp"

namespace infermark::results {

/// The metric keys a power aggregation owns in an agg record, in the order it writes them.
inline constexpr const char* kPowerMetricKeys[] = {
    "avg_power_w",
    "avg_total_gpu_power_w",
    "total_gpu_energy_j",
    "joules_per_successful_query",
    "joules_per_input_token",
    "joules_per_output_token",
    "joules_per_total_token",
};

/// The power metric semantics version written beside `power_valid` (whole-deployment energy).
inline constexpr int kPowerMetricSchemaVersion = 2;

/// What to aggregate (the reference's command-line arguments).
struct PowerRunOptions {
  std::string csv = "/workspace/gpu_metrics.csv";  ///< Telemetry CSV (nvidia-smi or amd-smi).
  /// The client result: `benchmark_start_time_unix`, `benchmark_end_time_unix`, `duration`,
  /// `completed`, `total_input_tokens`, `total_output_tokens`.
  std::string bench_result;
  std::string agg_result;                      ///< The agg record to patch in place.
  std::optional<long long> expected_num_gpus;  ///< TP·PP·PCP of the deployment.
  /// Where the sidecar goes; default `power_validation_<bench stem>.json` beside the client
  /// result (where the reference puts it). AMD accumulator snapshots are found beside the CSV.
  std::optional<std::string> validation_result;
  bool require_power = false;  ///< Exit 1 when power is invalid (REQUIRE_POWER=1 in the reference).
};

/// What one aggregation did.
struct PowerRunOutcome {
  bool power_valid = false;          ///< As written to the agg record and the sidecar.
  std::vector<std::string> reasons;  ///< Reason codes in discovery order (empty when valid).
  /// The derived metrics, unrounded (`avg_power_w`, `avg_total_gpu_power_w`, `total_gpu_energy_j`,
  /// `joules_per_successful_query`, `joules_per_{input,output,total}_token`); empty unless valid.
  Json metrics = Json::object();
  PowerIntegration integration;       ///< Per-GPU counts, gaps and energies.
  std::string validation_path;        ///< The sidecar's path as the reference names it.
  bool validation_written = false;    ///< False when the sidecar could not be written.
  int exit_code = 0;                  ///< The reference's exit status: 1 only with require_power.
  std::vector<std::string> messages;  ///< What the reference prints on standard error.
  std::string summary;                ///< What it prints on standard output when power is valid.
};

/// A client result's window and counts as the power aggregations read them (the reference's
/// BenchmarkData).
struct PowerBenchmark {
  double start = 0;             ///< `benchmark_start_time_unix`.
  double end = 0;               ///< `benchmark_end_time_unix`.
  double duration = 0;          ///< `duration` as reported.
  long long completed = 0;      ///< Successful requests; 0 when not a positive integer.
  long long input_tokens = 0;   ///< `total_input_tokens`; 0 when not a positive integer.
  long long output_tokens = 0;  ///< `total_output_tokens`; 0 when not a positive integer.
};

/// The client result at `path` read as the reference's `_load_benchmark_data`: nullopt with
/// `invalid_benchmark_result` or `invalid_benchmark_window` in `reasons`; else the window with the
/// count and duration problems in `reasons` (`benchmark_duration_mismatch`,
/// `invalid_successful_query_count`, `invalid_{input,output}_token_count`). Throws InputError
/// where the reference fails with a traceback (not UTF-8, not an object).
std::optional<PowerBenchmark> LoadPowerBenchmark(const std::string& path, std::vector<std::string>& reasons);

/// The sidecar's `benchmark_window` object for `bench` (null when absent).
Json PowerBenchmarkWindow(const std::optional<PowerBenchmark>& bench);

/// The agg record at `path` patched in place as the reference's `_patch_power_result`: every key
/// of `owned_keys` removed, `power_metric_schema_version` and `power_valid` set,
/// `power_invalid_reasons` removed, and when valid each metric of `metrics` (in its order) rounded
/// to 3 digits (`_w`, `_j`) or 6. Returns the error where the reference reports
/// `aggregate_result_unwritable`; throws InputError where it fails with a traceback (not an object).
std::optional<std::string> PatchPowerAggregate(const std::string& path, bool power_valid, const Json& metrics,
                                               const std::vector<std::string>& owned_keys);

/// Adds `reason` to `reasons` unless it is there (discovery order kept).
void AddPowerReason(std::vector<std::string>& reasons, const std::string& reason);

/// Runs the aggregation. Bad telemetry, windows or counts are reason codes, never exceptions.
/// Throws InputError where the reference itself fails with a traceback: the client result is
/// JSON but not an object or not UTF-8, the agg record is JSON but not an object, or a path names
/// no file. Known difference: NaN/Infinity literals in the JSON files are read as invalid JSON.
PowerRunOutcome RunPowerAggregation(const PowerRunOptions& options);

/// Records a failure found before any integration, as InferenceX's agentic power adapter does
/// when it has no usable window: the agg record patched as invalid (no metrics), and the sidecar at
/// `options.validation_result` (required) with `reasons`, an empty integration, no accumulator check
/// and the keys of `extra` appended. Exit status 1 only with require_power; never throws for a
/// missing or unwritable file (a message instead).
PowerRunOutcome RecordPowerFailure(const PowerRunOptions& options, const std::vector<std::string>& reasons,
                                   const Json& extra);

/// Python's `round(value, digits)` for a finite double (correctly rounded, ties to even).
double PythonRound(double value, int digits);

}  // namespace infermark::results
