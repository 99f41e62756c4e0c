#include "results/bundle.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/clock.hpp"
#include "core/file_io.hpp"
#include "core/sha256.hpp"
#include "results/bundle_manifest.hpp"
#include "results/eval_coverage.hpp"
#include "results/eval_folder.hpp"
#include "results/process_settings.hpp"
#include "results/result_files.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

Diagnostic BundleProblem(const std::string& path, const std::string& rule) {
  return Diagnostic{{path, 0, 0}, "", "", rule};
}

// Typed reads that never throw: a bundle is input, and a field of the wrong type is a problem of
// its own (a mismatch with what the artifacts give), not a fault.
std::string ReceiptText(const Json& doc, const char* field) {
  if (!doc.is_object()) return {};
  const auto it = doc.find(field);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool ReceiptBool(const Json& doc, const char* field) {
  if (!doc.is_object()) return false;
  const auto it = doc.find(field);
  return it != doc.end() && it->is_boolean() && it->get<bool>();
}

long long ReceiptInt(const Json& doc, const char* field) {
  if (!doc.is_object()) return 0;
  const auto it = doc.find(field);
  return it != doc.end() && it->is_number_integer() ? it->get<long long>() : 0;
}

Json ReceiptMember(const Json& doc, const char* field) {
  if (!doc.is_object()) return Json();
  const auto it = doc.find(field);
  return it != doc.end() ? *it : Json();
}

std::string BundleRelative(const fs::path& file, const fs::path& root) {
  return file.lexically_relative(root).generic_string();
}

// --- copying a run folder ---------------------------------------------------------------------

bool IsSqliteFile(const fs::path& file) {
  static constexpr char kHeader[] = "SQLite format 3";  // followed by a NUL: 16 bytes in all
  std::ifstream in(file, std::ios::binary);
  char head[sizeof kHeader] = {};
  in.read(head, sizeof head);
  return in.gcount() == static_cast<std::streamsize>(sizeof head) && std::memcmp(head, kHeader, sizeof head) == 0;
}

// Copies the regular files below `source` to `dest`, leaving out SQLite stores and their
// write-ahead log, shared-memory and journal files. Symbolic links and special files are problems.
std::size_t CopyRunFolder(const fs::path& source, const fs::path& dest, std::vector<Diagnostic>& problems) {
  std::vector<fs::path> files;
  std::set<std::string> stores;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(source, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::file_status status = it->symlink_status(ec);
    if (fs::is_symlink(status)) {
      problems.push_back(BundleProblem(it->path().string(), "a symbolic link: a bundle holds regular files only"));
    } else if (fs::is_directory(status)) {
      continue;
    } else if (!fs::is_regular_file(status)) {
      problems.push_back(BundleProblem(it->path().string(), "not a regular file (socket, pipe or device)"));
    } else if (IsSqliteFile(it->path())) {
      stores.insert(it->path().string());
    } else {
      files.push_back(it->path());
    }
  }
  if (ec) problems.push_back(BundleProblem(source.string(), "cannot list the folder: " + ec.message()));
  std::size_t copied = 0;
  for (const fs::path& file : files) {
    const std::string name = file.string();
    bool companion = false;
    for (const char* suffix : {"-wal", "-shm", "-journal"}) {
      const std::size_t n = std::strlen(suffix);
      companion = companion || (name.size() > n && name.compare(name.size() - n, n, suffix) == 0 &&
                                stores.count(name.substr(0, name.size() - n)) > 0);
    }
    if (companion) continue;
    const fs::path target = dest / file.lexically_relative(source);
    fs::create_directories(target.parent_path(), ec);
    if (ec || !fs::copy_file(file, target, fs::copy_options::overwrite_existing, ec)) {
      problems.push_back(BundleProblem(name, "cannot copy into the bundle: " + ec.message()));
      continue;
    }
    ++copied;
  }
  return copied;
}

// --- what the artifacts hold ------------------------------------------------------------------

// Every non-finite number of `value`, as problems naming `where` and the field's path.
void CheckFinite(const Json& value, const std::string& where, const std::string& field,
                 std::vector<Diagnostic>& problems) {
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    problems.push_back(
        Diagnostic{{where, 0, 0}, "", field, "a non-finite figure: every metric must be a finite number"});
  } else if (value.is_object()) {
    for (const auto& [key, member] : value.items())
      CheckFinite(member, where, field.empty() ? key : field + "." + key, problems);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i)
      CheckFinite(value[i], where, field + "[" + std::to_string(i) + "]", problems);
  }
}

