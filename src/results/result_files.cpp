#include "results/result_files.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <regex>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/sha256.hpp"
#include "metrics/repeat_result.hpp"
#include "power/agentic_power.hpp"
#include "power/power_fields.hpp"
#include "results/agentic_record.hpp"
#include "results/eval_folder.hpp"
#include "results/process_result.hpp"

namespace infermark::results {
namespace fs = std::filesystem;
namespace {

std::string TextOf(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string joined;
    for (const auto& item : value) joined += (joined.empty() ? "" : " ") + TextOf(item);
    return joined;
  }
  if (value.is_null()) return "";
  return DumpJson(value);
}

// A field of infermark's block, else the same key at top level.
const Json* Field(const Json& result, const char* key) {
  const auto block = result.find("infermark");
  if (block != result.end() && block->is_object()) {
    const auto it = block->find(key);
    if (it != block->end()) return &*it;
  }
  const auto it = result.find(key);
  return it != result.end() ? &*it : nullptr;
}

Json ParseFile(const std::string& path, std::string& text) {
  text = ReadFile(path);
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    // The parser reports a byte offset; people read lines.
    const std::size_t offset = std::min(e.byte, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
    // Python's json.dump writes NaN and Infinity, which JSON cannot hold: say what they are.
    const std::size_t from = offset > 9 ? offset - 9 : 0;
    const std::string near = text.substr(from, 18);
    if (near.find("NaN") != std::string::npos || near.find("Infinity") != std::string::npos) {
      throw InputError(Diagnostic{
          {path, line, 0}, "", "", "a non-finite figure (NaN or Infinity): every metric must be a finite number"});
    }
    throw InputError(Diagnostic{{path, line, 0}, "", "", "not valid JSON"});
  } catch (const Json::out_of_range& e) {
    // A number beyond a double's range (1e999) reads as infinite.
    throw InputError(
        Diagnostic{{path, 0, 0},
                   "",
                   "",
                   std::string("a non-finite figure: every metric must be a finite number (") + e.what() + ")"});
  }
}

// Why the power aggregation judged a result's power not valid: the reasons of its sidecar,
// `power_validation_<stem>.json` beside the result (an `agg_` prefix dropped), else an agentic
// run's `power_validation.json` in the row's log folder (the runner's) or beside the aggregate
// (`bench agentic`'s). Empty when none is found or it is not readable.
std::vector<std::string> PowerReasonsBeside(const std::string& path) {
  const fs::path file(path);
  std::string stem = file.stem().string();
  if (stem.rfind("agg_", 0) == 0) stem = stem.substr(4);
  const fs::path dir = file.parent_path();
  for (const fs::path& candidate :
       {dir / ("power_validation_" + stem + ".json"), dir / "logs" / stem / kAgenticPowerValidationFile,
        dir / kAgenticPowerValidationFile}) {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) continue;
    const Json sidecar = Json::parse(ReadFile(candidate.string()), nullptr, false);
    if (!sidecar.is_object()) continue;
    const auto reasons = sidecar.find("reasons");
    if (reasons == sidecar.end() || !reasons->is_array()) continue;
    std::vector<std::string> out;
    for (const Json& r : *reasons) out.push_back(TextOf(r));
    return out;
  }
  return {};
}

Point FromAgg(const Json& agg, const std::string& raw_text, const Json* raw, const ReadOptions& options,
              const std::string& path) {
  Point point;
  point.key = KeyFromAgg(agg, path);
  point.agg = agg;
  point.raw_json = raw_text;
  point.raw_sha256 = Sha256Hex(raw_text);
  point.provenance = raw ? ReadProvenance(*raw) : ReadProvenance(agg);
  if (point.provenance.image.empty() && agg.contains("image") && agg["image"].is_string()) {
    point.provenance.image = agg["image"].get<std::string>();
  }
  if (options.kind) point.provenance.kind = *options.kind;
  if (options.time_scale) point.provenance.time_scale = *options.time_scale;
  if (point.provenance.config_key.empty()) point.provenance.config_key = options.config_key;
  point.provenance.source_path = path;
  if (PowerFieldsOf(agg).Invalid()) point.provenance.power_invalid_reasons = PowerReasonsBeside(path);
  return point;
}

