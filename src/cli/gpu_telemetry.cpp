#include "cli/gpu_telemetry.hpp"

#include <cstdio>
#include <ctime>
#include <exception>

#include "core/file_io.hpp"
#include "gpu/nvml.hpp"
#include "power/agentic_power.hpp"
#include "power/power_aggregation.hpp"
#include "power/power_integration.hpp"
#include "runner/repeat_power.hpp"

namespace infermark::cli {

SampledEnergy IntegrateSampledEnergy(const std::filesystem::path& csv, double start_unix, double end_unix,
                                     int expected_gpus) {
  const results::PowerIntegration integration =
      results::IntegratePower(csv.string(), start_unix, end_unix, static_cast<long long>(expected_gpus));
  SampledEnergy out;
  out.valid = integration.valid;
  out.reasons = integration.reasons;
  for (const auto& [id, joules] : integration.per_gpu_energy_j) out.energy_j[id] = joules;
  for (const auto& [id, count] : integration.per_gpu_sample_counts) out.samples[id] = static_cast<std::size_t>(count);
  return out;
}

GpuTelemetry::GpuTelemetry(const std::filesystem::path& csv, double interval_s)
    : sampler_(std::make_unique<gpu::PowerSampler>(gpu::Nvml::Load(), gpu::PowerSamplerOptions{csv, interval_s, {}})) {
  sampler_->Start();
}

GpuTelemetry::~GpuTelemetry() {
  sampler_->Stop();
}

namespace {

PowerFields Summarize(const results::PowerRunOutcome& outcome, long long gpus, PowerFields out) {
  out.valid = outcome.power_valid;
  out.reasons.insert(out.reasons.end(), outcome.reasons.begin(), outcome.reasons.end());
  if (out.valid) {
    char line[256];
    std::snprintf(line, sizeof line, "GPU power: %.1f W per GPU over %lld GPUs, %.4f J per output token (%s)",
                  outcome.metrics.value("avg_power_w", 0.0), gpus,
                  outcome.metrics.value("joules_per_output_token", 0.0), outcome.validation_path.c_str());
    out.summary = line;
    return out;
  }
  std::string reasons;
  for (const auto& reason : out.reasons) reasons += (reasons.empty() ? "" : ", ") + reason;
  out.summary = "GPU power invalid: " + reasons;
  return out;
}

}  // namespace

bool WriteTimezoneOffset(const std::filesystem::path& dir) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  char text[16] = {};
  if (localtime_r(&now, &local) == nullptr || std::strftime(text, sizeof text, "%z", &local) == 0) return false;
  try {
    std::filesystem::create_directories(dir);
    WriteFileAtomic((dir / results::kAgenticPowerTimezoneFile).string(), std::string(text) + "\n");
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

PowerFields GpuTelemetry::FinishAgentic(const std::string& result_dir, const std::string& aggregate_path,
                                        long long expected_num_gpus) {
  const gpu::PowerSamplerReport report = sampler_->Stop();
  PowerFields out;
  if (!report.error.empty()) out.reasons.push_back("sampling stopped early: " + report.error);
  results::AgenticPowerOptions options;
  options.result_dir = result_dir;
  options.agg_result = aggregate_path;
  options.expected_num_gpus = expected_num_gpus > 0 ? expected_num_gpus : static_cast<long long>(report.gpus.size());
  try {
    return Summarize(results::RunAgenticPower(options), *options.expected_num_gpus, out);
  } catch (const std::exception& e) {
    out.reasons.push_back(std::string("power aggregation failed: ") + e.what());
    out.summary = "GPU power invalid: " + out.reasons.back();
    return out;
  }
}

PowerFields GpuTelemetry::Finish(const std::string& result_path, long long expected_num_gpus) {
  const gpu::PowerSamplerReport report = sampler_->Stop();
  PowerFields out;
  if (!report.error.empty()) out.reasons.push_back("sampling stopped early: " + report.error);
  if (result_path.empty()) {
    out.summary = "GPU power sampled into " + report.csv.string() + " (no result to add it to)";
    return out;
  }
  try {
    results::PowerRunOptions options;
    options.csv = report.csv.string();
    options.bench_result = result_path;
    options.agg_result = result_path;
    options.expected_num_gpus = expected_num_gpus > 0 ? expected_num_gpus : static_cast<long long>(report.gpus.size());
    const results::PowerRunOutcome outcome = runner::RunPowerAggregationWithRepeats(options);
    out.valid = outcome.power_valid;
    out.reasons.insert(out.reasons.end(), outcome.reasons.begin(), outcome.reasons.end());
    if (out.valid) {
      char line[256];
      std::snprintf(line, sizeof line, "GPU power: %.1f W per GPU over %lld GPUs, %.4f J per output token (%s)",
                    outcome.metrics.value("avg_power_w", 0.0), *options.expected_num_gpus,
                    outcome.metrics.value("joules_per_output_token", 0.0), outcome.validation_path.c_str());
      out.summary = line;
      return out;
    }
  } catch (const std::exception& e) {
    out.valid = false;
    out.reasons.push_back(std::string("power aggregation failed: ") + e.what());
  }
  std::string reasons;
  for (const auto& reason : out.reasons) reasons += (reasons.empty() ? "" : ", ") + reason;
  out.summary = "GPU power invalid: " + reasons;
  return out;
}

}  // namespace infermark::cli