long long AggInt(const Json& agg, const char* field, long long fallback) {
  const auto it = agg.find(field);
  if (it == agg.end()) return fallback;
  if (it->is_number_integer()) return it->get<long long>();
  if (it->is_number()) return std::llround(it->get<double>());
  return fallback;
}

bool AggBool(const Json& agg, const char* field) {
  const auto it = agg.find(field);
  if (it == agg.end()) return false;
  if (it->is_boolean()) return it->get<bool>();
  return it->is_string() && it->get<std::string>() == "true";
}

bool IsMultiNodeRecord(const Json& agg) {
  return agg.contains("num_prefill_gpu") && AggBool(agg, "is_multinode");
}

Json ConfigurationJson(const PointKey& key) {
  Json c = Json::object();
  c["scenario_type"] = key.scenario_type;
  c["model"] = key.model;
  c["hw"] = key.hw;
  c["framework"] = key.framework;
  c["precision"] = key.precision;
  c["spec_decoding"] = key.spec_decoding;
  c["disagg"] = key.disagg;
  c["isl"] = key.isl;
  c["osl"] = key.osl;
  c["conc"] = key.conc;
  if (key.Agentic()) {
    c["kv_offloading"] = key.kv_offloading;
    c["kv_offload_backend"] = key.kv_offload_backend;
  }
  return c;
}

// TP, EP, data-parallel attention, the other parallel sizes and the GPUs, per pool for a
// multi-node point, as its processed record states them.
Json TopologyJson(const Json& agg) {
  Json t = Json::object();
  if (IsMultiNodeRecord(agg)) {
    for (const std::string pool : {"prefill", "decode"}) {
      Json p = Json::object();
      p["workers"] = AggInt(agg, (pool + "_num_workers").c_str(), 0);
      p["tp"] = AggInt(agg, (pool + "_tp").c_str(), 0);
      p["ep"] = AggInt(agg, (pool + "_ep").c_str(), 0);
      p["dp_attention"] = AggBool(agg, (pool + "_dp_attention").c_str());
      p["pp"] = AggInt(agg, (pool + "_pp").c_str(), 1);
      p["gpus"] = AggInt(agg, ("num_" + pool + "_gpu").c_str(), 0);
      t[pool] = p;
    }
    t["gpus"] = AggInt(agg, "num_prefill_gpu", 0) + AggInt(agg, "num_decode_gpu", 0);
    return t;
  }
  const long long tp = AggInt(agg, "tp", 0);
  const long long pp = AggInt(agg, "pp", 1);
  const long long pcp = AggInt(agg, "pcp_size", 1);
  t["tp"] = tp;
  t["ep"] = AggInt(agg, "ep", 0);
  t["dp_attention"] = AggBool(agg, "dp_attention");
  t["pp"] = pp;
  t["dcp_size"] = AggInt(agg, "dcp_size", 1);
  t["pcp_size"] = pcp;
  t["gpus"] = tp * pp * pcp;
  return t;
}

