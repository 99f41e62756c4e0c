#include "calibration/served_points.hpp"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"

namespace infermark::calibration {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ParseRecord(const std::string& path) {
  try {
    return json::parse(ReadFile(path));
  } catch (const json::exception& e) {
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "", std::string("not valid JSON: ") + e.what()});
  }
}

const json& Field(const json& record, const char* key, const std::string& path, bool number) {
  if (!record.is_object() || !record.contains(key) || (number ? !record[key].is_number() : !record[key].is_string()))
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", key,
                                number ? "a number is required (an agg record as `results process` writes it)"
                                       : "a string is required (an agg record as `results process` writes it)"});
  return record[key];
}

int Int(const json& record, const char* key, const std::string& path, int fallback) {
  if (record.is_object() && record.contains(key) && record[key].is_number_integer()) return record[key].get<int>();
  if (record.is_object() && record.contains(key))
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", key, "an integer is required"});
  return fallback;
}

}  // namespace

std::vector<MeasuredPoint> LoadServedPoints(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(Diagnostic{SourceMark{dir, 0, 0}, "", "", "not a folder of agg_*.json records"});
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.rfind("agg_", 0) == 0 && entry.path().extension() == ".json")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(Diagnostic{SourceMark{dir, 0, 0}, "", "", "holds no agg_*.json record"});
  std::vector<MeasuredPoint> points;
  for (const std::string& path : files) {
    const json r = ParseRecord(path);
    MeasuredPoint p;
    p.model = Field(r, "model", path, false).get<std::string>();
    p.hardware = Field(r, "hw", path, false).get<std::string>();
    p.framework = Field(r, "framework", path, false).get<std::string>();
    p.precision = Field(r, "precision", path, false).get<std::string>();
    p.hw_key = p.hardware + "_" + p.framework;
    p.isl = Int(r, "isl", path, 0);
    p.osl = Int(r, "osl", path, 0);
    p.conc = Int(r, "conc", path, 0);
    p.tp = Int(r, "tp", path, 1) * Int(r, "pp", path, 1) * Int(r, "pcp_size", path, 1);
    p.tput_per_gpu = Field(r, "tput_per_gpu", path, true).get<double>();
    p.intvty = Field(r, "median_intvty", path, true).get<double>();
    p.e2el = Field(r, "median_e2el", path, true).get<double>();
    if (p.isl <= 0 || p.osl <= 0 || p.conc <= 0 || p.tp <= 0 || p.tput_per_gpu <= 0 || p.intvty <= 0)
      throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "",
                                  "isl, osl, conc, tp, tput_per_gpu and median_intvty must be positive"});
    // The raw client result beside the record says how many requests the client sent.
    const fs::path raw = fs::path(path).parent_path() / (fs::path(path).filename().string().substr(4));
    if (fs::is_regular_file(raw, ec)) p.prompts = Int(ParseRecord(raw.string()), "num_prompts", raw.string(), 0);
    points.push_back(std::move(p));
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const MeasuredPoint& a, const MeasuredPoint& b) { return a.conc < b.conc; });
  return points;
}

}  // namespace infermark::calibration
