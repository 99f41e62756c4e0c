#include "results/eval_folder.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "core/eval_batch.hpp"
#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/sha256.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStatusFile = "eval_status.json";
constexpr const char* kMetaFile = "meta_env.json";

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

// Typed reads of one JSON object's fields, each failure naming the file, the field and the rule.
class Fields {
 public:
  Fields(const Json& doc, std::string path) : doc_(doc), path_(std::move(path)) {
    if (!doc_.is_object()) Fail("", "must be a JSON object");
  }

  [[noreturn]] void Fail(const std::string& field, const std::string& rule) const {
    throw InputError(Diagnostic{{path_, 0, 0}, "", field, rule});
  }

  const Json* Find(const char* field) const {
    const auto it = doc_.find(field);
    return it == doc_.end() || it->is_null() ? nullptr : &*it;
  }

  std::optional<std::string> Text(const char* field) const {
    const Json* v = Find(field);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) Fail(field, "must be a string or null");
    return v->get<std::string>();
  }

  std::string RequiredText(const char* field) const {
    const auto v = Text(field);
    if (!v || v->empty()) Fail(field, "field required (a non-empty string)");
    return *v;
  }

  std::optional<double> Number(const char* field) const {
    const Json* v = Find(field);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number() || !std::isfinite(v->get<double>())) Fail(field, "must be a finite number or null");
    return v->get<double>();
  }

  std::optional<double> Score(const char* field) const {
    const auto v = Number(field);
    if (v && (*v < 0 || *v > 1)) Fail(field, "must be a score between 0 and 1");
    return v;
  }

  // An integer, or a string holding one (meta_env.json writes isl and osl as strings).
  std::optional<long long> Int(const char* field) const {
    const Json* v = Find(field);
    if (v == nullptr) return std::nullopt;
    if (v->is_number_integer()) return v->get<long long>();
    if (v->is_string()) {
      const std::string& s = v->get_ref<const std::string&>();
      std::size_t used = 0;
      try {
        const long long x = std::stoll(s, &used);
        if (used == s.size()) return x;
      } catch (const std::exception&) {
        // Reported below.
      }
    }
    Fail(field, "must be an integer");
  }

  long long IntOr(const char* field, long long fallback) const { return Int(field).value_or(fallback); }

  // true/false, or the strings "true"/"false" (any case) as the launcher environment writes them.
  std::optional<bool> Bool(const char* field) const {
    const Json* v = Find(field);
    if (v == nullptr) return std::nullopt;
    if (v->is_boolean()) return v->get<bool>();
    if (v->is_string()) {
      std::string s = v->get<std::string>();
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (s == "true") return true;
      if (s == "false") return false;
    }
    Fail(field, "must be true or false");
  }

  std::vector<std::string> Strings(const char* field) const {
    const Json* v = Find(field);
    if (v == nullptr) return {};
    if (!v->is_array()) Fail(field, "must be a list of strings");
    std::vector<std::string> out;
    for (const Json& e : *v) {
      if (!e.is_string()) Fail(field, "must be a list of strings");
      out.push_back(e.get<std::string>());
    }
    return out;
  }

 private:
  const Json& doc_;
  std::string path_;
};

std::string BoolText(bool value) {
  return value ? "true" : "false";
}

