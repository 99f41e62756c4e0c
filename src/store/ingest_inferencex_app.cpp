#include "store/ingest_inferencex_app.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <utility>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/sha256.hpp"
#include "results/eval_folder.hpp"
#include "store/app_evaluations.hpp"

namespace infermark::results {
namespace {

constexpr const char* kAppSource = "inferencex-app";

// Reads one API row's fields, each failure naming the file, the record and the field.
class RowReader {
 public:
  RowReader(const Json& row, const std::string& path, std::size_t index)
      : row_(row), path_(path), entry_("record " + std::to_string(index)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& rule) const {
    throw InputError(Diagnostic{{path_, 0, 0}, entry_, field, rule});
  }

  const Json* Find(const char* field) const {
    const auto it = row_.find(field);
    return it == row_.end() || it->is_null() ? nullptr : &*it;
  }

  std::string Text(const char* field) const {
    const Json* v = Find(field);
    if (v == nullptr) Fail(field, "field required");
    if (!v->is_string() || v->get<std::string>().empty()) Fail(field, "must be a non-empty string");
    return v->get<std::string>();
  }

  std::string TextOr(const char* field, const std::string& fallback) const {
    return Find(field) == nullptr ? fallback : Text(field);
  }

  bool Bool(const char* field, bool fallback) const {
    const Json* v = Find(field);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) Fail(field, "must be true or false");
    return v->get<bool>();
  }

  long long Int(const char* field, long long minimum) const {
    const Json* v = Find(field);
    if (v == nullptr) Fail(field, "field required");
    if (!v->is_number_integer()) Fail(field, "must be an integer");
    const long long value = v->get<long long>();
    if (value < minimum) Fail(field, "must be at least " + std::to_string(minimum));
    return value;
  }

 private:
  const Json& row_;
  const std::string& path_;
  std::string entry_;
};

std::string AppBoolText(bool value) {
  return value ? "true" : "false";
}

Json ParseJsonFile(const std::string& path) {
  const std::string text = ReadFile(path);
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    const std::size_t offset = std::min(e.byte, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(offset), '\n'));
    throw InputError(Diagnostic{{path, line, 0}, "", "", "not valid JSON"});
  }
}

bool IsAppRow(const Json& doc) {
  return doc.is_object() && doc.contains("hardware") && doc.contains("metrics") && doc["metrics"].is_object();
}

// A run's batch in `batches`, added when new.
IngestBatch& BatchOf(std::vector<IngestBatch>& batches, const RunInfo& run) {
  const auto existing =
      std::find_if(batches.begin(), batches.end(), [&](const IngestBatch& b) { return b.run.run_key == run.run_key; });
  if (existing != batches.end()) return *existing;
  batches.push_back(IngestBatch{run, {}, {}, {}, {}});
  return batches.back();
}

// The evaluation rows of an API file, one batch per workflow run. Two different rows with the same
// configuration, task and concurrency in one run are refused; identical ones are stored once.
void ReadAppEvaluations(const std::string& path, const Json& doc, const ReadOptions& options, const RunInfo& base,
                        std::vector<IngestBatch>& batches) {
  std::map<std::string, std::map<std::string, std::pair<std::size_t, std::string>>> seen;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (!IsAppEvaluationRow(doc[i])) {
      throw InputError(Diagnostic{{path, 0, 0},
                                  "record " + std::to_string(i),
                                  "",
                                  "an evaluation row needs hardware, task and a metrics object (the file's first "
                                  "row is one)"});
    }
    Evaluation e = EvaluationFromAppRow(doc[i], path, i, options.eval_thresholds);
    RunInfo run = AppRunOf(doc[i]);
    if (!base.run_key.empty()) {
      run.run_key = base.run_key;
      if (!base.label.empty()) run.label = base.label;
    }
    run.host = base.host;
    run.infermark_version = base.infermark_version;
    auto& keys = seen[run.run_key];
    if (const auto it = keys.find(e.EvalKey()); it != keys.end()) {
      if (it->second.second == e.raw_sha256) continue;
      throw InputError(Diagnostic{{path, 0, 0},
                                  "record " + std::to_string(i),
                                  "",
                                  "same configuration, task and concurrency as record " +
                                      std::to_string(it->second.first) + " in run " + run.run_key +
                                      ", with other scores"});
    }
    keys.emplace(e.EvalKey(), std::make_pair(i, e.raw_sha256));
    BatchOf(batches, run).evaluations.push_back(std::move(e));
  }
}

