#include "power/power_accumulator.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/diagnostic.hpp"
#include "power/power_integration.hpp"
#include "power/power_telemetry.hpp"
#include "power/python_csv.hpp"
#include "power/python_path.hpp"

namespace infermark::results {
namespace {

// A file the check could not read (the reference's OSError or csv.Error).
struct ReadFailure : std::runtime_error {
  ReadFailure() : std::runtime_error("unreadable") {}
};

CsvDict ReadCsv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReadFailure();
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ReadFailure();
  CsvDict csv = ParseCsvDict(buffer.str());
  if (csv.read_error) throw ReadFailure();
  return csv;
}

bool IsRegularFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

using Ordered = std::vector<std::pair<std::string, double>>;

// GPU id → accumulated joules from one snapshot, in first-seen order; nullopt when unusable.
std::optional<Ordered> ReadSnapshot(const std::string& path) {
  const CsvDict csv = ReadCsv(path);
  const auto has = [&](std::string_view name) {
    return std::find(csv.header.begin(), csv.header.end(), name) != csv.header.end();
  };
  if (!has("gpu") || !has("total_energy_consumption")) return std::nullopt;
  Ordered energy;
  for (std::size_t row = 0; row < csv.rows.size(); ++row) {
    const std::string gpu(StripPython(csv.Get(row, "gpu").value_or("")));
    if (gpu.empty()) continue;
    const auto joules = ParsePythonFloat(csv.Get(row, "total_energy_consumption").value_or(""));
    if (!joules || !std::isfinite(*joules)) continue;
    const auto it = std::find_if(energy.begin(), energy.end(), [&](const auto& e) { return e.first == gpu; });
    if (it == energy.end()) {
      energy.emplace_back(gpu, *joules);
    } else {
      it->second = *joules;
    }
  }
  if (energy.empty()) return std::nullopt;
  return energy;
}

std::optional<double> Find(const Ordered& values, const std::string& id) {
  for (const auto& [key, value] : values) {
    if (key == id) return value;
  }
  return std::nullopt;
}

// Every parseable sample of the whole stream per GPU, sorted by time then power.
std::map<std::string, std::vector<PowerSample>> StreamSamples(const std::string& csv_path) {
  const CsvDict csv = ReadCsv(csv_path);
  std::map<std::string, std::vector<PowerSample>> samples;
  const TelemetryColumns columns = DetectTelemetryColumns(csv.header);
  if (!columns.timestamp || !columns.power || !columns.gpu) return samples;
  for (std::size_t row = 0; row < csv.rows.size(); ++row) {
    const auto timestamp = ParseTelemetryTimestamp(csv.Get(row, *columns.timestamp).value_or(""));
    const auto power = ParseTelemetryPower(csv.Get(row, *columns.power).value_or(""));
    const std::string gpu(StripPython(csv.Get(row, *columns.gpu).value_or("")));
    if (!timestamp || !power || gpu.empty() || !std::isfinite(*timestamp) || !std::isfinite(*power)) continue;
    samples[gpu].push_back({*timestamp, *power});
  }
  for (auto& [gpu, list] : samples) {
    std::sort(list.begin(), list.end(), [](const PowerSample& a, const PowerSample& b) {
      return a.time_unix != b.time_unix ? a.time_unix < b.time_unix : a.watts < b.watts;
    });
  }
  return samples;
}

double Trapezoid(const std::vector<PowerSample>& samples) {
  double sum = 0.0;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    sum += (samples[i].time_unix - samples[i - 1].time_unix) * (samples[i - 1].watts + samples[i].watts) / 2.0;
  }
  return sum;
}

std::vector<std::string> SortedIds(std::vector<std::string> ids) {
  std::sort(ids.begin(), ids.end());
  std::stable_sort(ids.begin(), ids.end(), GpuIdBefore);
  return ids;
}

Json Unavailable(const char* reason) {
  return Json{{"available", false}, {"reason", reason}};
}

Json Check(const std::string& csv_path, const std::string& start_path, const std::string& end_path) {
  const bool start_exists = IsRegularFile(start_path);
  const bool end_exists = IsRegularFile(end_path);
  if (!start_exists && !end_exists) return nullptr;
  if (!start_exists) return Unavailable("missing_start_snapshot");
  if (!end_exists) return Unavailable("missing_end_snapshot");
  const auto start = ReadSnapshot(start_path);
  if (!start) return Unavailable("unparseable_start_snapshot");
  const auto end = ReadSnapshot(end_path);
  if (!end) return Unavailable("unparseable_end_snapshot");

  std::vector<std::string> matched;
  std::vector<std::string> unmatched;
  for (const auto& [id, joules] : *start) (Find(*end, id) ? matched : unmatched).push_back(id);
  for (const auto& [id, joules] : *end) {
    if (!Find(*start, id)) unmatched.push_back(id);
  }
  matched = SortedIds(matched);
  unmatched = SortedIds(unmatched);
  Json per_gpu_delta = Json::object();
  std::vector<std::string> negative;
  double delta_sum = 0.0;
  for (const std::string& id : matched) {
    const double delta = *Find(*end, id) - *Find(*start, id);
    per_gpu_delta[id] = delta;
    delta_sum += delta;
    if (delta < 0) negative.push_back(id);
  }

  const auto stream = StreamSamples(csv_path);
  std::vector<std::string> integrated;
  for (const std::string& id : matched) {
    if (stream.count(id) != 0) integrated.push_back(id);
  }
  integrated = SortedIds(integrated);
  double integrated_j = 0.0;
  std::optional<double> first;
  std::optional<double> last;
  for (const std::string& id : integrated) {
    const auto& samples = stream.at(id);
    integrated_j += Trapezoid(samples);
    for (double t : {samples.front().time_unix, samples.back().time_unix}) {
      if (!first || t < *first) first = t;
      if (!last || t > *last) last = t;
    }
  }
  const double span = first ? *last - *first : 0.0;

  Json relative_error = nullptr;
  bool within = false;
  if (delta_sum > 0) {
    const double error = std::fabs(delta_sum - integrated_j) / delta_sum;
    relative_error = error;
    within = negative.empty() && error <= kAccumulatorTolerance;
  }
  Json out = Json::object();
  out["available"] = true;
  out["accumulator_delta_j"] = delta_sum;
  out["integrated_stream_j"] = integrated_j;
  out["relative_error"] = relative_error;
  out["within_tolerance"] = within;
  out["tolerance"] = kAccumulatorTolerance;
  out["per_gpu_delta_j"] = per_gpu_delta;
  out["integrated_gpu_ids"] = integrated;
  out["unmatched_gpus"] = unmatched;
  out["negative_delta_gpus"] = negative;
  out["stream_span_s"] = span;
  return out;
}

}  // namespace

Json CrossCheckAccumulator(const std::string& csv_path) {
  const std::string stem = PythonPathStem(csv_path);
  const auto start_path = PythonPathWithName(csv_path, stem + "_energy_start.csv");
  const auto end_path = PythonPathWithName(csv_path, stem + "_energy_end.csv");
  if (!start_path || !end_path) {
    throw InputError(Diagnostic{{csv_path, 0, 0}, "", "--csv", "the telemetry path names no file"});
  }
  try {
    return Check(csv_path, *start_path, *end_path);
  } catch (const ReadFailure&) {
    return Unavailable("cross_check_error");
  }
}

}  // namespace infermark::results
