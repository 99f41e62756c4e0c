#include "power/agentic_power.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <regex>

#include "core/file_io.hpp"
#include "power/indented_json.hpp"
#include "power/power_telemetry.hpp"
#include "power/python_csv.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

AgenticPowerWindowResult Stop(const char* reason) {
  return {std::nullopt, {reason}};
}

bool IsFile(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// The adapter's _resolve_artifact_dir: aiperf_artifacts/, else its first child folder (by name)
// that holds profile_export.jsonl, else aiperf_artifacts/ anyway.
fs::path ArtifactDir(const fs::path& result_dir) {
  const fs::path base = result_dir / "aiperf_artifacts";
  if (IsFile(base / "profile_export.jsonl")) return base;
  std::error_code ec;
  if (fs::is_directory(base, ec)) {
    std::vector<fs::path> children;
    for (const auto& entry : fs::directory_iterator(base, ec)) children.push_back(entry.path());
    std::sort(children.begin(), children.end());
    for (const fs::path& child : children) {
      if (fs::is_directory(child, ec) && IsFile(child / "profile_export.jsonl")) return child;
    }
  }
  return base;
}

// Python's truthiness of a JSON value.
bool Truthy(const Json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_string() || v.is_array() || v.is_object()) return !v.empty();
  return true;
}