// A record's value as the matrix row's text would read (booleans and integers as Python prints them).
std::optional<std::string> AggText(const Json& agg, const char* field) {
  const auto it = agg.find(field);
  if (it == agg.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return it->get<bool>() ? "true" : "false";
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  if (it->is_number()) return std::to_string(std::llround(it->get<double>()));
  return std::nullopt;
}

std::string LowerAscii(std::string text) {
  for (char& c : text) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return text;
}

// Appends a problem for each field of `agg` (a point's processed record) that disagrees with the
// matrix row `row` (as `source` names it): configuration identity (model, hardware, framework,
// precision, spec decoding, disaggregation, sequence lengths, concurrency) and topology (TP, EP,
// data-parallel attention, PP, DCP, PCP; each pool's workers and GPUs for multi-node rows).
void CheckAgainstRow(const Json& agg, const Json& row, const std::string& where, const std::string& source,
                     std::vector<Diagnostic>& problems) {
  static constexpr std::pair<const char*, const char*> kFields[] = {
      {"RUNNER_TYPE", "hw"},
      {"FRAMEWORK", "framework"},
      {"PRECISION", "precision"},
      {"SPEC_DECODING", "spec_decoding"},
      {"DISAGG", "disagg"},
      {"ISL", "isl"},
      {"OSL", "osl"},
      {"TP", "tp"},
      {"EP_SIZE", "ep"},
      {"DP_ATTENTION", "dp_attention"},
      {"PP_SIZE", "pp"},
      {"DCP_SIZE", "dcp_size"},
      {"PCP_SIZE", "pcp_size"},
      {"PREFILL_NUM_WORKERS", "prefill_num_workers"},
      {"PREFILL_TP", "prefill_tp"},
      {"PREFILL_EP", "prefill_ep"},
      {"PREFILL_DP_ATTN", "prefill_dp_attention"},
      {"PREFILL_GPUS", "num_prefill_gpu"},
      {"DECODE_NUM_WORKERS", "decode_num_workers"},
      {"DECODE_TP", "decode_tp"},
      {"DECODE_EP", "decode_ep"},
      {"DECODE_DP_ATTN", "decode_dp_attention"},
      {"DECODE_GPUS", "num_decode_gpu"},
  };
  const auto disagree = [&](const std::string& field, const std::string& has, const std::string& says) {
    problems.push_back(Diagnostic{{where, 0, 0},
                                  "",
                                  field,
                                  "the point says '" + has + "', its matrix row (" + source + ") says '" + says +
                                      "': its configuration or topology is not the row's"});
  };
  const ProcessSettings expected = SettingsFromMatrixRow(row);
  for (const auto& [variable, field] : kFields) {
    const auto want = expected.Get(variable);
    const auto have = AggText(agg, field);
    if (want && have && LowerAscii(*want) != LowerAscii(*have)) disagree(field, *have, *want);
  }
  if (const auto model = row.find("model"); model != row.end() && model->is_string()) {
    const auto have = AggText(agg, "model");
    if (have && *have != model->get<std::string>()) disagree("model", *have, model->get<std::string>());
  }
  const auto conc = row.find("conc");
  const auto have = AggText(agg, "conc");
  if (conc != row.end() && have) {
    std::vector<std::string> allowed;
    if (conc->is_array()) {
      for (const Json& c : *conc) {
        if (c.is_number_integer()) allowed.push_back(std::to_string(c.get<long long>()));
      }
    } else if (conc->is_number_integer()) {
      allowed.push_back(std::to_string(conc->get<long long>()));
    }
    if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), *have) == allowed.end()) {
      std::string says;
      for (const std::string& c : allowed) says += (says.empty() ? "" : " ") + c;
      disagree("conc", *have, says);
    }
  }
}

Json ReadJsonObject(const fs::path& file, std::vector<Diagnostic>& problems) {
  try {
    Json doc = Json::parse(ReadFile(file.string()), nullptr, false);
    if (doc.is_object()) return doc;
    problems.push_back(BundleProblem(file.string(), "not a JSON object"));
  } catch (const InputError& e) {
    problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
  }
  return Json();
}

bool UnderLogs(const std::string& relative) {
  return relative.rfind("logs/", 0) == 0;
}