// aiperf's artifacts and the power window of an agentic row: inputs of its aggregate, never results.
bool IsAgenticArtifact(const fs::path& file) {
  for (const auto& part : file.parent_path()) {
    if (part == "aiperf_artifacts") return true;
  }
  const std::string name = file.filename().string();
  return name == "profile_export_aiperf.json" || name == "server_metrics_export.json" || name == "inputs.json" ||
         name == "agentic_power_window.json";
}

}  // namespace

bool IsAggRecord(const Json& doc) {
  return doc.is_object() && doc.contains("hw") && doc.contains("tput_per_gpu");
}

Provenance ReadProvenance(const Json& result) {
  Provenance p;
  if (!result.is_object()) return p;
  if (const Json* v = Field(result, "predicted"); v && v->is_boolean() && v->get<bool>())
    p.kind = PointKind::kPredicted;
  for (const char* key : {"kind", "mode", "clock"}) {
    if (const Json* v = Field(result, key); v && v->is_string()) {
      const std::string s = v->get<std::string>();
      if (s == "predicted" || s == "virtual") p.kind = PointKind::kPredicted;
    }
  }
  if (const Json* v = Field(result, "time_scale"); v && v->is_number() && v->get<double>() > 0) {
    p.time_scale = v->get<double>();
  }
  if (const Json* v = Field(result, "config_key")) p.config_key = TextOf(*v);
  if (const Json* v = Field(result, "matrix_row"); v && v->is_object()) p.matrix_row = *v;
  if (p.config_key.empty() && p.matrix_row.is_object() && p.matrix_row.contains("exp-name")) {
    p.config_key = TextOf(p.matrix_row["exp-name"]);
  }
  if (const Json* v = Field(result, "image")) p.image = TextOf(*v);
  if (p.image.empty() && p.matrix_row.is_object() && p.matrix_row.contains("image")) {
    p.image = TextOf(p.matrix_row["image"]);
  }
  if (const Json* v = Field(result, "engine_flags")) p.engine_flags = TextOf(*v);
  if (const Json* v = Field(result, "host")) p.host = TextOf(*v);
  if (const Json* v = Field(result, "infermark_version")) p.infermark_version = TextOf(*v);
  if (const Json* v = Field(result, "git_commit")) p.git_commit = TextOf(*v);
  if (const auto block = result.find("infermark"); block != result.end() && block->is_object()) {
    if (const auto v = block->find("version"); p.infermark_version.empty() && v != block->end()) {
      p.infermark_version = TextOf(*v);
    }
  }
  if (const Json* v = Field(result, "metrics_version")) p.metrics_version = TextOf(*v);
  if (const Json* v = Field(result, "verdict")) {
    if (v->is_object()) {
      p.verdict = TextOf(v->value("verdict", v->value("status", Json())));
      if (v->contains("reasons") && !(*v)["reasons"].empty()) p.verdict += ": " + TextOf((*v)["reasons"]);
    } else {
      p.verdict = TextOf(*v);
      // The load generator writes the reasons beside the verdict, one sentence each.
      if (const Json* reasons = Field(result, "verdict_reasons"); reasons && reasons->is_array() && !reasons->empty()) {
        std::string joined;
        for (const auto& r : *reasons) joined += (joined.empty() ? "" : "; ") + TextOf(r);
        p.verdict += ": " + joined;
      }
    }
  }
  if (const auto block = result.find("infermark"); block != result.end() && block->is_object()) {
    const auto figures = block->find("host_error");
    if (figures != block->end() && figures->is_object()) {
      p.host_error = Json::object();
      p.host_error["kind"] = block->value("host_error_kind", "");
      p.host_error["figures"] = *figures;
      const auto marks = block->find("host_error_marks");
      p.host_error["marks"] = marks != block->end() && marks->is_array() ? *marks : Json::array();
    }
  }
  if (const Json* v = Field(result, "complete"); v && v->is_boolean() && !v->get<bool>()) {
    p.verdict += p.verdict.empty() ? "incomplete" : " (incomplete)";
  }
  if (const auto v = result.find("benchmark_start_time_unix"); v != result.end() && v->is_number()) {
    p.started_at = IsoUtc(v->get<double>());
  }
  if (const auto v = result.find("benchmark_end_time_unix"); v != result.end() && v->is_number()) {
    p.ended_at = IsoUtc(v->get<double>());
  }
  return p;
}