// The configuration in meta_env.json as the agg record of a point of it would hold it, so that
// KeyFromAgg keys both alike.
PointKey KeyFromMeta(const Fields& meta, const std::string& path, const std::string& fallback_model,
                     std::optional<long long> conc, bool& multinode) {
  Json agg = Json::object();
  std::string model = meta.Text("model").value_or("");
  if (model.empty() || model == "unknown") model = fallback_model;
  if (model.empty()) meta.Fail("model", "field required (the served model)");
  agg["model"] = model;
  agg["hw"] = meta.RequiredText("hw");
  agg["framework"] = meta.RequiredText("framework");
  agg["precision"] = meta.RequiredText("precision");
  const std::string spec = meta.Text("spec_decoding").value_or("");
  agg["spec_decoding"] = spec.empty() ? "none" : spec;
  multinode = meta.Bool("is_multinode").value_or(false);
  agg["is_multinode"] = multinode;
  // meta_env.json names no disaggregation; InferenceX's multi-node rows are disaggregated.
  agg["disagg"] = meta.Bool("disagg").value_or(multinode);
  const bool dp = meta.Bool("dp_attention").value_or(false);
  const long long tp = meta.IntOr("tp", 1);
  const long long ep = meta.IntOr("ep", 1);
  if (multinode) {
    for (const char* name : {"prefill", "decode"}) {
      const std::string role = name;
      agg[role + "_num_workers"] = meta.IntOr((role + "_num_workers").c_str(), 1);
      agg[role + "_tp"] = meta.IntOr((role + "_tp").c_str(), tp);
      agg[role + "_ep"] = meta.IntOr((role + "_ep").c_str(), ep);
      agg[role + "_dp_attention"] = BoolText(meta.Bool((role + "_dp_attention").c_str()).value_or(dp));
      agg[role + "_pp"] = meta.IntOr((role + "_pp").c_str(), 1);
      agg[role + "_dcp_size"] = meta.IntOr((role + "_dcp_size").c_str(), 1);
      agg[role + "_pcp_size"] = meta.IntOr((role + "_pcp_size").c_str(), 1);
    }
  } else {
    agg["tp"] = tp;
    agg["ep"] = ep;
    agg["dp_attention"] = BoolText(dp);
    agg["pp"] = meta.IntOr("pp", 1);
    agg["dcp_size"] = meta.IntOr("dcp_size", 1);
    agg["pcp_size"] = meta.IntOr("pcp_size", 1);
  }
  agg["conc"] = conc ? *conc : meta.IntOr("conc", 0);
  agg["isl"] = meta.IntOr("isl", 0);
  agg["osl"] = meta.IntOr("osl", 0);
  return KeyFromAgg(agg, path);
}

// What collect_eval_results.py's extract_lm_metrics takes from a results file, for its first task.
struct LmMetrics {
  std::string task;
  std::string metric;
  std::optional<double> strict, strict_se, flexible, flexible_se;
  std::optional<long long> n;
  std::string model;
  std::string date;
  std::optional<double> duration_s;
  std::vector<std::string> invalid_reasons;
};

std::optional<double> NumberOrNull(const Json& doc, const std::string& key) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_number()) return std::nullopt;  // lm-eval writes "N/A" for no stderr
  return it->get<double>();
}

LmMetrics ExtractLmMetrics(const Json& doc, const std::string& path) {
  const auto fail = [&](const std::string& field, const std::string& rule) {
    throw InputError(Diagnostic{{path, 0, 0}, "", field, rule});
  };
  if (!doc.is_object()) fail("", "an lm-eval results file is a JSON object");
  const auto results = doc.find("results");
  if (results == doc.end() || !results->is_object() || results->empty()) {
    fail("results", "field required (an object of task results)");
  }
  LmMetrics m;
  m.task = results->begin().key();
  const Json& task_results = results->begin().value();
  if (!task_results.is_object()) fail("results." + m.task, "must be an object of metrics");
  Json config = Json::object();
  if (const auto configs = doc.find("configs"); configs != doc.end() && configs->is_object()) {
    if (const auto c = configs->find(m.task); c != configs->end() && c->is_object()) config = *c;
  }
  std::string base = "exact_match";
  if (const auto list = config.find("metric_list"); list != config.end() && list->is_array() && !list->empty() &&
                                                    (*list)[0].is_object() && (*list)[0].contains("metric") &&
                                                    (*list)[0]["metric"].is_string()) {
    base = (*list)[0]["metric"].get<std::string>();
  }
  const auto filters = config.find("filter_list");
  if (filters == config.end() || !filters->is_array() || filters->empty()) {
    if (task_results.contains("acc")) {
      m.metric = "acc";
      m.strict = NumberOrNull(task_results, "acc");
      m.strict_se = NumberOrNull(task_results, "acc_stderr");
    } else {
      m.metric = base;
      m.strict = NumberOrNull(task_results, base);
      m.strict_se = NumberOrNull(task_results, base + "_stderr");
    }
  } else {
    for (const Json& f : *filters) {
      if (!f.is_object() || !f.contains("name") || !f["name"].is_string()) continue;
      const std::string name = f["name"].get<std::string>();
      if (name.find("strict") != std::string::npos || name.find("resolved") != std::string::npos) {
        m.metric = base + "," + name;
        m.strict = NumberOrNull(task_results, base + "," + name);
        m.strict_se = NumberOrNull(task_results, base + "_stderr," + name);
      } else if (name.find("flex") != std::string::npos || name.find("extract") != std::string::npos) {
        m.flexible = NumberOrNull(task_results, base + "," + name);
        m.flexible_se = NumberOrNull(task_results, base + "_stderr," + name);
      }
    }
  }
  if (const auto n = doc.find("n-samples"); n != doc.end() && n->is_object()) {
    if (const auto t = n->find(m.task); t != n->end() && t->is_object()) {
      if (const auto e = t->find("effective"); e != t->end() && e->is_number_integer()) m.n = e->get<long long>();
    }
  }
  if (const auto name = doc.find("model_name"); name != doc.end() && name->is_string())
    m.model = name->get<std::string>();
  if (const auto date = NumberOrNull(doc, "date")) m.date = IsoUtc(*date);
  const auto start = NumberOrNull(doc, "start_time");
  const auto end = NumberOrNull(doc, "end_time");
  if (start && end && *end >= *start) m.duration_s = *end - *start;
  if (const auto own = doc.find("infermark"); own != doc.end() && own->is_object()) {
    if (const auto why = own->find("invalid_reasons"); why != own->end() && why->is_array()) {
      for (const Json& r : *why) {
        if (r.is_string()) m.invalid_reasons.push_back(r.get<std::string>());
      }
    }
  }
  return m;
}

