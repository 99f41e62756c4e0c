#include "runner/sweep_command.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "catalog/catalog_loader.hpp"
#include "core/diagnostic.hpp"
#include "core/eval_thresholds.hpp"
#include "core/file_io.hpp"
#include "matrix/generator.hpp"
#include "runner/cpu_split.hpp"
#include "runner/process_group.hpp"
#include "runner/progress.hpp"
#include "runner/result_sink.hpp"
#include "runner/row_disagg.hpp"
#include "runner/slurm_executor.hpp"
#include "runner/stop_signal.hpp"
#include "store/store_url.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

std::vector<matrix::MatrixRow> ReadMatrixFile(const std::string& path) {
  Json doc;
  try {
    doc = Json::parse(ReadFile(path));
  } catch (const Json::parse_error& e) {
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "", std::string("not JSON: ") + e.what()});
  }
  if (doc.is_object() && doc.contains("include")) doc = doc["include"];
  if (!doc.is_array()) {
    throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "",
                                "a matrix file is a JSON list of rows (infermark matrix --format json) or "
                                "{\"include\": [...]} (--format github)"});
  }
  return matrix::ReadMatrixRows(std::vector<Json>(doc.begin(), doc.end()), path);
}

bool Keep(const matrix::MatrixRow& row, const SweepCommandOptions& o) {
  if (!o.tp.empty() && std::find(o.tp.begin(), o.tp.end(), std::to_string(row.tp)) == o.tp.end()) return false;
  if (!o.conc.empty() && !row.conc.empty() &&
      std::find(o.conc.begin(), o.conc.end(), std::int64_t{row.Conc()}) == o.conc.end()) {
    return false;
  }
  if (!o.seq_lens.empty() && !row.Agentic() &&
      std::find(o.seq_lens.begin(), o.seq_lens.end(), row.SeqLen()) == o.seq_lens.end()) {
    return false;
  }
  return true;
}

// A row's identity without its eval marking.
std::string Unmarked(Json row) {
  for (const char* key : {"run-eval", "eval-only", "eval-conc", "eval-all-concs"}) row.erase(key);
  return row.dump();
}

// The rows of the selection with the eval marking of the recipes' whole matrix: eval-only
// policies take the marked rows (the filters pick from them later); the default copies each
// throughput row's marking from its twin in the whole matrix, so filtering to a few rows keeps
// the recipe's eval rows what they are (InferenceX's median and highest concurrency).
std::vector<Json> MarkEvals(std::vector<Json> rows, const catalog::MasterCatalog& catalog,
                            const catalog::RunnerConfig& runners, const SweepCommandOptions& o) {
  if (o.evals.no_evals) return rows;
  matrix::TestConfigOptions whole;
  whole.config_keys = o.config_keys;
  whole.common.evals = o.evals;
  std::vector<Json> marked = matrix::GenerateTestConfig(catalog, runners, whole);
  if (o.evals.evals_only || o.evals.all_evals) return marked;
  std::map<std::string, const Json*> by_identity;
  for (const Json& row : marked) by_identity.emplace(Unmarked(row), &row);
  for (Json& row : rows) {
    const auto twin = by_identity.find(Unmarked(row));
    if (twin == by_identity.end()) continue;
    for (const char* key : {"run-eval", "eval-conc", "eval-all-concs"}) {
      if (twin->second->contains(key)) row[key] = (*twin->second)[key];
    }
  }
  return rows;
}

}  // namespace

std::vector<matrix::MatrixRow> SelectRows(const SweepCommandOptions& o) {
  std::vector<matrix::MatrixRow> rows;
  if (!o.matrix_file.empty()) {
    rows = ReadMatrixFile(o.matrix_file);
  } else {
    if (o.config_keys.empty()) {
      throw InputError(Diagnostic{SourceMark{}, "", "--matrix", "give --matrix FILE or config keys"});
    }
    const auto catalog = catalog::LoadMasterConfigs(o.config_files);
    const auto runners = catalog::LoadRunnerConfig(o.runner_config);
    matrix::TestConfigOptions tc;
    tc.config_keys = o.config_keys;
    tc.seq_lens = o.seq_lens;
    tc.conc = o.conc;
    tc.common.evals.no_evals = true;
    rows = matrix::ReadMatrixRows(MarkEvals(matrix::GenerateTestConfig(catalog, runners, tc), catalog, runners, o),
                                  "test-config");
  }
  std::vector<matrix::MatrixRow> kept;
  for (auto& r : rows) {
    if (Keep(r, o)) kept.push_back(std::move(r));
  }
  return kept;
}

SiteConfig LoadSite(const SweepCommandOptions& o) {
  const std::string file = o.site_file.empty() ? FindSiteFile() : o.site_file;
  if (file.empty()) {
    throw InputError(Diagnostic{SourceMark{}, "", "--site",
                                "no site file: give --site FILE, set INFERMARK_SITE, or put infermark.yaml in this "
                                "folder or above (docs/runner.md describes it)"});
  }
  return LoadSiteConfig(file);
}