std::string RowRecordPath(const std::string& path) {
  const fs::path p(path);
  if (p.extension() != ".json") return {};
  std::error_code ec;
  const fs::path beside = p.parent_path() / (p.stem().string() + ".row.json");
  if (fs::is_regular_file(beside, ec)) return beside.string();
  // A multi-node row writes one file per concurrency under its RESULT_FILENAME and one record.
  static const std::regex kMultiNodePoint(R"((.+)_conc[0-9]+_gpus_[0-9]+(_ctx_[0-9]+_gen_[0-9]+)?)");
  std::smatch m;
  const std::string stem = p.stem().string();
  if (std::regex_match(stem, m, kMultiNodePoint)) {
    const fs::path row = p.parent_path() / (m[1].str() + ".row.json");
    if (fs::is_regular_file(row, ec)) return row.string();
  }
  return {};
}

// The sweep's record of a row (RowRecordPath): the matrix row it ran, the engine's time scale and
// the server command line. Null when there is none.
Json RowSidecar(const std::string& path) {
  const std::string record = RowRecordPath(path);
  if (record.empty()) return Json();
  Json state = Json::parse(ReadFile(record), nullptr, false);
  return state.is_object() ? state : Json();
}

// Fills what the result itself did not say from the sweep's row record.
void ApplySidecar(Provenance& p, const Json& state, const ReadOptions& options) {
  if (!state.is_object()) return;
  if (p.matrix_row.is_null() && state.contains("row") && state["row"].is_object()) p.matrix_row = state["row"];
  if (p.config_key.empty() && p.matrix_row.is_object() && p.matrix_row.contains("exp-name")) {
    p.config_key = TextOf(p.matrix_row["exp-name"]);
  }
  if (p.image.empty() && p.matrix_row.is_object() && p.matrix_row.contains("image")) {
    p.image = TextOf(p.matrix_row["image"]);
  }
  if (!options.time_scale && p.time_scale == 1 && state.contains("time_scale") && state["time_scale"].is_number() &&
      state["time_scale"].get<double>() > 0) {
    p.time_scale = state["time_scale"].get<double>();
  }
  if (p.engine_flags.empty() && state.contains("server_argv")) p.engine_flags = TextOf(state["server_argv"]);
}

Point PointFromAgenticAggregate(const std::string& raw_text, const Json& aggregate, const Json& summary,
                                const ReadOptions& options, const std::string& path) {
  const Json record = NormalizeAgenticAggregate(aggregate, summary, path);
  Point point = FromAgg(record, raw_text, &aggregate, options, path);
  point.provenance.verdict = AgenticVerdict(record);
  ApplySidecar(point.provenance, RowSidecar(path), options);
  return point;
}

Point PointFromClientResult(const std::string& raw_text, const Json& result, const ReadOptions& options,
                            const std::string& path) {
  if (!result.is_object()) throw InputError(Diagnostic{{path, 0, 0}, "", "", "a result must be a JSON object"});
  Json normalized = result;
  NormalizeClientKeys(normalized);
  // Flags over the result's own matrix row over its name's GPU counts (multi-node files) over the
  // environment.
  ProcessSettings settings = options.environment;
  settings.Overlay(SettingsFromResultName(fs::path(path).stem().string()));
  const Json sidecar = RowSidecar(path);
  if (sidecar.is_object() && sidecar.contains("row")) settings.Overlay(SettingsFromMatrixRow(sidecar["row"]));
  if (const Json* row = Field(result, "matrix_row")) settings.Overlay(SettingsFromMatrixRow(*row));
  settings.Overlay(options.flags);
  ProcessOptions process;
  process.zero_tpot = ZeroTpot::kOmit;
  const Json agg = ProcessClientResult(normalized, settings, path, process);
  Point point = FromAgg(agg, raw_text, &result, options, path);
  ApplySidecar(point.provenance, sidecar, options);
  return point;
}

std::vector<PointRepeat> ReadRepeatFiles(const Json& result, const ReadOptions& options, const std::string& path) {
  const Json* block = metrics::RepeatsBlock(result);
  if (block == nullptr) return {};
  std::vector<PointRepeat> repeats;
  const metrics::RepeatSetup setup = metrics::RepeatSetupOf(*block);
  for (std::size_t k = 0; k < setup.files.size(); ++k) {
    const fs::path file = fs::path(path).parent_path() / setup.files[k];
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    std::string text;
    const Json doc = ParseFile(file.string(), text);
    // Deployment facts as the combined result's (its name and row record), provenance its own.
    const Point one = PointFromClientResult(text, doc, options, path);
    PointRepeat r;
    r.index = static_cast<int>(k + 1);
    r.verdict = one.provenance.verdict;
    r.started_at = one.provenance.started_at;
    r.ended_at = one.provenance.ended_at;
    r.source_path = file.string();
    r.raw_sha256 = Sha256Hex(text);
    r.raw_json = std::move(text);
    r.agg = one.agg;
    repeats.push_back(std::move(r));
  }
  return repeats;
}