// Python's int(value) for what json.loads makes; nullopt where it raises.
std::optional<long long> PythonIntOf(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return v.get<long long>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || std::fabs(d) >= 9.2e18) return std::nullopt;
    return static_cast<long long>(std::trunc(d));
  }
  if (!v.is_string()) return std::nullopt;
  const std::string_view text = StripPython(v.get_ref<const std::string&>());
  std::string digits;
  std::size_t i = 0;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) digits += text[i++];
  bool last_digit = false;
  if (i >= text.size()) return std::nullopt;
  for (; i < text.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      digits += text[i];
      last_digit = true;
    } else if (text[i] == '_' && last_digit && i + 1 < text.size()) {
      last_digit = false;
    } else {
      return std::nullopt;
    }
  }
  if (!last_digit) return std::nullopt;
  long long value = 0;
  const char* begin = digits.data() + (digits[0] == '+' ? 1 : 0);
  const auto [end, ec] = std::from_chars(begin, digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// request_metrics._metric_value: `metrics.<key>`, or its `value` when it is an object.
Json MetricValue(const Json& record, const char* key) {
  const auto metrics = record.find("metrics");
  if (metrics == record.end() || !metrics->is_object()) return nullptr;
  const auto it = metrics->find(key);
  if (it == metrics->end()) return nullptr;
  if (it->is_object()) return it->value("value", Json());
  return *it;
}

// request_metrics.load_records: the profiling records (no warm-up phase, no error), or nullopt for
// a file json.loads refuses line by line.
std::optional<std::vector<Json>> LoadRecords(const fs::path& path) {
  std::string text;
  try {
    text = ReadFile(path.string());
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::vector<Json> records;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find_first_of("\r\n", at);
    if (end == std::string::npos) end = text.size();
    const std::string_view line = StripPython(std::string_view(text).substr(at, end - at));
    at = end + 1;
    if (end < text.size() && text[end] == '\r' && at < text.size() && text[at] == '\n') ++at;
    if (line.empty()) continue;
    Json obj = Json::parse(line, nullptr, false);
    if (obj.is_discarded() || !obj.is_object()) return std::nullopt;
    const Json metadata = obj.value("metadata", Json::object());
    if (!metadata.is_object()) return std::nullopt;
    const Json phase = metadata.value("benchmark_phase", Json());
    const bool warmup = !phase.is_null() && phase != Json("profiling");
    if (Truthy(obj.value("error", Json())) || warmup) continue;
    records.push_back(std::move(obj));
  }
  return records;
}

// The UTC offset in agentic_power_timezone_offset.txt (`date +%z`), in microseconds.
std::optional<long long> CapturedOffset(const fs::path& result_dir, const char*& reason) {
  const fs::path path = result_dir / kAgenticPowerTimezoneFile;
  if (!IsFile(path)) {
    reason = "profile_timezone_offset_missing";
    return std::nullopt;
  }
  reason = "profile_timezone_offset_invalid";
  std::string raw;
  try {
    raw = std::string(StripPython(ReadFile(path.string())));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  static const std::regex kOffset("([+-])([0-9]{2}):?([0-9]{2})");
  std::smatch m;
  if (!std::regex_match(raw, m, kOffset)) return std::nullopt;
  const int hours = std::stoi(m[2]);
  const int minutes = std::stoi(m[3]);
  if (hours > 23 || minutes > 59) return std::nullopt;
  reason = nullptr;
  return (m[1] == "+" ? 1 : -1) * (hours * 3600LL + minutes * 60LL) * 1000000LL;
}

std::optional<IsoDateTime> IsoOf(const Json& value) {
  std::string text(StripPython(value.get_ref<const std::string&>()));
  for (std::size_t at = text.find('Z'); at != std::string::npos; at = text.find('Z', at + 6)) {
    text.replace(at, 1, "+00:00");
  }
  return ParseIsoDateTime(text);
}

// The adapter's _parse_profile_timestamp.
std::optional<double> ProfileTimestamp(const Json& value, std::optional<long long> fallback_offset_us) {
  if (value.is_boolean()) return std::nullopt;
  if (value.is_number()) {
    const double t = value.get<double>();
    return std::isfinite(t) ? std::optional<double>(t) : std::nullopt;
  }
  if (!value.is_string() || StripPython(value.get_ref<const std::string&>()).empty()) return std::nullopt;
  const auto parsed = IsoOf(value);
  if (!parsed) return std::nullopt;
  if (parsed->aware) return MicrosToSeconds(parsed->micros);
  if (!fallback_offset_us) return std::nullopt;
  return MicrosToSeconds(parsed->micros - *fallback_offset_us);
}

}  // namespace

Json AgenticPowerWindow::ToJson() const {
  Json out = Json::object();
  out["benchmark_start_time_unix"] = start;
  out["benchmark_end_time_unix"] = end;
  out["duration"] = end - start;
  out["completed"] = completed;
  out["total_input_tokens"] = input_tokens;
  out["total_output_tokens"] = output_tokens;
  return out;
}

AgenticPowerWindowResult BuildAgenticPowerWindow(const std::string& result_dir) {
  const fs::path dir = ArtifactDir(result_dir);
  const fs::path aggregate_path = dir / "profile_export_aiperf.json";
  const fs::path records_path = dir / "profile_export.jsonl";
  if (!IsFile(aggregate_path) || !IsFile(records_path)) return Stop("profile_artifacts_missing");
  Json aggregate;
  try {
    aggregate = Json::parse(ReadFile(aggregate_path.string()), nullptr, false);
  } catch (const std::exception&) {
    return Stop("profile_artifacts_invalid");
  }
  const auto records = LoadRecords(records_path);
  if (aggregate.is_discarded() || !aggregate.is_object() || !records) return Stop("profile_artifacts_invalid");

  const Json raw_start = aggregate.value("start_time", Json());
  const Json raw_end = aggregate.value("end_time", Json());
  if (raw_start.is_null() || raw_end.is_null()) return Stop("profile_window_missing");
  bool needs_offset = false;
  for (const Json* value : {&raw_start, &raw_end}) {
    if (!value->is_string()) continue;
    const auto parsed = IsoOf(*value);
    if (parsed && !parsed->aware) needs_offset = true;
  }
  std::optional<long long> offset;
  if (needs_offset) {
    const char* reason = nullptr;
    offset = CapturedOffset(result_dir, reason);
    if (!offset) return Stop(reason);
  }
  const auto start = ProfileTimestamp(raw_start, offset);
  const auto end = ProfileTimestamp(raw_end, offset);
  if (!start || !end || *end <= *start) return Stop("profile_window_invalid");

  AgenticPowerWindow window;
  window.start = *start;
  window.end = *end;
  window.completed = static_cast<long long>(records->size());
  if (window.completed <= 0) return Stop("successful_request_count_invalid");
  std::size_t inputs = 0;
  std::size_t outputs = 0;
  bool negative = false;
  for (const Json& record : *records) {
    if (const auto v = PythonIntOf(MetricValue(record, "input_sequence_length"))) {
      ++inputs;
      window.input_tokens += *v;
      negative = negative || *v < 0;
    }
    if (const auto v = PythonIntOf(MetricValue(record, "output_sequence_length"))) {
      ++outputs;
      window.output_tokens += *v;
      negative = negative || *v < 0;
    }
  }
  if (inputs != records->size() || outputs != records->size() || negative || window.input_tokens <= 0 ||
      window.output_tokens <= 0) {
    return Stop("incomplete_token_accounting");
  }
  return {window, {}};
}

PowerRunOutcome RunAgenticPower(const AgenticPowerOptions& options) {
  const fs::path dir = options.result_dir;
  PowerRunOptions run;
  run.csv = (dir / kAgenticPowerCsvFile).string();
  run.bench_result = (dir / kAgenticPowerWindowFile).string();
  run.agg_result = options.agg_result;
  run.expected_num_gpus = options.expected_num_gpus;
  run.validation_result = (dir / kAgenticPowerValidationFile).string();
  run.require_power = options.require_power;

  const Json extra = {{"window_source", "aiperf_profile_lifecycle"}};
  const auto fail = [&](const std::vector<std::string>& reasons) {
    PowerRunOutcome out = RecordPowerFailure(run, reasons, extra);
    std::string list;
    for (const std::string& reason : reasons) list += (list.empty() ? "" : ", ") + reason;
    out.messages.push_back("Power-window adaptation failed: " + list);
    return out;
  };
  const AgenticPowerWindowResult built = BuildAgenticPowerWindow(options.result_dir);
  if (!built.window) return fail(built.reasons);
  try {
    fs::create_directories(dir);
    WriteFileAtomic(run.bench_result, DumpJsonIndented(built.window->ToJson(), 2));
  } catch (const std::exception&) {
    return fail({"power_window_unwritable"});
  }
  return RunPowerAggregation(run);
}

}  // namespace infermark::results