std::string ResultDir(const SweepCommandOptions& o, const SiteConfig& site) {
  return fs::absolute(site.Resolve(o.plan.result_dir.empty() ? site.defaults.result_dir : o.plan.result_dir))
      .lexically_normal()
      .string();
}

SweepRunInfo RunInfoFor(const SweepCommandOptions& o, const SiteConfig& site, const std::string& result_dir) {
  SweepRunInfo info;
  info.database = results::ResolveStoreUrl(o.database.empty() ? site.defaults.database : o.database, site.base_dir);
  std::string recipe;
  for (const auto& k : o.config_keys) recipe += (recipe.empty() ? "" : ",") + k;
  if (recipe.empty()) recipe = fs::path(o.matrix_file).filename().string();
  info.recipe = recipe;
  info.run_key = o.run_key.empty() ? SweepRunKey("sweep", recipe, result_dir) : o.run_key;
  info.label = o.run_label.empty() ? recipe + " sweep" : o.run_label;
  return info;
}

ReportOutcome WriteReportOnce(const SweepRunInfo& info, const std::string& path) {
  ReportOutcome out;
  out.path = path;
  try {
    out.points = WriteSweepReport(info, path);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

SweepCommandSummary RunSweepCommand(const SweepCommandOptions& o) {
  SiteConfig site = LoadSite(o);
  const std::vector<matrix::MatrixRow> rows = SelectRows(o);
  // A thresholds file given by flag is input: a bad one stops the sweep before anything starts.
  if (!o.plan.eval_thresholds.empty()) LoadEvalThresholds(o.plan.eval_thresholds);
  if (rows.empty()) throw InputError(Diagnostic{SourceMark{}, "", "", "the selection holds no rows"});
  if (!o.database.empty()) site.defaults.database = o.database;
  if (o.executor == "slurm" || o.executor == "local") {
    for (auto& r : site.runners) r.executor = o.executor == "slurm" ? ExecutorKind::kSlurm : ExecutorKind::kLocal;
  } else if (!o.executor.empty()) {
    throw InputError(Diagnostic{SourceMark{}, "", "--executor", "must be local or slurm"});
  }
  PlanOptions plan = o.plan;
  plan.host_retries = o.host_retries;
  if (site.defaults.pin_cpus && plan.host_cpus.empty()) plan.host_cpus = HostCpus();
  SweepSettings settings;
  settings.plan = plan;
  settings.limits.startup_timeout_s = o.startup_timeout_s > 0 ? o.startup_timeout_s : site.defaults.startup_timeout_s;
  settings.limits.row_timeout_s = o.row_timeout_s > 0 ? o.row_timeout_s : site.defaults.row_timeout_s;
  settings.limits.stop_grace_s = site.defaults.stop_grace_s;
  settings.resume = !o.no_resume;
  settings.host_retries = o.host_retries;
  settings.progress_tty = isatty(STDERR_FILENO) != 0;
  SweepCommandSummary out;
  out.result_dir = ResultDir(o, site);
  out.store = RunInfoFor(o, site, out.result_dir);
  out.stored = !o.no_store;
  if (!o.no_store) {
    settings.store = MakeStoreHook(out.store);
    settings.attempts = MakeAttemptSink(out.store);
  }
  if (o.dry_run) {
    out.dry_run = PlanRows(rows, site, plan);
    return out;
  }
  // Multi-node rows hold an allocation of their own from here (RunSweep); single-node rows of a
  // Slurm label are submitted as jobs.
  bool slurm = false;
  std::vector<matrix::MatrixRow> single;
  std::vector<matrix::MatrixRow> multinode;
  for (const auto& row : rows) {
    const RunnerSite* r = site.FindRunner(row.runner);
    const bool on_slurm = r != nullptr && r->executor == ExecutorKind::kSlurm;
    if (on_slurm && IsMultiNodeRow(row)) {
      multinode.push_back(row);
    } else {
      single.push_back(row);
      slurm = slurm || on_slurm;
    }
  }
  InstallStopHandlers();
  if (slurm) {
    SlurmSettings ss;
    ss.poll_interval_s = 1;
    ss.run_key = out.store.run_key;
    ss.run_label = out.store.label;
    ss.no_store = o.no_store;
    ss.database = out.store.database;
    out.sweep = RunSlurmSweep(single, site, settings, ss);
  } else if (!single.empty()) {
    BecomeSubreaper();
    out.sweep = RunSweep(single, site, settings);
  }
  if (!multinode.empty() && StopRequested() == 0) {
    BecomeSubreaper();
    SweepSummary more = RunSweep(multinode, site, settings);
    for (auto& r : more.rows) out.sweep.rows.push_back(std::move(r));
    out.sweep.done += more.done;
    out.sweep.skipped += more.skipped;
    out.sweep.failed += more.failed;
    out.sweep.eval_failed += more.eval_failed;
    if (more.stop_signal != 0) out.sweep.stop_signal = more.stop_signal;
  }
  if (!o.no_store && out.sweep.stop_signal == 0 && out.sweep.done + out.sweep.skipped > 0) {
    out.report =
        WriteReportOnce(out.store, o.report.empty() ? (fs::path(out.result_dir) / "report.html").string() : o.report);
  }
  return out;
}

}  // namespace infermark::runner
