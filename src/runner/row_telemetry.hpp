// GPU power telemetry around one row, best effort as InferenceX's monitor: the runner samples from
// before the server starts until the row has ended, a launcher may write GPU_METRICS_CSV itself
// (InferenceX's scripts do), and afterwards the power aggregation patches the row's result with the
// power fields from whichever CSV exists (an agentic aggregate through InferenceX's power adapter,
// over aiperf's profiling window). A telemetry failure never fails the row unless power is required.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu/power_sampler.hpp"
#include "runner/row_plan.hpp"

namespace infermark::runner {

/// What telemetry made of one row.
struct RowPower {
  std::optional<bool> valid;         ///< `power_valid` written to the result; empty when none was written.
  std::vector<std::string> reasons;  ///< Why not valid, or what failed.
  std::string csv;                   ///< The CSV the aggregation read.
};

/// Sampling for one row. Start never throws: without NVML the runner has no samples of its own.
class RowTelemetrySession {
 public:
  /// Starts the runner's sampler for `telemetry` (every GPU NVML sees).
  explicit RowTelemetrySession(const RowTelemetry& telemetry);
  ~RowTelemetrySession();
  RowTelemetrySession(const RowTelemetrySession&) = delete;
  RowTelemetrySession& operator=(const RowTelemetrySession&) = delete;

  /// Stops sampling and, when the row wrote `result_path` and the plan asks for it, applies the
  /// power aggregation to it: the launcher's CSV when it wrote one, else the runner's. Never throws.
  RowPower Finish(const std::string& result_path);

 private:
  RowPower FinishAgentic(const std::string& result_path, bool launcher_wrote, RowPower out);

  RowTelemetry telemetry_;
  std::unique_ptr<gpu::PowerSampler> sampler_;
  std::string start_error_;
};

}  // namespace infermark::runner