// Agg records only: one record or an array of them (agg_bmk.json).
std::vector<Point> ReadAggFile(const std::string& path, const Json& doc, const ReadOptions& options) {
  if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size(); ++i) {
      if (!IsAggRecord(doc[i])) {
        throw InputError(Diagnostic{{path, 0, 0},
                                    "record " + std::to_string(i),
                                    "",
                                    "an agg file holds processed agg records (objects with hw and tput_per_gpu)"});
      }
    }
  } else if (!IsAggRecord(doc)) {
    throw InputError(Diagnostic{
        {path, 0, 0}, "", "", "not an agg record (an object with hw and tput_per_gpu) or a JSON array of them"});
  }
  return ReadResultFile(path, options);
}

// The rows of an API file, grouped into runs in the order they first appear.
void ReadAppFile(const std::string& path, const Json& doc, const ReadOptions& options, const RunInfo& base,
                 std::vector<IngestBatch>& batches) {
  if (!doc.is_array()) {
    throw InputError(Diagnostic{{path, 0, 0}, "", "", "InferenceX-app API data is a JSON array of benchmark rows"});
  }
  if (!doc.empty() && IsAppEvaluationRow(doc[0])) {
    ReadAppEvaluations(path, doc, options, base, batches);
    return;
  }
  std::vector<IngestBatch> own;
  std::map<std::string, std::size_t> batch_of;
  // Per run: natural key → (record index, raw SHA-256) of the row that holds it.
  std::map<std::string, std::map<std::string, std::pair<std::size_t, std::string>>> seen;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (!doc[i].is_object()) {
      throw InputError(
          Diagnostic{{path, 0, 0}, "record " + std::to_string(i), "", "a benchmark row must be a JSON object"});
    }
    Point point = PointFromAppRow(doc[i], path, i);
    if (options.kind) point.provenance.kind = *options.kind;
    RunInfo run = AppRunOf(doc[i]);
    if (!base.run_key.empty()) {
      run.run_key = base.run_key;
      if (!base.label.empty()) run.label = base.label;
    }
    run.host = base.host;
    run.infermark_version = base.infermark_version;
    auto& keys = seen[run.run_key];
    const std::string canonical = point.key.Canonical();
    if (const auto it = keys.find(canonical); it != keys.end()) {
      if (it->second.second == point.raw_sha256) continue;
      throw InputError(Diagnostic{{path, 0, 0},
                                  "record " + std::to_string(i),
                                  "",
                                  "same configuration, sequence lengths and concurrency as record " +
                                      std::to_string(it->second.first) + " in run " + run.run_key +
                                      ", with other results"});
    }
    keys.emplace(canonical, std::make_pair(i, point.raw_sha256));
    const auto [slot, added] = batch_of.emplace(run.run_key, own.size());
    if (added) own.push_back(IngestBatch{run, {}, {}, {}, {}});
    own[slot->second].points.push_back(std::move(point));
  }
  for (IngestBatch& batch : own) {
    IngestBatch& into = BatchOf(batches, batch.run);
    for (Point& p : batch.points) into.points.push_back(std::move(p));
  }
}

}  // namespace

IngestFormat ParseIngestFormat(const std::string& text) {
  if (text == "auto") return IngestFormat::kAuto;
  if (text == "result") return IngestFormat::kResult;
  if (text == "agg") return IngestFormat::kAgg;
  if (text == "inferencex-app") return IngestFormat::kInferenceXApp;
  if (text == "lm-eval") return IngestFormat::kLmEval;
  throw InputError(Diagnostic{
      {}, "", "--format", "unknown format '" + text + "' (known: auto, result, agg, inferencex-app, lm-eval)"});
}

IngestFormat DetectIngestFormat(const Json& doc) {
  if (doc.is_array() && !doc.empty() && IsAppRow(doc[0])) return IngestFormat::kInferenceXApp;
  if (IsAggRecord(doc)) return IngestFormat::kAgg;
  if (doc.is_array() && !doc.empty() &&
      std::all_of(doc.begin(), doc.end(), [](const Json& e) { return IsAggRecord(e); })) {
    return IngestFormat::kAgg;
  }
  return IngestFormat::kResult;
}