// The newest (by modification time, then name) of `files`.
fs::path Newest(const std::vector<fs::path>& files) {
  return *std::max_element(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    std::error_code ec;
    const auto ta = fs::last_write_time(a, ec);
    const auto tb = fs::last_write_time(b, ec);
    return ta != tb ? ta < tb : a.filename() < b.filename();
  });
}

bool StartsWith(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// The results file collect_eval_results.py would take (the newest JSON naming lm_eval_version;
// in a batched folder, of concurrency `conc`), else the newest invalid_/incomplete_ one infermark
// wrote; empty when there is none.
fs::path FindResultsFile(const fs::path& dir, Json& doc, std::optional<long long> conc) {
  std::vector<fs::path> finished, unfinished;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file(ec) || entry.path().extension() != ".json" || name == kMetaFile || name == kStatusFile) {
      continue;
    }
    if (conc && BatchedFileConcurrency(name) != conc) continue;
    if (StartsWith(name, "invalid_results") || StartsWith(name, "incomplete_results")) {
      unfinished.push_back(entry.path());
      continue;
    }
    Json parsed;
    try {
      parsed = Json::parse(ReadFile(entry.path().string()));
    } catch (const Json::parse_error&) {
      continue;  // as the reference's load_json: an unreadable file is not a results file
    }
    if (parsed.is_object() && parsed.contains("lm_eval_version")) finished.push_back(entry.path());
  }
  const std::vector<fs::path>& pool = finished.empty() ? unfinished : finished;
  if (pool.empty()) return {};
  const fs::path chosen = Newest(pool);
  doc = ParseJsonFile(chosen.string());
  return chosen;
}

}  // namespace

bool IsEvalFolder(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / kStatusFile, ec) || fs::is_regular_file(fs::path(dir) / kMetaFile, ec);
}

std::vector<std::string> FindEvalFolders(const std::vector<std::string>& paths) {
  std::vector<std::string> folders;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw InputError(Diagnostic{{path, 0, 0}, "", "", "no such file or folder"});
    if (!fs::is_directory(path, ec)) continue;
    if (IsEvalFolder(path)) folders.push_back(path);
    for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && IsEvalFolder(it->path().string())) folders.push_back(it->path().string());
    }
  }
  std::sort(folders.begin(), folders.end());
  folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
  // A multi-node row's folder may keep InferenceX's own batched files (meta_env.json with
  // eval_concs) above its conc<N>/ folders: the folders with infermark's status stand for it.
  std::vector<std::string> kept;
  for (const std::string& folder : folders) {
    const std::string prefix = folder + "/";
    const bool parent = std::any_of(folders.begin(), folders.end(), [&](const std::string& other) {
      std::error_code exists;
      return other.rfind(prefix, 0) == 0 && fs::is_regular_file(fs::path(other) / kStatusFile, exists);
    });
    if (!parent) kept.push_back(folder);
  }
  return kept;
}

