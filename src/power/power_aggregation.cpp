#include "power/power_aggregation.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "power/indented_json.hpp"
#include "power/power_accumulator.hpp"
#include "power/python_csv.hpp"
#include "power/python_path.hpp"
#include "power/python_value.hpp"

namespace infermark::results {
namespace {

constexpr const char* kIntegrationMethod = "per_device_trapezoidal_with_linear_boundary_interpolation";

[[noreturn]] void ReferenceFails(const std::string& path, const std::string& rule) {
  throw InputError(Diagnostic{{path, 0, 0}, "", "", rule});
}

using Benchmark = PowerBenchmark;

bool IsValidUtf8(const std::string& text) {
  return DecodeUtf8Replace(text) == text;
}

// The file as Python's `read_text` + `json.loads` read it: nullopt where that raises OSError or
// JSONDecodeError (a leading byte-order mark included); InputError for text that is not UTF-8.
std::optional<Json> ReadJson(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return std::nullopt;
  const std::string text = buffer.str();
  if (!IsValidUtf8(text)) throw std::invalid_argument("not UTF-8");
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) return std::nullopt;
  Json value = Json::parse(text, nullptr, false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

bool IsNumber(const Json& v) {
  return v.is_number() && !v.is_boolean();
}

}  // namespace

std::optional<PowerBenchmark> LoadPowerBenchmark(const std::string& path, std::vector<std::string>& reasons) {
  std::optional<Json> bench;
  try {
    bench = ReadJson(path);
  } catch (const std::invalid_argument&) {
    ReferenceFails(path, "the client result is not UTF-8 text (InferenceX's aggregate_power.py fails here too)");
  }
  if (!bench) {
    reasons = {"invalid_benchmark_result"};
    return std::nullopt;
  }
  if (!bench->is_object()) {
    ReferenceFails(path, "the client result must be a JSON object (InferenceX's aggregate_power.py fails here too)");
  }
  const auto get = [&](const char* key) { return bench->contains(key) ? (*bench)[key] : Json(); };
  const Json start = get("benchmark_start_time_unix");
  const Json end = get("benchmark_end_time_unix");
  const Json duration = get("duration");
  if (!IsNumber(start) || !IsNumber(end) || !IsNumber(duration)) {
    reasons = {"invalid_benchmark_window"};
    return std::nullopt;
  }
  Benchmark b;
  b.start = start.get<double>();
  b.end = end.get<double>();
  b.duration = duration.get<double>();
  if (!std::isfinite(b.start) || !std::isfinite(b.end) || !std::isfinite(b.duration) || b.end <= b.start ||
      b.duration <= 0) {
    reasons = {"invalid_benchmark_window"};
    return std::nullopt;
  }
  reasons.clear();
  const double integration = b.end - b.start;
  if (std::fabs(b.duration - integration) > std::max(0.5, integration * 0.01)) {
    AddPowerReason(reasons, "benchmark_duration_mismatch");
  }
  const auto count = [&](const char* key, const char* reason) -> long long {
    const Json v = get(key);
    if (!v.is_number_integer() || v.get<long long>() <= 0) {
      AddPowerReason(reasons, reason);
      return 0;
    }
    return v.get<long long>();
  };
  b.completed = count("completed", "invalid_successful_query_count");
  b.input_tokens = count("total_input_tokens", "invalid_input_token_count");
  b.output_tokens = count("total_output_tokens", "invalid_output_token_count");
  return b;
}

namespace {

Json DerivedMetrics(const PowerIntegration& integration, const Benchmark& b) {
  const double energy = *integration.total_gpu_energy_j;
  Json m = Json::object();
  m["avg_power_w"] = *integration.avg_power_w;
  m["avg_total_gpu_power_w"] = *integration.avg_total_gpu_power_w;
  m["total_gpu_energy_j"] = energy;
  m["joules_per_successful_query"] = energy / static_cast<double>(b.completed);
  m["joules_per_input_token"] = energy / static_cast<double>(b.input_tokens);
  m["joules_per_output_token"] = energy / static_cast<double>(b.output_tokens);
  m["joules_per_total_token"] = energy / static_cast<double>(b.input_tokens + b.output_tokens);
  return m;
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<std::string> PatchPowerAggregate(const std::string& path, bool power_valid, const Json& metrics,
                                               const std::vector<std::string>& owned_keys) {
  std::optional<Json> data;
  try {
    data = ReadJson(path);
  } catch (const std::invalid_argument&) {
    return "'utf-8' codec can't decode the file";
  }
  if (!data) return "cannot read it as JSON";
  if (!data->is_object()) {
    ReferenceFails(path, "the agg record must be a JSON object (InferenceX's aggregate_power.py fails here too)");
  }
  for (const std::string& key : owned_keys) data->erase(key);
  (*data)["power_metric_schema_version"] = kPowerMetricSchemaVersion;
  (*data)["power_valid"] = power_valid ? 1 : 0;
  data->erase("power_invalid_reasons");
  if (power_valid) {
    for (const auto& [key, value] : metrics.items()) {
      const double v = value.get<double>();
      if (!std::isfinite(v)) return "non-finite power metric: " + key;
      (*data)[key] = PythonRound(v, EndsWith(key, "_w") || EndsWith(key, "_j") ? 3 : 6);
    }
  }
  try {
    WriteFileAtomic(path, DumpJsonIndented(*data, 2));
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

void AddPowerReason(std::vector<std::string>& reasons, const std::string& reason) {
  if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) reasons.push_back(reason);
}

Json PowerBenchmarkWindow(const std::optional<PowerBenchmark>& bench) {
  if (!bench) return nullptr;
  Json window = Json::object();
  window["start_time_unix"] = bench->start;
  window["end_time_unix"] = bench->end;
  window["reported_duration_s"] = bench->duration;
  window["integration_duration_s"] = bench->end - bench->start;
  window["completed"] = bench->completed;
  window["total_input_tokens"] = bench->input_tokens;
  window["total_output_tokens"] = bench->output_tokens;
  return window;
}

namespace {

const std::vector<std::string>& SingleNodeKeys() {
  static const std::vector<std::string> keys(std::begin(kPowerMetricKeys), std::end(kPowerMetricKeys));
  return keys;
}

template <typename T>
Json PairsObject(const std::vector<std::pair<std::string, T>>& pairs) {
  Json out = Json::object();
  for (const auto& [key, value] : pairs) out[key] = value;
  return out;
}

Json Sidecar(const PowerRunOptions& options, const std::optional<Benchmark>& bench, const PowerIntegration& integration,
             bool power_valid, const std::vector<std::string>& reasons, const Json& metrics,
             const Json& accumulator_check) {
  const Json window = PowerBenchmarkWindow(bench);
  Json rounded = Json::object();
  for (const auto& [key, value] : metrics.items()) {
    if (std::isfinite(value.get<double>())) rounded[key] = PythonRound(value.get<double>(), 6);
  }
  Json out = Json::object();
  out["schema_version"] = 1;
  out["power_valid"] = power_valid;
  out["reasons"] = reasons;
  out["telemetry_source"] = PythonPathText(options.csv);
  out["benchmark_result"] = PythonPathText(options.bench_result);
  out["benchmark_window"] = window;
  out["integration_method"] = kIntegrationMethod;
  out["expected_gpu_count"] = integration.expected_num_gpus ? Json(*integration.expected_num_gpus) : Json();
  out["observed_gpu_count"] = integration.observed_gpu_ids.size();
  out["observed_gpu_ids"] = integration.observed_gpu_ids;
  out["per_gpu_sample_counts"] = PairsObject(integration.per_gpu_sample_counts);
  out["per_gpu_max_sample_gap_s"] = PairsObject(integration.per_gpu_max_sample_gap_s);
  out["per_gpu_energy_j"] = PairsObject(integration.per_gpu_energy_j);
  out["device_issues"] = PairsObject(integration.device_issues);
  out["accumulator_check"] = accumulator_check;
  out["metrics"] = rounded;
  return out;
}

}  // namespace

double PythonRound(double value, int digits) {
  if (!std::isfinite(value)) return value;
  const int size = std::snprintf(nullptr, 0, "%.*f", digits, value);
  std::string text(static_cast<std::size_t>(size) + 1, '\0');
  std::snprintf(text.data(), text.size(), "%.*f", digits, value);
  return std::strtod(text.c_str(), nullptr);
}

PowerRunOutcome RunPowerAggregation(const PowerRunOptions& options) {
  PowerRunOutcome out;
  if (options.validation_result) {
    out.validation_path = PythonPathText(*options.validation_result);
  } else {
    const auto beside =
        PythonPathWithName(options.bench_result, "power_validation_" + PythonPathStem(options.bench_result) + ".json");
    if (!beside) ReferenceFails(options.bench_result, "the client result path names no file");
    out.validation_path = *beside;
  }

  std::vector<std::string> bench_reasons;
  const std::optional<Benchmark> bench = LoadPowerBenchmark(options.bench_result, bench_reasons);
  out.integration = bench ? IntegratePower(options.csv, bench->start, bench->end, options.expected_num_gpus)
                          : EmptyPowerIntegration(options.expected_num_gpus, bench_reasons);
  std::vector<std::string> reasons = bench_reasons;
  for (const std::string& reason : out.integration.reasons) AddPowerReason(reasons, reason);

  bool power_valid = reasons.empty();
  Json metrics = Json::object();
  if (power_valid && bench) metrics = DerivedMetrics(out.integration, *bench);

  std::error_code ec;
  if (options.agg_result.empty() || !std::filesystem::is_regular_file(options.agg_result, ec)) {
    AddPowerReason(reasons, "aggregate_result_missing");
    power_valid = false;
    metrics = Json::object();
  } else if (const auto error = PatchPowerAggregate(options.agg_result, power_valid, metrics, SingleNodeKeys())) {
    AddPowerReason(reasons, "aggregate_result_unwritable");
    power_valid = false;
    metrics = Json::object();
    out.messages.push_back("Failed to patch " + PythonPathText(options.agg_result) + ": " + *error);
  }

  const Json accumulator_check = CrossCheckAccumulator(options.csv);
  out.power_valid = power_valid;
  out.reasons = reasons;
  out.metrics = metrics;

  const std::string validation_file = options.validation_result ? *options.validation_result : out.validation_path;
  try {
    const std::filesystem::path parent = std::filesystem::path(validation_file).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent);
    WriteFileAtomic(validation_file,
                    DumpJsonIndented(
                        Sidecar(options, bench, out.integration, power_valid, reasons, metrics, accumulator_check), 2));
    out.validation_written = true;
  } catch (const std::exception& e) {
    out.messages.push_back("Failed to write validation artifact " + out.validation_path + ": " + e.what());
    out.exit_code = options.require_power ? 1 : 0;
    return out;
  }

  if (!power_valid) {
    std::string list;
    for (const std::string& reason : reasons) list += (list.empty() ? "" : ", ") + reason;
    out.messages.push_back("Power validation failed: " + list + " (details: " + out.validation_path + ")");
    out.exit_code = options.require_power ? 1 : 0;
    return out;
  }
  out.summary = "avg_power_w=" + PythonFixed2(metrics["avg_power_w"].get<double>()) +
                " avg_total_gpu_power_w=" + PythonFixed2(metrics["avg_total_gpu_power_w"].get<double>()) +
                " total_gpu_energy_j=" + PythonFixed2(metrics["total_gpu_energy_j"].get<double>()) +
                " (n=" + std::to_string(out.integration.observed_gpu_ids.size()) + ") -> " +
                PythonPathText(options.agg_result);
  out.exit_code = 0;
  return out;
}

PowerRunOutcome RecordPowerFailure(const PowerRunOptions& options, const std::vector<std::string>& reasons,
                                   const Json& extra) {
  PowerRunOutcome out;
  out.reasons = reasons;
  out.integration = EmptyPowerIntegration(options.expected_num_gpus, reasons);
  out.validation_path = PythonPathText(options.validation_result.value_or(""));
  out.exit_code = options.require_power ? 1 : 0;
  std::error_code ec;
  const std::optional<std::string> error =
      std::filesystem::is_regular_file(options.agg_result, ec)
          ? PatchPowerAggregate(options.agg_result, false, Json::object(), SingleNodeKeys())
          : std::optional<std::string>("No such file or directory: " + PythonPathText(options.agg_result));
  if (error) {
    out.messages.push_back("Failed to record adapter failure: " + *error);
    return out;
  }
  Json sidecar = Sidecar(options, std::nullopt, out.integration, false, reasons, Json::object(), Json());
  for (const auto& [key, value] : extra.items()) sidecar[key] = value;
  try {
    WriteFileAtomic(*options.validation_result, DumpJsonIndented(sidecar, 2));
    out.validation_written = true;
  } catch (const std::exception& e) {
    out.messages.push_back("Failed to record adapter failure: " + std::string(e.what()));
  }
  return out;
}

}  // namespace infermark::results