// What a bundle's artifacts hold, as the receipt lists it, and the points and evaluations read
// from them.
struct Artifacts {
  std::vector<Point> points;
  std::vector<std::string> point_members;  // each point's result file, relative
  std::vector<Evaluation> evaluations;
  std::vector<std::string> evaluation_folders;  // each evaluation's folder, relative
  Json points_json = Json::array();
  Json evals_json = Json::array();
  Json rows_json = Json::array();
};

Artifacts DescribeArtifacts(const fs::path& root, const EvalThresholds* thresholds, std::vector<Diagnostic>& problems) {
  Artifacts a;
  std::error_code ec;
  // Rows: every row record outside the logs (a Slurm job's logs/<RF>/row.json is a copy of its row).
  std::vector<fs::path> row_files;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file(ec) && name.size() > 9 && name.compare(name.size() - 9, 9, ".row.json") == 0 &&
        !UnderLogs(BundleRelative(it->path(), root))) {
      row_files.push_back(it->path());
    }
  }
  std::sort(row_files.begin(), row_files.end());
  // Evaluations, each with its coverage.
  for (const std::string& folder : FindEvalFolders({root.string()})) {
    const std::string relative = BundleRelative(folder, root);
    try {
      // A batched folder holds one evaluation per concurrency, each with its own files.
      for (Evaluation& e : ReadEvalFolder(folder, thresholds)) {
        a.evals_json.push_back(MeasureEvalCoverage(folder, relative, e, problems).ToJson());
        a.evaluations.push_back(std::move(e));
        a.evaluation_folders.push_back(relative);
      }
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  // Rows: their outcome, and for an eval row that ran, an eval folder for each eval it records.
  for (const fs::path& file : row_files) {
    const Json state = ReadJsonObject(file, problems);
    if (!state.is_object()) continue;
    const std::string relative = BundleRelative(file, root);
    Json entry = Json::object();
    entry["row"] = relative;
    entry["result_filename"] = ReceiptText(state, "result_filename");
    entry["status"] = ReceiptText(state, "status");
    Json evals = Json::array();
    if (const auto it = state.find("evals"); it != state.end() && it->is_array()) {
      for (const Json& e : *it) {
        if (!e.is_object()) continue;
        evals.push_back(Json{{"task", ReceiptText(e, "task")},
                             {"status", ReceiptText(e, "status")},
                             {"concurrency", ReceiptInt(e, "concurrency")}});
      }
    }
    entry["evals"] = evals;
    a.rows_json.push_back(entry);
    const Json row = ReceiptMember(state, "row");
    // A row whose record has no `evals` never planned one: a predicted row (`predict` runs no
    // evals); a measured eval row's record always lists its evals, run or not.
    const bool eval_row = (ReceiptBool(row, "run-eval") || ReceiptBool(row, "eval-only")) && state.contains("evals");
    const std::string status = entry["status"].get<std::string>();
    if (!eval_row || !(status == "done" || status == "invalid" || status == "eval-failed")) continue;
    const std::string rf = entry["result_filename"].get<std::string>();
    // A row of an eval batch whose evals ran on another row's server: that row's evaluations must
    // cover this row's concurrencies.
    const Json batch = ReceiptMember(state, "eval_batch");
    const std::string server_of = ReceiptText(batch, "server_of");
    if (evals.empty() && !server_of.empty() && server_of != rf) {
      const Json concs = ReceiptMember(batch, "concs");
      for (const Json& c : concs.is_array() ? concs : Json::array()) {
        if (!c.is_number_integer()) continue;
        const long long concurrency = c.get<long long>();
        const bool found = std::any_of(a.evaluations.begin(), a.evaluations.end(), [&](const Evaluation& ev) {
          return (ev.result_filename == server_of || ev.result_filename == rf) && ev.eval_concurrency == concurrency;
        });
        if (!found) {
          problems.push_back(BundleProblem(file.string(), "incomplete eval coverage: the row's eval at concurrency " +
                                                              std::to_string(concurrency) + ", run on " + server_of +
                                                              "'s server, has no eval folder"));
        }
      }
      continue;
    }
    if (evals.empty()) {
      problems.push_back(
          BundleProblem(file.string(), "incomplete eval coverage: an eval row that ran records no eval"));
    }
    for (const Json& e : evals) {
      const long long concurrency = e["concurrency"].get<long long>();
      const bool found = std::any_of(a.evaluations.begin(), a.evaluations.end(), [&](const Evaluation& ev) {
        return ev.result_filename == rf && ev.eval_concurrency == concurrency && ev.task == e["task"];
      });
      if (!found) {
        problems.push_back(BundleProblem(file.string(), "incomplete eval coverage: the row's " +
                                                            e["task"].get<std::string>() + " eval at concurrency " +
                                                            std::to_string(concurrency) + " has no eval folder"));
      }
    }
  }
  // Points: every result file outside the logs (a retried row keeps its spoiled attempts there).
  std::vector<std::string> files;
  for (const std::string& file : ExpandResultPaths({root.string()})) {
    if (!UnderLogs(BundleRelative(file, root))) files.push_back(file);
  }
  ReadOptions options;
  options.eval_thresholds = thresholds;
  for (const std::string& file : files) {
    const std::string relative = BundleRelative(file, root);
    std::vector<Point> points;
    try {
      points = ReadResultFile(file, options);
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
      continue;
    }
    const fs::path row_file = RowRecordPath(file);
    Json row_state = row_file.empty() ? Json() : ReadJsonObject(row_file, problems);
    for (Point& p : points) {
      CheckFinite(p.agg, file, "", problems);
      CheckFinite(Json::parse(p.raw_json, nullptr, false), file, "", problems);
      const Json& own_row = p.provenance.matrix_row;
      const Json record_row = ReceiptMember(row_state, "row");
      if (!own_row.is_object() && !record_row.is_object()) {
        problems.push_back(BundleProblem(file, "a point without its matrix row (no " + file.substr(0, file.size() - 5) +
                                                   ".row.json and no infermark.matrix_row): its configuration "
                                                   "cannot be checked"));
      }
      if (record_row.is_object()) CheckAgainstRow(p.agg, record_row, file, BundleRelative(row_file, root), problems);
      if (own_row.is_object() && own_row != record_row)
        CheckAgainstRow(p.agg, own_row, file, "the result's own", problems);
      Json entry = Json::object();
      entry["result"] = relative;
      entry["row"] = row_file.empty() ? "" : BundleRelative(row_file, root);
      entry["raw_sha256"] = p.raw_sha256.empty() ? Sha256Hex(p.raw_json) : p.raw_sha256;
      entry["key"] = p.key.Canonical();
      entry["config_key"] = p.provenance.config_key;
      entry["kind"] = PointKindName(p.provenance.kind);
      entry["verdict"] = p.provenance.verdict;
      entry["configuration"] = ConfigurationJson(p.key);
      entry["topology"] = TopologyJson(p.agg);
      a.points_json.push_back(std::move(entry));
      a.point_members.push_back(relative);
      a.points.push_back(std::move(p));
    }
  }
  return a;
}

// One problem per leaf where what the receipt states differs from what the artifacts give,
// naming the dotted field (`….topology.tp`).
void DiffStated(const Json* stated, const Json& derived, const std::string& field, const std::string& receipt_path,
                std::vector<Diagnostic>& problems) {
  if (stated != nullptr && stated->is_object() && derived.is_object()) {
    for (const auto& [key, value] : derived.items()) {
      DiffStated(stated->contains(key) ? &(*stated)[key] : nullptr, value, field + "." + key, receipt_path, problems);
    }
    return;
  }
  if (stated != nullptr && *stated == derived) return;
  problems.push_back(Diagnostic{{receipt_path, 0, 0},
                                "",
                                field,
                                "the receipt says " + (stated != nullptr ? DumpJson(*stated) : std::string("nothing")) +
                                    ", the artifacts give " + DumpJson(derived)});
}

// Compares a list the receipt states with the one the artifacts give, entries matched by `id`
// (one field, or two joined): one problem per entry only one side has and per field that differs.
void CompareLists(const Json& stated, const Json& derived, const char* what, const std::vector<const char*>& id,
                  const std::string& receipt_path, std::vector<Diagnostic>& problems) {
  const auto key_of = [&](const Json& e) {
    std::string k;
    for (const char* field : id) k += (k.empty() ? "" : " ") + (e.contains(field) ? DumpJson(e[field]) : "null");
    return k;
  };
  std::map<std::string, const Json*> from_artifacts;
  for (const Json& e : derived) from_artifacts[key_of(e)] = &e;
  if (!stated.is_array()) {
    problems.push_back(Diagnostic{{receipt_path, 0, 0}, "", what, "must be an array"});
    return;
  }
  for (const Json& e : stated) {
    const std::string k = e.is_object() ? key_of(e) : DumpJson(e);
    const auto it = from_artifacts.find(k);
    if (it == from_artifacts.end()) {
      problems.push_back(Diagnostic{
          {receipt_path, 0, 0}, "", what, "the receipt lists " + k + ", which the bundle's artifacts do not hold"});
      continue;
    }
    for (const auto& [field, value] : it->second->items()) {
      DiffStated(e.contains(field) ? &e[field] : nullptr, value, std::string(what) + " " + k + " ." + field,
                 receipt_path, problems);
    }
    from_artifacts.erase(it);
  }
  for (const auto& [k, e] : from_artifacts) {
    problems.push_back(Diagnostic{
        {receipt_path, 0, 0}, "", what, "the bundle's artifacts hold " + k + ", which the receipt does not list"});
  }
}

}  // namespace