namespace {

// The task of a batch's other concurrencies, for one that left no file naming it (a failed or
// unrun concurrency of InferenceX's artifacts); empty when no results file names one.
std::string BatchTask(const fs::path& folder) {
  Json doc;
  const fs::path any = FindResultsFile(folder, doc, std::nullopt);
  if (any.empty()) return {};
  try {
    return ExtractLmMetrics(doc, any.string()).task;
  } catch (const InputError&) {
    return {};
  }
}

// One evaluation of folder `dir` whose meta_env.json is `meta_doc`: the folder's one eval, or in a
// batched folder (`batch`) that of concurrency `conc`.
Evaluation ReadOneEval(const std::string& dir, const Json& meta_doc, const EvalBatch* batch,
                       std::optional<long long> conc, const EvalThresholds* thresholds) {
  const fs::path folder(dir);
  const std::string meta_path = (folder / kMetaFile).string();
  const Fields meta(meta_doc, meta_path);
  const std::string status_name =
      conc ? "eval_status_conc" + std::to_string(*conc) + ".json" : std::string(kStatusFile);
  const std::string status_path = (folder / status_name).string();
  std::error_code ec;
  const bool has_status = fs::is_regular_file(status_path, ec);

  Evaluation e;
  e.source_path = dir;
  Json raw = Json::object();
  raw["meta_env"] = meta_doc;
  Json results_doc;
  fs::path results_path;
  LmMetrics lm;

  if (has_status) {
    const Json status_doc = ParseJsonFile(status_path);
    raw["eval_status"] = status_doc;
    const Fields s(status_doc, status_path);
    if (s.Text("schema").value_or("") != kEvalStatusSchema) {
      s.Fail("schema", std::string("must be ") + kEvalStatusSchema);
    }
    e.task = s.RequiredText("task");
    const std::string status = s.RequiredText("status");
    const auto parsed = ParseEvalStatus(status);
    if (!parsed) s.Fail("status", "must be scored, not_run, invalid or incomplete, not '" + status + "'");
    e.status = *parsed;
    e.reasons = s.Strings("reasons");
    e.metric = s.Text("metric").value_or("");
    e.score = s.Score("score");
    e.score_stderr = s.Number("stderr");
    e.n = s.Int("n");
    e.flexible_score = s.Score("flexible_score");
    e.flexible_stderr = s.Number("flexible_stderr");
    e.threshold = s.Score("threshold");
    e.threshold_source = s.Text("threshold_source").value_or("");
    e.passed = s.Bool("passed");
    e.eval_concurrency = s.IntOr("concurrency", 0);
    if (conc && e.eval_concurrency != *conc) {
      s.Fail("concurrency", "must be " + std::to_string(*conc) + ", the concurrency its file name carries");
    }
    e.result_filename = s.Text("result_filename").value_or("");
    e.results_file = s.Text("results_file").value_or("");
    e.date = s.Text("started_utc").value_or("");
    e.duration_s = s.Number("duration_s");
    e.server = s.Text("server").value_or("");
    if (e.status == EvalStatus::kScored && !e.score) s.Fail("score", "a scored eval needs a score");
    if (e.status != EvalStatus::kScored && e.passed) s.Fail("passed", "must be null unless the status is scored");
    if (e.status != EvalStatus::kScored && e.reasons.empty()) {
      s.Fail("reasons", "a " + status + " eval needs at least one reason");
    }
    if (!e.results_file.empty()) {
      results_path = folder / e.results_file;
      if (!fs::is_regular_file(results_path, ec)) s.Fail("results_file", "names a file that is not in the folder");
      results_doc = ParseJsonFile(results_path.string());
      lm = ExtractLmMetrics(results_doc, results_path.string());
      if (e.status == EvalStatus::kScored && lm.task == e.task && lm.metric == e.metric && lm.strict &&
          std::fabs(*lm.strict - *e.score) > 1e-9) {
        s.Fail("score", "disagrees with " + e.results_file + " (" + std::to_string(*lm.strict) + ")");
      }
    }
  } else if (batch != nullptr && batch->Failed(*conc)) {
    // collect_eval_results.py takes no file of a failed concurrency; infermark's own INVALID or
    // unfinished file, when there is one, says why.
    e.status = EvalStatus::kInvalid;
    e.task = meta.Text("task").value_or("");
    e.reasons = {"the batch lists concurrency " + std::to_string(*conc) + " as failed (failed_eval_concs)"};
    results_path = FindResultsFile(folder, results_doc, conc);
    if (!results_path.empty()) {
      lm = ExtractLmMetrics(results_doc, results_path.string());
      e.task = lm.task;
      e.metric = lm.metric;
      e.n = lm.n;
      e.results_file = results_path.filename().string();
      e.date = lm.date;
      e.duration_s = lm.duration_s;
      e.reasons.insert(e.reasons.end(), lm.invalid_reasons.begin(), lm.invalid_reasons.end());
    }
    e.eval_concurrency = *conc;
  } else if (batch != nullptr && !batch->Completed(*conc)) {
    e.status = EvalStatus::kNotRun;
    e.task = meta.Text("task").value_or("");
    e.reasons = {"the batch did not run concurrency " + std::to_string(*conc) +
                 " (in eval_concs, neither completed nor failed)"};
    e.eval_concurrency = *conc;
  } else {
    results_path = FindResultsFile(folder, results_doc, conc);
    if (results_path.empty()) {
      // A batch's completed concurrency without its file is a broken batch; a folder without any
      // results file, an eval that never ran.
      e.status = conc ? EvalStatus::kInvalid : EvalStatus::kNotRun;
      e.task = meta.Text("task").value_or("");
      e.reasons = {conc ? "the batch lists concurrency " + std::to_string(*conc) +
                              " as completed, but the folder holds no lm-eval results file of it"
                        : "no lm-eval results file in the folder"};
    } else {
      lm = ExtractLmMetrics(results_doc, results_path.string());
      const std::string name = results_path.filename().string();
      e.task = lm.task;
      e.metric = lm.metric;
      e.score = lm.strict;
      e.score_stderr = lm.strict_se;
      e.flexible_score = lm.flexible;
      e.flexible_stderr = lm.flexible_se;
      e.n = lm.n;
      e.results_file = name;
      e.date = lm.date;
      e.duration_s = lm.duration_s;
      e.reasons = lm.invalid_reasons;
      if (StartsWith(name, "incomplete_results")) {
        e.status = EvalStatus::kIncomplete;
        e.reasons.insert(e.reasons.begin(), "stopped before every document was sent");
      } else if (StartsWith(name, "invalid_results")) {
        e.status = EvalStatus::kInvalid;
        if (e.reasons.empty()) e.reasons.push_back("the eval was judged INVALID");
      } else if (!e.score) {
        e.status = EvalStatus::kInvalid;
        e.reasons.push_back("the results file has no " + (e.metric.empty() ? "score" : e.metric));
      }
    }
    e.eval_concurrency = conc ? *conc : meta.IntOr("conc", 0);
  }
  if (e.task.empty() && batch != nullptr) e.task = BatchTask(folder);
  if (!results_doc.is_null()) {
    raw["results"] = results_doc.contains("results") ? results_doc["results"] : Json();
    raw["results_file"] = results_path.filename().string();
  }
  bool multinode = false;
  e.key = KeyFromMeta(meta, meta_path, lm.model, conc, multinode);
  e.is_multinode = multinode;
  e.model_prefix = meta.Text("infmax_model_prefix").value_or("");
  if (e.model_prefix == "unknown") e.model_prefix.clear();
  e.runner = meta.Text("runner").value_or("");
  e.origin = has_status ? kEvalOriginInfermark : kEvalOriginLmEval;
  if (e.status != EvalStatus::kScored) {
    // An INVALID or unfinished run's partial figures are no score: they are never stored as one.
    e.score.reset();
    e.score_stderr.reset();
    e.flexible_score.reset();
    e.flexible_stderr.reset();
  }
  if (!e.passed) ApplyDefaultThreshold(e, thresholds);
  e.raw_json = DumpJson(raw, kCanonicalJson);
  e.raw_sha256 = Sha256Hex(e.raw_json);
  return e;
}

}  // namespace

std::vector<Evaluation> ReadEvalFolder(const std::string& dir, const EvalThresholds* thresholds) {
  const std::string meta_path = (fs::path(dir) / kMetaFile).string();
  std::error_code ec;
  if (!fs::is_regular_file(meta_path, ec)) {
    throw InputError(Diagnostic{{meta_path, 0, 0}, "", "", "an eval folder needs meta_env.json (its configuration)"});
  }
  const Json meta_doc = ParseJsonFile(meta_path);
  const std::optional<EvalBatch> batch = ReadEvalBatch(meta_doc, meta_path);
  if (!batch) return {ReadOneEval(dir, meta_doc, nullptr, std::nullopt, thresholds)};
  // A batch: one evaluation per concurrency asked for, as collect_eval_results.py makes one row
  // per completed concurrency (failed and unrun ones are kept, as such).
  std::vector<Evaluation> out;
  for (const long long conc : batch->concs) out.push_back(ReadOneEval(dir, meta_doc, &*batch, conc, thresholds));
  return out;
}

}  // namespace infermark::results
