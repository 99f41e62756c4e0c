#include "results/gpu_samples.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "power/power_telemetry.hpp"
#include "power/python_csv.hpp"

namespace infermark::results {
namespace {

// nvidia-smi's query names (the header's text before any ` [unit]`) for the fields other than
// power, which DetectTelemetryColumns finds as the power aggregation does.
constexpr std::pair<const char*, const char*> kSmiColumns[] = {
    {"temperature.gpu", "temperature_c"},          {"clocks.current.sm", "sm_clock_mhz"},
    {"clocks.current.memory", "memory_clock_mhz"}, {"utilization.gpu", "gpu_util_pct"},
    {"utilization.memory", "memory_util_pct"},     {"memory.used", "memory_used_mib"}};

std::string QueryName(const std::string& header) {
  const std::size_t bracket = header.find(" [");
  return header.substr(0, bracket);
}

std::string ReadText(const std::string& path) {
  try {
    return ReadFile(path);
  } catch (const std::exception& e) {
    throw InputError(Diagnostic{{path, 0, 0}, "", "", std::string("cannot read GPU telemetry: ") + e.what()});
  }
}

double Rounded(double v, double scale) {
  return std::round(v * scale) / scale;
}

// Every `step`-th sample of `series` and its last one, when it holds more than kMaxGpuSamples.
void Thin(GpuSeries& series) {
  const std::size_t n = series.t_s.size();
  if (n <= kMaxGpuSamples) return;
  const std::size_t step = (n + kMaxGpuSamples - 2) / (kMaxGpuSamples - 1);
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < n; i += step) keep.push_back(i);
  if (keep.back() != n - 1) keep.push_back(n - 1);
  const auto pick = [&](auto& values) {
    std::remove_reference_t<decltype(values)> kept;
    kept.reserve(keep.size());
    for (std::size_t i : keep) kept.push_back(values[i]);
    values = std::move(kept);
  };
  pick(series.t_s);
  for (auto& [key, values] : series.fields) pick(values);
}

// Builds one series per GPU id from rows of (gpu, time, values per field), in GpuIdBefore order.
struct SeriesBuilder {
  std::vector<std::string> field_keys;
  std::map<std::string, GpuSeries> by_id;  // keyed by host + '\n' + gpu

  void Add(const std::string& host, const std::string& gpu, double unix_s,
           const std::vector<std::optional<double>>& values, const char* source) {
    GpuSeries& s = by_id[host + '\n' + gpu];
    if (s.t_s.empty()) {
      s.source = source;
      s.host = host;
      s.gpu = gpu;
      s.start_unix = unix_s;
      for (const std::string& key : field_keys) s.fields.emplace_back(key, std::vector<std::optional<double>>{});
    }
    s.t_s.push_back(unix_s - s.start_unix);
    for (std::size_t f = 0; f < values.size(); ++f) s.fields[f].second.push_back(values[f]);
  }

  std::vector<GpuSeries> Take() {
    std::vector<GpuSeries> out;
    for (auto& [key, s] : by_id) out.push_back(std::move(s));
    std::stable_sort(out.begin(), out.end(), [](const GpuSeries& a, const GpuSeries& b) {
      if (a.host != b.host) return a.host < b.host;
      return GpuIdBefore(a.gpu, b.gpu);
    });
    for (GpuSeries& s : out) Thin(s);
    return out;
  }
};

}  // namespace

const std::vector<std::optional<double>>* GpuSeries::Field(const std::string& key) const {
  for (const auto& [name, values] : fields) {
    if (name == key) return &values;
  }
  return nullptr;
}

