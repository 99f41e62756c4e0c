#include "runner/row_telemetry.hpp"

#include <exception>
#include <filesystem>

#include "gpu/nvml.hpp"
#include "results/power_aggregation.hpp"

namespace infermark::runner {

namespace fs = std::filesystem;

RowTelemetrySession::RowTelemetrySession(const RowTelemetry& telemetry) : telemetry_(telemetry) {
  try {
    std::error_code ec;
    fs::remove(telemetry_.launcher_csv, ec);  // a launcher's file from an earlier attempt is not this row's
    sampler_ = std::make_unique<gpu::PowerSampler>(gpu::Nvml::Load(),
                                                   gpu::PowerSamplerOptions{telemetry_.csv, telemetry_.interval_s, {}});
    sampler_->Start();
  } catch (const std::exception& e) {
    sampler_.reset();
    start_error_ = std::string("runner sampler not started: ") + e.what();
  }
}

RowTelemetrySession::~RowTelemetrySession() {
  if (sampler_) sampler_->Stop();
}

RowPower RowTelemetrySession::Finish(const std::string& result_path) {
  RowPower out;
  if (!start_error_.empty()) out.reasons.push_back(start_error_);
  if (sampler_) {
    const gpu::PowerSamplerReport report = sampler_->Stop();
    if (!report.error.empty()) out.reasons.push_back("runner sampler stopped early: " + report.error);
  }
  std::error_code ec;
  if (!telemetry_.aggregate || result_path.empty() || !fs::exists(result_path, ec)) return out;
  const bool launcher_wrote = fs::exists(telemetry_.launcher_csv, ec) && fs::file_size(telemetry_.launcher_csv, ec) > 0;
  out.csv = launcher_wrote ? telemetry_.launcher_csv : telemetry_.csv;
  try {
    results::PowerRunOptions options;
    options.csv = out.csv;
    options.bench_result = result_path;
    options.agg_result = result_path;
    options.expected_num_gpus = telemetry_.expected_num_gpus;
    const results::PowerRunOutcome outcome = results::RunPowerAggregation(options);
    out.valid = outcome.power_valid;
    out.reasons.insert(out.reasons.end(), outcome.reasons.begin(), outcome.reasons.end());
  } catch (const std::exception& e) {
    out.reasons.push_back(std::string("power aggregation failed: ") + e.what());
  }
  return out;
}

}  // namespace infermark::runner
