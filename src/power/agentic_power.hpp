// GPU power of an agentic run as InferenceX's utils/agentic/aggregation/power_adapter.py measures
// it: the window is aiperf's profiling start and end (a naive time read in the UTC offset captured
// beside the telemetry), the denominators come from the successful profiling records, the window
// is written to `agentic_power_window.json` and the power aggregation then patches the agentic
// aggregate and writes `power_validation.json` in the result folder.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "power/power_aggregation.hpp"

namespace infermark::results {

/// The result folder's files the adapter reads and writes.
inline constexpr const char* kAgenticPowerWindowFile = "agentic_power_window.json";            ///< The window written.
inline constexpr const char* kAgenticPowerValidationFile = "power_validation.json";            ///< The sidecar.
inline constexpr const char* kAgenticPowerTimezoneFile = "agentic_power_timezone_offset.txt";  ///< `date +%z`.
inline constexpr const char* kAgenticPowerCsvFile = "gpu_metrics.csv";                         ///< The telemetry.

/// What to measure (the adapter's command-line arguments).
struct AgenticPowerOptions {
  /// Holds `aiperf_artifacts/` (profile_export_aiperf.json, profile_export.jsonl, possibly one
  /// folder down), gpu_metrics.csv and agentic_power_timezone_offset.txt.
  std::string result_dir;
  std::string agg_result;                      ///< The agentic aggregate to patch in place.
  std::optional<long long> expected_num_gpus;  ///< TP·PP·PCP of the deployment.
  bool require_power = false;                  ///< Exit 1 when power is invalid (REQUIRE_POWER).
};

/// The benchmark window of an agentic run, in the client result's keys.
struct AgenticPowerWindow {
  double start = 0;             ///< `benchmark_start_time_unix`.
  double end = 0;               ///< `benchmark_end_time_unix`.
  long long completed = 0;      ///< Successful profiling records.
  long long input_tokens = 0;   ///< Σ input_sequence_length over them.
  long long output_tokens = 0;  ///< Σ output_sequence_length over them.

  /// The window as the adapter writes it (duration = end − start).
  [[nodiscard]] Json ToJson() const;
};

/// The window of the run in `result_dir`, or the one reason code that stops it:
/// profile_artifacts_missing|invalid, profile_window_missing|invalid,
/// profile_timezone_offset_missing|invalid, successful_request_count_invalid,
/// incomplete_token_accounting.
struct AgenticPowerWindowResult {
  std::optional<AgenticPowerWindow> window;  ///< Set when usable.
  std::vector<std::string> reasons;          ///< One code when not.
};

/// Builds the window as the adapter's build_power_window does.
AgenticPowerWindowResult BuildAgenticPowerWindow(const std::string& result_dir);

/// The adapter's run_agentic_power: the window written and the power aggregation run, or the
/// failure recorded (agg patched invalid, sidecar with `window_source: aiperf_profile_lifecycle`;
/// power_window_unwritable when the window cannot be written). Exit status 1 only with
/// require_power when power is invalid.
PowerRunOutcome RunAgenticPower(const AgenticPowerOptions& options);

}  // namespace infermark::results