std::vector<GpuSeries> ReadGpuMetricsCsv(const std::string& path) {
  const CsvDict csv = ParseCsvDict(ReadText(path));
  const TelemetryColumns columns = DetectTelemetryColumns(csv.header);
  if (!csv.has_header || !columns.timestamp) {
    throw InputError(Diagnostic{{path, 1, 1}, "", "", "GPU telemetry has no timestamp column"});
  }
  SeriesBuilder builder;
  std::vector<std::string> names;  // header names read per field, in builder.field_keys order
  if (columns.power) {
    builder.field_keys.emplace_back("power_w");
    names.push_back(*columns.power);
  }
  for (const auto& [query, key] : kSmiColumns) {
    for (const std::string& h : csv.header) {
      if (QueryName(h) == query) {
        builder.field_keys.emplace_back(key);
        names.push_back(h);
        break;
      }
    }
  }
  std::vector<std::optional<double>> values(names.size());
  for (std::size_t row = 0; row < csv.rows.size(); ++row) {
    const auto stamp = csv.Get(row, *columns.timestamp);
    const std::optional<double> unix_s = stamp ? ParseTelemetryTimestamp(StripPython(*stamp)) : std::nullopt;
    if (!unix_s) continue;
    const auto gpu_cell = columns.gpu ? csv.Get(row, *columns.gpu) : std::nullopt;
    const std::string gpu = gpu_cell ? std::string(StripPython(*gpu_cell)) : "0";
    for (std::size_t f = 0; f < names.size(); ++f) {
      const auto cell = csv.Get(row, names[f]);
      std::optional<double> v = cell ? ParseTelemetryPower(*cell) : std::nullopt;
      if (v && !std::isfinite(*v)) v.reset();
      values[f] = v;
    }
    builder.Add("", gpu, *unix_s, values, kGpuSourceNvml);
  }
  return builder.Take();
}

std::vector<GpuSeries> ReadDcgmSamplesCsv(const std::string& path) {
  const CsvDict csv = ParseCsvDict(ReadText(path));
  for (const char* column : {"timestamp_unix", "hostname", "gpu_index", "power_w"}) {
    if (std::find(csv.header.begin(), csv.header.end(), column) == csv.header.end()) {
      throw InputError(Diagnostic{{path, 1, 1}, "", column, "the DCGM samples have no such column"});
    }
  }
  SeriesBuilder builder;
  builder.field_keys = {"power_w"};
  std::vector<std::optional<double>> values(1);
  for (std::size_t row = 0; row < csv.rows.size(); ++row) {
    const auto stamp = csv.Get(row, "timestamp_unix");
    const std::optional<double> unix_s = stamp ? ParsePythonFloat(StripPython(*stamp)) : std::nullopt;
    if (!unix_s || !std::isfinite(*unix_s)) continue;
    const auto power = csv.Get(row, "power_w");
    values[0] = power ? ParsePythonFloat(StripPython(*power)) : std::nullopt;
    if (values[0] && !std::isfinite(*values[0])) values[0].reset();
    builder.Add(std::string(StripPython(csv.Get(row, "hostname").value_or(""))),
                std::string(StripPython(csv.Get(row, "gpu_index").value_or(""))), *unix_s, values, kGpuSourceDcgm);
  }
  return builder.Take();
}

Json GpuSamplesJson(const GpuSeries& series) {
  Json doc = Json::object();
  Json t = Json::array();
  for (double v : series.t_s) t.push_back(Rounded(v, 1000));
  doc["t"] = std::move(t);
  for (const auto& [key, values] : series.fields) {
    Json list = Json::array();
    for (const std::optional<double>& v : values) list.push_back(v ? Json(Rounded(*v, 1000)) : Json(nullptr));
    doc[key] = std::move(list);
  }
  return doc;
}

void ReadGpuSamplesJson(std::string_view text, GpuSeries& series) {
  series.t_s.clear();
  series.fields.clear();
  // simdjson: a point page reads eight GPUs' thousands of samples per request.
  simdjson::dom::parser parser;
  simdjson::dom::object doc;
  if (parser.parse(text.data(), text.size()).get_object().get(doc) != simdjson::SUCCESS) return;
  simdjson::dom::array t;
  if (doc["t"].get_array().get(t) != simdjson::SUCCESS) return;
  const auto number = [](simdjson::dom::element v) -> std::optional<double> {
    double d = 0;
    return v.get_double().get(d) == simdjson::SUCCESS ? std::optional<double>(d) : std::nullopt;
  };
  series.t_s.reserve(t.size());
  for (const simdjson::dom::element v : t) series.t_s.push_back(number(v).value_or(0.0));
  for (const GpuField& field : kGpuFields) {
    simdjson::dom::array list;
    if (doc[field.key].get_array().get(list) != simdjson::SUCCESS || list.size() != series.t_s.size()) continue;
    std::vector<std::optional<double>> values;
    values.reserve(list.size());
    for (const simdjson::dom::element v : list) values.push_back(number(v));
    series.fields.emplace_back(field.key, std::move(values));
  }
}

}  // namespace infermark::results