std::string ReceiptSourcePath(const std::string& receipt_id, const std::string& member) {
  return "receipt:" + receipt_id + "/" + member;
}

bool IsBundle(const std::string& dir) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(fs::path(dir) / kReceiptFile, ec));
}

std::vector<std::string> FindBundles(const std::vector<std::string>& paths) {
  std::vector<std::string> bundles;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) continue;
    if (IsBundle(path)) {
      bundles.push_back(path);
      continue;
    }
    for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec) && IsBundle(it->path().string())) {
        bundles.push_back(it->path().string());
        it.disable_recursion_pending();
      }
    }
  }
  std::sort(bundles.begin(), bundles.end());
  bundles.erase(std::unique(bundles.begin(), bundles.end()), bundles.end());
  return bundles;
}

BundleSummary WriteBundle(const std::string& source, const std::string& out, const Issuer& issuer) {
  std::error_code ec;
  if (!fs::is_directory(source, ec)) throw InputError(BundleProblem(source, "no such folder"));
  if (fs::exists(fs::symlink_status(out, ec))) {
    throw InputError(
        BundleProblem(out, "already exists: a bundle is written once (remove it or choose another --out)"));
  }
  const fs::path source_abs = fs::weakly_canonical(source);
  const fs::path out_abs = fs::weakly_canonical(fs::absolute(out));
  const std::string inside = BundleRelative(out_abs, source_abs);
  if (!inside.empty() && inside.rfind("..", 0) != 0) {
    throw InputError(BundleProblem(out, "is inside the folder it would bundle (" + source + ")"));
  }
  const fs::path tmp = out_abs.parent_path() / ("." + out_abs.filename().string() + ".tmp");
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp / kArtifactsFolder, ec);
  if (ec) throw InputError(BundleProblem(tmp.string(), "cannot create the bundle's folder: " + ec.message()));
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ignored;
      if (!dir.empty()) fs::remove_all(dir, ignored);
    }
  } cleanup{tmp};

  std::vector<Diagnostic> problems;
  const fs::path artifacts = tmp / kArtifactsFolder;
  CopyRunFolder(source_abs, artifacts, problems);
  if (!problems.empty()) throw InputError(std::move(problems));
  const std::vector<BundleMember> members = ScanMembers(artifacts.string(), problems);
  Artifacts described = DescribeArtifacts(artifacts, nullptr, problems);
  if (described.points.empty() && described.evaluations.empty()) {
    problems.push_back(BundleProblem(source, "no result files or eval folders to bundle"));
  }
  // Error messages name the run folder's files, not the temporary copy's.
  for (Diagnostic& d : problems) {
    const std::string copy = artifacts.string();
    if (d.mark.file.rfind(copy, 0) == 0) d.mark.file = (source_abs / BundleRelative(d.mark.file, artifacts)).string();
  }
  if (!problems.empty()) throw InputError(std::move(problems));

  const std::string manifest = ManifestText(members);
  WriteFileAtomic((tmp / kManifestFile).string(), manifest);
  std::uintmax_t bytes = 0;
  for (const BundleMember& m : members) bytes += m.size;
  Json receipt = Json::object();
  receipt["schema"] = kReceiptSchema;
  receipt["receipt_id"] = "";
  receipt["created_at"] = IsoUtcNow();
  receipt["issuer"] = issuer.ToJson();
  receipt["manifest"] =
      Json{{"path", kManifestFile}, {"sha256", Sha256Hex(manifest)}, {"members", members.size()}, {"bytes", bytes}};
  receipt["points"] = described.points_json;
  receipt["evals"] = described.evals_json;
  receipt["rows"] = described.rows_json;
  receipt["receipt_id"] = ReceiptId(receipt);
  WriteFileAtomic((tmp / kReceiptFile).string(), receipt.dump(2) + "\n");
  fs::rename(tmp, out_abs, ec);
  if (ec) throw InputError(BundleProblem(out, "cannot move the bundle into place: " + ec.message()));
  cleanup.dir.clear();

  BundleSummary summary;
  summary.dir = out_abs.string();
  summary.receipt_id = receipt["receipt_id"].get<std::string>();
  summary.members = members.size();
  summary.bytes = bytes;
  summary.points = described.points.size();
  summary.evaluations = described.evaluations.size();
  summary.rows = described.rows_json.size();
  return summary;
}

