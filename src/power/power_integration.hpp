// GPU power integrated over a benchmark window exactly as InferenceX's utils/aggregate_power.py
// (`integrate_power`): per device, trapezoids over the samples inside the window plus linearly
// interpolated power at its two edges; validity with the reference's reason codes, in the order
// it finds them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace infermark::results {

/// The reference's largest allowed gap between a device's samples around the window, seconds.
inline constexpr double kDefaultMaxSampleGapS = 3.0;

/// One power sample of one device.
struct PowerSample {
  double time_unix = 0;  ///< Unix seconds.
  double watts = 0;      ///< Board power.
};

/// What integrating one telemetry stream found (the reference's PowerIntegration).
struct PowerIntegration {
  bool valid = false;                          ///< No reason was found.
  std::vector<std::string> reasons;            ///< Reason codes, each once, in discovery order.
  std::optional<long long> expected_num_gpus;  ///< The GPU count asked for, when one was.
  std::vector<std::string> observed_gpu_ids;   ///< GPUs with usable samples, numeric ids first.
  /// Distinct sample times per GPU (duplicates averaged), in observed order.
  std::vector<std::pair<std::string, long long>> per_gpu_sample_counts;
  /// Largest gap between consecutive samples from the last at or before the start to the first at
  /// or after the end, per bracketed GPU.
  std::vector<std::pair<std::string, double>> per_gpu_max_sample_gap_s;
  std::vector<std::pair<std::string, double>> per_gpu_energy_j;  ///< Energy per bracketed GPU, J.
  /// Per GPU, its problems (`insufficient_power_samples`, `benchmark_window_not_bracketed`,
  /// `sampling_gap_exceeded`), GPUs without problems left out.
  std::vector<std::pair<std::string, std::vector<std::string>>> device_issues;
  std::optional<double> avg_power_w;            ///< Energy / duration / GPUs, when every GPU integrated.
  std::optional<double> avg_total_gpu_power_w;  ///< Energy / duration, when every GPU integrated.
  std::optional<double> total_gpu_energy_j;     ///< Sum of the GPUs' energies, when every GPU integrated.
};

/// An invalid integration that read no device (the reference's `_empty_integration`).
PowerIntegration EmptyPowerIntegration(std::optional<long long> expected_num_gpus, std::vector<std::string> reasons);

/// The telemetry CSV at `csv_path` integrated over [start_unix, end_unix]. Reason codes:
/// `invalid_benchmark_window`, `invalid_expected_gpu_count`, `invalid_max_sample_gap`,
/// `telemetry_file_missing|empty|unreadable`, `timestamp|power|gpu_identity_column_missing`,
/// `invalid_timestamp_sample` (any row), `invalid_power_sample` (rows within max_sample_gap_s of the
/// window: no number, negative or infinite), `gpu_identity_missing`, `no_usable_power_samples`,
/// `expected_gpu_count_mismatch`, `insufficient_power_samples`, `benchmark_window_not_bracketed`,
/// `sampling_gap_exceeded`. Never throws for bad telemetry.
PowerIntegration IntegratePower(const std::string& csv_path, double start_unix, double end_unix,
                                std::optional<long long> expected_num_gpus = std::nullopt,
                                double max_sample_gap_s = kDefaultMaxSampleGapS);

/// Energy of one device over [start_unix, end_unix], J: `samples` sorted by time with distinct
/// times, bracketing both edges (edge power interpolated, or taken from a sample within 1e-9 s).
double IntegrateDeviceEnergy(const std::vector<PowerSample>& samples, double start_unix, double end_unix);

/// The mean of `values` rounded once from the exact sum, as Python's `statistics.mean` of floats.
double ExactMean(const std::vector<double>& values);

}  // namespace infermark::results
