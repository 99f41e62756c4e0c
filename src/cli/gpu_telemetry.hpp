// GPU telemetry as the commands use it: the energy a sampler's CSV integrates to over a window (the
// project's power integration, the one `results power` applies), for `gpu monitor`'s comparison
// with NVML's energy counters and for the power fields of `bench serve --gpu-telemetry`.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu/power_sampler.hpp"

namespace infermark::cli {

/// What a telemetry CSV integrates to over a window.
struct SampledEnergy {
  bool valid = false;                          ///< The integration's verdict (bracketing, gaps, samples).
  std::vector<std::string> reasons;            ///< Why not valid, as the integration names them.
  std::map<std::string, double> energy_j;      ///< Per GPU id (the CSV's `index`): integrated energy.
  std::map<std::string, std::size_t> samples;  ///< Per GPU id: samples in the window.
};

/// Integrates `csv` (nvidia-smi's format) over [start_unix, end_unix] for `expected_gpus` GPUs.
[[nodiscard]] SampledEnergy IntegrateSampledEnergy(const std::filesystem::path& csv, double start_unix, double end_unix,
                                                   int expected_gpus);

/// What the power aggregation made of a result.
struct PowerFields {
  bool valid = false;                ///< `power_valid` as written to the result.
  std::vector<std::string> reasons;  ///< Why not valid (reason codes, or what failed).
  std::string summary;               ///< One line for the user.
};

/// Writes the local UTC offset as `date +%z` prints it into `<dir>/agentic_power_timezone_offset.txt`,
/// as InferenceX's agentic runner does before sampling (aiperf may export naive local times). Never
/// throws; returns false when it could not.
bool WriteTimezoneOffset(const std::filesystem::path& dir);

/// GPU power sampled around a benchmark run as InferenceX's monitor does (every GPU, nvidia-smi's CSV,
/// one more sample after the stop), then the power aggregation applied to the run's result.
class GpuTelemetry {
 public:
  /// Loads NVML (throws gpu::NvmlUnavailable without it) and starts sampling every GPU into `csv`.
  GpuTelemetry(const std::filesystem::path& csv, double interval_s);
  /// Stops sampling if Finish was not called.
  ~GpuTelemetry();
  GpuTelemetry(const GpuTelemetry&) = delete;
  GpuTelemetry& operator=(const GpuTelemetry&) = delete;

  /// Stops sampling and, when `result_path` is not empty, patches the result in place with the power
  /// fields (`power_valid`, `power_metric_schema_version`, the metrics when valid) and writes the
  /// `power_validation_<result>.json` sidecar beside it. `expected_num_gpus` 0: the GPUs sampled.
  /// Never throws: a failure becomes reasons.
  PowerFields Finish(const std::string& result_path, long long expected_num_gpus);

  /// Stops sampling and applies InferenceX's agentic power adapter to the run in `result_dir` (its
  /// aiperf_artifacts/, the CSV this sampler wrote there as gpu_metrics.csv): agentic_power_window.json,
  /// the power fields patched into `aggregate_path` and power_validation.json. `expected_num_gpus` 0:
  /// the GPUs sampled. Never throws: a failure becomes reasons.
  PowerFields FinishAgentic(const std::string& result_dir, const std::string& aggregate_path,
                            long long expected_num_gpus);

 private:
  std::unique_ptr<gpu::PowerSampler> sampler_;
};

}  // namespace infermark::cli