Json AggFromAppRow(const Json& row, const std::string& path, std::size_t index) {
  const RowReader r(row, path, index);
  if (!row.is_object()) r.Fail("", "a benchmark row must be a JSON object");
  Json agg = Json::object();
  agg["hw"] = r.Text("hardware");
  agg["model"] = r.Text("model");
  agg["infmax_model_prefix"] = agg["model"];
  agg["framework"] = r.Text("framework");
  agg["precision"] = r.Text("precision");
  agg["spec_decoding"] = r.TextOr("spec_method", "none");
  agg["disagg"] = r.Bool("disagg", false);
  const bool multinode = r.Bool("is_multinode", false);
  agg["is_multinode"] = multinode;
  if (multinode) {
    for (const char* role : {"prefill", "decode"}) {
      const std::string p = role;
      agg[p + "_tp"] = r.Int((p + "_tp").c_str(), 0);
      agg[p + "_ep"] = r.Int((p + "_ep").c_str(), 0);
      agg[p + "_dp_attention"] = AppBoolText(r.Bool((p + "_dp_attention").c_str(), false));
      agg[p + "_num_workers"] = r.Int((p + "_num_workers").c_str(), 0);
    }
    agg["num_prefill_gpu"] = r.Int("num_prefill_gpu", 1);
    agg["num_decode_gpu"] = r.Int("num_decode_gpu", 0);
  } else {
    agg["tp"] = r.Int("decode_tp", 1);
    agg["ep"] = r.Int("decode_ep", 1);
    agg["dp_attention"] = AppBoolText(r.Bool("decode_dp_attention", false));
  }
  agg["conc"] = r.Int("conc", 1);
  const std::string type = r.TextOr("benchmark_type", "single_turn");
  if (type == "agentic_traces") {
    agg["scenario_type"] = kAgenticScenario;
    const std::string offload = r.TextOr("offload_mode", "off");
    if (offload != "on" && offload != "off") r.Fail("offload_mode", "must be on or off, not '" + offload + "'");
    agg["kv_offloading"] = offload == "on" ? "dram" : "none";
  } else if (type == "single_turn") {
    agg["isl"] = r.Int("isl", 1);
    agg["osl"] = r.Int("osl", 1);
  } else {
    r.Fail("benchmark_type", "must be single_turn or agentic_traces, not '" + type + "'");
  }
  const Json* image = r.Find("image");
  if (image != nullptr && !image->is_string()) r.Fail("image", "must be a string or null");
  agg["image"] = image != nullptr ? *image : Json();
  const Json* metrics = r.Find("metrics");
  if (metrics == nullptr) r.Fail("metrics", "field required");
  if (!metrics->is_object()) r.Fail("metrics", "must be an object of numbers");
  for (const auto& [name, value] : metrics->items()) {
    if (value.is_null()) continue;
    if (!value.is_number() || !std::isfinite(value.get<double>())) {
      r.Fail("metrics." + name, "must be a finite number");
    }
    agg[name] = value;
  }
  if (!agg.contains("tput_per_gpu")) r.Fail("metrics.tput_per_gpu", "field required");
  if (agg["tput_per_gpu"].get<double>() < 0) r.Fail("metrics.tput_per_gpu", "must not be negative");
  const std::string date = r.Text("date");
  static const std::regex kDay(R"(\d{4}-\d{2}-\d{2})");
  if (!std::regex_match(date, kDay)) r.Fail("date", "must be a day written YYYY-MM-DD, not '" + date + "'");
  agg["date"] = date;
  const Json* url = r.Find("run_url");
  if (url != nullptr && !url->is_string()) r.Fail("run_url", "must be a string or null");
  agg["run_url"] = url != nullptr ? *url : Json();
  agg["source"] = kAppSource;
  return agg;
}

Point PointFromAppRow(const Json& row, const std::string& path, std::size_t index) {
  Point point;
  point.agg = AggFromAppRow(row, path, index);
  point.key = KeyFromAgg(point.agg, path);
  point.raw_json = DumpJson(row, kCanonicalJson);
  point.raw_sha256 = Sha256Hex(point.raw_json);
  point.provenance.kind = PointKind::kMeasured;
  if (point.agg["image"].is_string()) point.provenance.image = point.agg["image"].get<std::string>();
  point.provenance.started_at = point.agg["date"].get<std::string>();
  point.provenance.source_path = path;
  return point;
}

