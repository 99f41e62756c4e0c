#include "runner/repeat_power.hpp"

#include <filesystem>

#include "core/file_io.hpp"
#include "metrics/repeat_result.hpp"
#include "metrics/result_json.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

Json ReadResult(const std::string& path) {
  try {
    return Json::parse(ReadFile(path));
  } catch (const std::exception&) {
    return Json();
  }
}

}  // namespace

results::PowerRunOutcome RunPowerAggregationWithRepeats(const results::PowerRunOptions& options) {
  const Json combined = ReadResult(options.bench_result);
  const Json* block = metrics::RepeatsBlock(combined);
  if (block == nullptr || options.agg_result != options.bench_result) return results::RunPowerAggregation(options);
  const metrics::RepeatSetup setup = metrics::RepeatSetupOf(*block);
  const fs::path dir = fs::path(options.bench_result).parent_path();
  results::PowerRunOutcome out;
  out.power_valid = true;
  std::vector<Json> repeats;
  for (std::size_t k = 0; k < setup.files.size(); ++k) {
    results::PowerRunOptions one = options;
    one.bench_result = one.agg_result = (dir / setup.files[k]).string();
    one.validation_result.reset();
    const results::PowerRunOutcome outcome = results::RunPowerAggregation(one);
    out.power_valid = out.power_valid && outcome.power_valid;
    for (const std::string& reason : outcome.reasons)
      out.reasons.push_back("repeat " + std::to_string(k + 1) + ": " + reason);
    if (k == 0) out.validation_path = outcome.validation_path;
    out.exit_code = std::max(out.exit_code, outcome.exit_code);
    repeats.push_back(ReadResult(one.bench_result));
  }
  if (repeats.empty()) return results::RunPowerAggregation(options);
  const Json rewritten = metrics::CombineRepeatResults(repeats, setup);
  metrics::WriteResultJson(options.bench_result, rewritten);
  if (out.power_valid) {
    for (const char* key : {"avg_power_w", "avg_total_gpu_power_w", "total_gpu_energy_j", "joules_per_successful_query",
                            "joules_per_input_token", "joules_per_output_token", "joules_per_total_token"}) {
      if (const auto it = rewritten.find(key); it != rewritten.end()) out.metrics[key] = *it;
    }
  }
  return out;
}

}  // namespace infermark::runner