std::vector<Point> ReadResultFile(const std::string& path, const ReadOptions& options) {
  std::string text;
  const Json doc = ParseFile(path, text);
  if (doc.is_array()) {
    std::vector<Point> points;
    for (std::size_t i = 0; i < doc.size(); ++i) {
      const std::string element = "[" + std::to_string(i) + "]";
      if (IsAgenticAggregate(doc[i])) {
        try {
          points.push_back(PointFromAgenticAggregate(DumpJson(doc[i]), doc[i], Json(), options, path));
        } catch (const InputError& e) {
          // Name the element as the entry, the field inside it as the field.
          std::vector<Diagnostic> named = e.diagnostics();
          for (Diagnostic& d : named) d.entry = element;
          throw InputError(std::move(named));
        }
        continue;
      }
      if (!IsAggRecord(doc[i])) {
        throw InputError(
            Diagnostic{{path, 0, 0},
                       "",
                       element,
                       "an array must hold processed agg records (with hw and tput_per_gpu) or agentic aggregates"});
      }
      points.push_back(FromAgg(doc[i], DumpJson(doc[i]), nullptr, options, path));
    }
    return points;
  }
  if (!doc.is_object()) throw InputError(Diagnostic{{path, 0, 0}, "", "", "a result file must hold a JSON object"});
  if (IsAgenticAggregate(doc)) {
    return {PointFromAgenticAggregate(text, doc, ReadAgenticSummaryBeside(path), options, path)};
  }
  if (IsAggRecord(doc)) return {FromAgg(doc, text, nullptr, options, path)};
  const fs::path agg_path = fs::path(path).parent_path() / ("agg_" + fs::path(path).filename().string());
  std::error_code ec;
  if (fs::is_regular_file(agg_path, ec)) {
    std::string agg_text;
    const Json agg = ParseFile(agg_path.string(), agg_text);
    if (IsAggRecord(agg)) {
      Point point = FromAgg(agg, text, &doc, options, path);
      point.repeats = ReadRepeatFiles(doc, options, path);
      return {point};
    }
  }
  Point point = PointFromClientResult(text, doc, options, path);
  point.repeats = ReadRepeatFiles(doc, options, path);
  return {point};
}

namespace {

// Whether `file` lies in an eval folder at or below `root` (its own folder or one above it).
bool InsideEvalFolder(const fs::path& file, const fs::path& root) {
  const fs::path top = root.lexically_normal();
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (IsEvalFolder(dir.string())) return true;
    if (dir.lexically_normal() == top || dir == dir.parent_path()) break;
  }
  return false;
}

}  // namespace

std::vector<std::string> ExpandResultPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->path().extension() != ".json") continue;
        const std::string name = it->path().filename().string();
        if (name.rfind("power_validation", 0) == 0) continue;
        // An eval folder's files (lm-eval's results, meta_env.json, eval_status.json, its repeats'
        // folders) are read as one evaluation by ReadEvalFolder, never as result files.
        if (InsideEvalFolder(it->path(), path)) continue;
        if (IsAgenticArtifact(it->path())) continue;
        if (name.size() > 9 && name.compare(name.size() - 9, 9, ".row.json") == 0) continue;  // sweep's row record
        // An attempt the host spoiled, kept in its row's log folder: the row's point is the last attempt's.
        if (name.rfind("attempt-", 0) == 0 && it->path().parent_path().parent_path().filename() == "logs") continue;
        if (name.rfind("agg_", 0) == 0 && fs::is_regular_file(it->path().parent_path() / name.substr(4), ec)) continue;
        // A repeat's file (or a spoiled attempt's) is read with the combined result it belongs to.
        if (const auto owner = metrics::RepeatOwnerName(name);
            owner && fs::is_regular_file(it->path().parent_path() / *owner, ec)) {
          continue;
        }
        found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::exists(path, ec)) {
      files.push_back(path);
    } else {
      throw InputError(Diagnostic{{path, 0, 0}, "", "", "no such file or folder"});
    }
  }
  return files;
}

}  // namespace infermark::results