RunInfo AppRunOf(const Json& row) {
  RunInfo run;
  run.source = kAppSource;
  const std::string date = row.contains("date") && row["date"].is_string() ? row["date"].get<std::string>() : "";
  const std::string url =
      row.contains("run_url") && row["run_url"].is_string() ? row["run_url"].get<std::string>() : "";
  static const std::regex kRun(R"(/actions/runs/(\d+)(?:/attempts/(\d+))?)");
  std::smatch m;
  if (std::regex_search(url, m, kRun)) {
    const std::string attempt = m[2].matched ? m[2].str() : "1";
    run.run_key = "inferencex-app-run-" + m[1].str() + "-" + attempt;
    run.label = "InferenceX " + date + " run " + m[1].str() + "/" + attempt;
  } else {
    run.run_key = "inferencex-app-" + date;
    run.label = "InferenceX " + date;
  }
  return run;
}

std::pair<int, int> StoreBatchDetails(ResultStore& store, const IngestBatch& batch) {
  std::pair<int, int> stored{0, 0};
  if (store.SchemaVersion() < DetailsSchemaVersion()) return stored;
  for (std::size_t i = 0; i < batch.details.size() && i < batch.points.size(); ++i) {
    if (!batch.details[i].Empty() &&
        store.StorePointDetails(batch.run, batch.points[i].key.Canonical(), batch.details[i]))
      ++stored.first;
  }
  for (std::size_t i = 0; i < batch.eval_samples.size() && i < batch.evaluations.size(); ++i) {
    if (!batch.eval_samples[i].empty() &&
        store.StoreEvalSamples(batch.run, batch.evaluations[i].EvalKey(), batch.eval_samples[i]))
      ++stored.second;
  }
  return stored;
}

std::vector<IngestBatch> ReadIngestBatches(const std::vector<std::string>& paths, IngestFormat format,
                                           const ReadOptions& options, const RunInfo& base) {
  std::vector<IngestBatch> batches;
  IngestBatch local;
  local.run = base;
  std::vector<Diagnostic> problems;
  if (format == IngestFormat::kAuto || format == IngestFormat::kLmEval) {
    for (const std::string& folder : FindEvalFolders(paths)) {
      try {
        std::vector<Evaluation> found = ReadEvalFolder(folder, options.eval_thresholds);
        for (Evaluation& e : found) {
          local.eval_samples.push_back(ReadEvalSamples(folder, e.metric, e.results_file, found.size() > 1));
          local.evaluations.push_back(std::move(e));
        }
      } catch (const InputError& e) {
        problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
      }
    }
  }
  const std::vector<std::string> files =
      format == IngestFormat::kLmEval ? std::vector<std::string>{} : ExpandResultPaths(paths);
  for (const std::string& file : files) {
    try {
      if (format == IngestFormat::kResult) {
        for (Point& p : ReadResultFile(file, options)) local.points.push_back(std::move(p));
        continue;
      }
      const Json doc = ParseJsonFile(file);
      const IngestFormat kind = format == IngestFormat::kAuto ? DetectIngestFormat(doc) : format;
      if (kind == IngestFormat::kInferenceXApp) {
        ReadAppFile(file, doc, options, base, batches);
      } else if (kind == IngestFormat::kAgg) {
        for (Point& p : ReadAggFile(file, doc, options)) local.points.push_back(std::move(p));
      } else {
        for (Point& p : ReadResultFile(file, options)) local.points.push_back(std::move(p));
      }
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  for (const Point& p : local.points) {
    try {
      local.details.push_back(p.provenance.source_path.empty() ? PointDetails{}
                                                               : ReadPointDetails(p.provenance.source_path));
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  if (!local.points.empty() || !local.evaluations.empty()) batches.insert(batches.begin(), std::move(local));
  if (batches.empty()) {
    throw InputError(Diagnostic{{},
                                "",
                                "",
                                format == IngestFormat::kLmEval ? "no eval folders found under the given paths"
                                                                : "no result files found under the given paths"});
  }
  return batches;
}

}  // namespace infermark::results
