#include "runner/row_telemetry.hpp"

#include <ctime>
#include <exception>
#include <filesystem>

#include "core/file_io.hpp"
#include "gpu/nvml.hpp"
#include "power/agentic_power.hpp"
#include "power/power_aggregation.hpp"
#include "runner/repeat_power.hpp"

namespace infermark::runner {

namespace fs = std::filesystem;

namespace {

// `date +%z` into agentic_power_timezone_offset.txt, as InferenceX's agentic runner writes it.
void WriteOffset(const fs::path& dir) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  char text[16] = {};
  if (localtime_r(&now, &local) == nullptr || std::strftime(text, sizeof text, "%z", &local) == 0) return;
  try {
    fs::create_directories(dir);
    WriteFileAtomic((dir / results::kAgenticPowerTimezoneFile).string(), std::string(text) + "\n");
  } catch (const std::exception&) {
    // Without it a naive aiperf window is recorded as profile_timezone_offset_missing.
  }
}

}  // namespace

// The adapter reads `<folder>/gpu_metrics.csv`: the runner's samples go there when the launcher wrote none.
RowPower RowTelemetrySession::FinishAgentic(const std::string& result_path, bool launcher_wrote, RowPower out) {
  const fs::path dir = fs::path(telemetry_.launcher_csv).parent_path();
  try {
    if (!launcher_wrote) fs::copy_file(telemetry_.csv, telemetry_.launcher_csv, fs::copy_options::overwrite_existing);
    out.csv = telemetry_.launcher_csv;
  } catch (const std::exception& e) {
    out.reasons.push_back(std::string("runner samples not copied for the agentic power adapter: ") + e.what());
  }
  try {
    results::AgenticPowerOptions options;
    options.result_dir = dir.string();
    options.agg_result = result_path;
    options.expected_num_gpus = telemetry_.expected_num_gpus;
    const results::PowerRunOutcome outcome = results::RunAgenticPower(options);
    out.valid = outcome.power_valid;
    out.reasons.insert(out.reasons.end(), outcome.reasons.begin(), outcome.reasons.end());
  } catch (const std::exception& e) {
    out.reasons.push_back(std::string("power aggregation failed: ") + e.what());
  }
  return out;
}

RowTelemetrySession::RowTelemetrySession(const RowTelemetry& telemetry) : telemetry_(telemetry) {
  try {
    std::error_code ec;
    fs::remove(telemetry_.launcher_csv, ec);  // a launcher's file from an earlier attempt is not this row's
    // aiperf may export naive local times: the adapter reads them in the offset captured here.
    if (telemetry_.agentic) WriteOffset(fs::path(telemetry_.launcher_csv).parent_path());
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
  if (telemetry_.agentic) return FinishAgentic(result_path, launcher_wrote, std::move(out));
  try {
    results::PowerRunOptions options;
    options.csv = out.csv;
    options.bench_result = result_path;
    options.agg_result = result_path;
    options.expected_num_gpus = telemetry_.expected_num_gpus;
    const results::PowerRunOutcome outcome = RunPowerAggregationWithRepeats(options);
    out.valid = outcome.power_valid;
    out.reasons.insert(out.reasons.end(), outcome.reasons.begin(), outcome.reasons.end());
  } catch (const std::exception& e) {
    out.reasons.push_back(std::string("power aggregation failed: ") + e.what());
  }
  return out;
}

}  // namespace infermark::runner