VerifiedBundle ReadBundle(const std::string& dir, const BundleCheck& check) {
  const fs::path root(dir);
  const std::string receipt_path = (root / kReceiptFile).string();
  std::vector<Diagnostic> problems;
  std::error_code ec;
  if (fs::is_symlink(fs::symlink_status(root, ec))) {
    throw InputError(BundleProblem(dir, "a symbolic link: a bundle is a folder of regular files"));
  }
  // The top holds the receipt, the manifest and the artifacts folder, and nothing else.
  for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::file_status status = it->symlink_status(ec);
    const std::string name = it->path().filename().string();
    const bool expected_file = (name == kReceiptFile || name == kManifestFile) && fs::is_regular_file(status);
    const bool expected_dir = name == kArtifactsFolder && fs::is_directory(status);
    if (fs::is_symlink(status)) {
      problems.push_back(BundleProblem(it->path().string(), "a symbolic link: a bundle holds regular files only"));
    } else if (!expected_file && !expected_dir) {
      problems.push_back(BundleProblem(it->path().string(),
                                       "extra member: not part of a bundle (receipt.json, "
                                       "manifest.json and artifacts/ only)"));
    }
  }
  if (ec) problems.push_back(BundleProblem(dir, "cannot list the bundle: " + ec.message()));
  for (const char* required : {kReceiptFile, kManifestFile, kArtifactsFolder}) {
    if (!fs::exists(fs::symlink_status(root / required, ec))) {
      problems.push_back(BundleProblem((root / required).string(),
                                       "missing: a bundle holds receipt.json, manifest.json "
                                       "and artifacts/"));
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));

  // The receipt and its id.
  const Json receipt = Json::parse(ReadFile(receipt_path), nullptr, false);
  if (!receipt.is_object()) throw InputError(BundleProblem(receipt_path, "not a receipt (not a JSON object)"));
  if (ReceiptText(receipt, "schema") != kReceiptSchema) {
    throw InputError(Diagnostic{{receipt_path, 0, 0}, "", "schema", std::string("must be '") + kReceiptSchema + "'"});
  }
  const std::string stated_id = ReceiptText(receipt, "receipt_id");
  const std::string computed_id = ReceiptId(receipt);
  if (stated_id != computed_id) {
    problems.push_back(Diagnostic{{receipt_path, 0, 0},
                                  "",
                                  "receipt_id",
                                  "'" + stated_id + "' does not match the receipt's content (" + computed_id +
                                      "): the receipt was changed after it was issued"});
  }
  // The manifest and the members.
  const std::string manifest_path = (root / kManifestFile).string();
  const std::string manifest_text = ReadFile(manifest_path);
  const Json stated_manifest = ReceiptMember(receipt, "manifest");
  const std::string manifest_sha = Sha256Hex(manifest_text);
  if (ReceiptText(stated_manifest, "sha256") != manifest_sha) {
    problems.push_back(Diagnostic{{manifest_path, 0, 0},
                                  "",
                                  "",
                                  "its SHA-256 " + manifest_sha + " is not the one the receipt names (" +
                                      ReceiptText(stated_manifest, "sha256") + "): the manifest was changed"});
  }
  const std::vector<BundleMember> manifest = ParseManifest(manifest_text, manifest_path, problems);
  CheckMembers((root / kArtifactsFolder).string(), manifest, problems);
  if (!problems.empty()) throw InputError(std::move(problems));

  // What the artifacts hold, against what the receipt states.
  const fs::path artifacts = fs::absolute(root / kArtifactsFolder);
  Artifacts described = DescribeArtifacts(artifacts, check.thresholds, problems);
  std::uintmax_t bytes = 0;
  for (const BundleMember& m : manifest) bytes += m.size;
  if (ReceiptMember(stated_manifest, "members") != Json(manifest.size()) ||
      ReceiptMember(stated_manifest, "bytes") != Json(bytes)) {
    problems.push_back(
        Diagnostic{{receipt_path, 0, 0}, "", "manifest", "its member count or size is not the manifest's"});
  }
  CompareLists(ReceiptMember(receipt, "points"), described.points_json, "points", {"result", "key"}, receipt_path,
               problems);
  CompareLists(ReceiptMember(receipt, "evals"), described.evals_json, "evals", {"folder", "key"}, receipt_path,
               problems);
  CompareLists(ReceiptMember(receipt, "rows"), described.rows_json, "rows", {"row"}, receipt_path, problems);
  VerifiedBundle bundle;
  bundle.issuer = IssuerFromJson(ReceiptMember(receipt, "issuer"), receipt_path, problems);
  if (!IssuerAllowed(bundle.issuer, check.allowed_issuers)) {
    problems.push_back(Diagnostic{
        {receipt_path, 0, 0}, "", "issuer", bundle.issuer.Describe() + " is not an allowed issuer (--allow-issuer)"});
  }
  if (!problems.empty()) throw InputError(std::move(problems));

  bundle.dir = dir;
  bundle.receipt_id = computed_id;
  bundle.created_at = ReceiptText(receipt, "created_at");
  for (std::size_t i = 0; i < described.points.size(); ++i) {
    Point& p = described.points[i];
    p.receipt_id = computed_id;
    p.provenance.source_path = ReceiptSourcePath(computed_id, described.point_members[i]);
    bundle.points.push_back(std::move(p));
  }
  for (std::size_t i = 0; i < described.evaluations.size(); ++i) {
    Evaluation& e = described.evaluations[i];
    e.source_path = ReceiptSourcePath(computed_id, described.evaluation_folders[i]);
    bundle.evaluations.push_back(std::move(e));
  }
  return bundle;
}

}  // namespace infermark::results
