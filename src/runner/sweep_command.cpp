#include "runner/sweep_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "catalog/catalog_loader.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "matrix/generator.hpp"
#include "runner/process_group.hpp"
#include "runner/progress.hpp"
#include "runner/result_sink.hpp"
#include "runner/slurm_executor.hpp"
#include "runner/stop_signal.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

std::vector<Json> ReadMatrixFile(const std::string& path) {
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
  std::vector<Json> rows;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (!doc[i].is_object() || !doc[i].contains("runner")) {
      throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "[" + std::to_string(i) + "]",
                                  "each row must be an object with the matrix fields (runner, model, tp, conc, ...)"});
    }
    rows.push_back(doc[i]);
  }
  return rows;
}

bool Keep(const Json& row, const SweepCommandOptions& o) {
  if (!o.tp.empty()) {
    const std::string tp = row.contains("tp") ? row["tp"].dump() : "";
    bool any = false;
    for (const auto& t : o.tp) any = any || t == tp;
    if (!any) return false;
  }
  if (!o.conc.empty() && row.contains("conc") && row["conc"].is_number_integer()) {
    bool any = false;
    for (auto c : o.conc) any = any || c == row["conc"].get<std::int64_t>();
    if (!any) return false;
  }
  if (!o.seq_lens.empty() && row.contains("isl") && row.contains("osl")) {
    const std::string name = matrix::SeqLenName(row["isl"].get<std::int64_t>(), row["osl"].get<std::int64_t>());
    bool any = false;
    for (const auto& s : o.seq_lens) any = any || s == name;
    if (!any) return false;
  }
  return true;
}

void PrintSummary(const SweepSummary& s, const std::string& result_dir) {
  std::printf("%-8s %8s  %s\n", "status", "seconds", "row");
  for (const auto& r : s.rows) {
    std::printf("%-8s %8.1f  %s\n", StatusName(r.outcome.status), r.outcome.seconds, r.result_filename.c_str());
    if (!r.outcome.reason.empty() && r.outcome.status != RowStatus::kSkipped) {
      std::printf("         reason: %s\n", r.outcome.reason.c_str());
    }
    for (const auto& w : r.outcome.warnings) {
      std::printf("         warning: %s (%d lines; first: %s)\n", w.what.c_str(), w.count, w.first_line.c_str());
    }
  }
  std::printf("%d run, %d skipped (complete), %d failed; results in %s\n", s.done, s.skipped, s.failed,
              result_dir.c_str());
  if (s.stop_signal != 0) std::printf("stopped by signal %d; run the same command again to resume\n", s.stop_signal);
  std::fflush(stdout);
}

void PrintPlan(const RowPlan& p) {
  auto join = [](const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) out += (out.empty() ? "" : " ") + (a.find(' ') == std::string::npos ? a : "'" + a + "'");
    return out;
  };
  std::printf("%s\n  server: %s\n", p.result_filename.c_str(), join(p.server.argv).c_str());
  if (p.client) std::printf("  client: %s\n", join(p.client->argv).c_str());
  std::printf("  logs:   %s\n", p.log_dir.c_str());
}

}  // namespace

std::vector<Json> SelectRows(const SweepCommandOptions& o) {
  std::vector<Json> rows;
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
    rows = matrix::GenerateTestConfig(catalog, runners, tc);
  }
  std::vector<Json> kept;
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

SweepRunInfo RunInfoFor(const SweepCommandOptions& o, const SiteConfig& site, const std::string& result_dir) {
  SweepRunInfo info;
  info.database = site.Resolve(o.database.empty() ? site.defaults.database : o.database);
  std::string recipe;
  for (const auto& k : o.config_keys) recipe += (recipe.empty() ? "" : ",") + k;
  if (recipe.empty()) recipe = fs::path(o.matrix_file).filename().string();
  info.recipe = recipe;
  info.run_key = o.run_key.empty() ? SweepRunKey("sweep", recipe, result_dir) : o.run_key;
  info.label = o.run_label.empty() ? recipe + " sweep" : o.run_label;
  return info;
}

int RunSweepCommand(const SweepCommandOptions& o) {
  SiteConfig site = LoadSite(o);
  const std::vector<Json> rows = SelectRows(o);
  if (rows.empty()) throw InputError(Diagnostic{SourceMark{}, "", "", "the selection holds no rows"});
  if (!o.database.empty()) site.defaults.database = o.database;
  if (o.executor == "slurm" || o.executor == "local") {
    for (auto& r : site.runners) r.executor = o.executor == "slurm" ? ExecutorKind::kSlurm : ExecutorKind::kLocal;
  } else if (!o.executor.empty()) {
    throw InputError(Diagnostic{SourceMark{}, "", "--executor", "must be local or slurm"});
  }
  SweepSettings settings;
  settings.plan = o.plan;
  settings.limits.startup_timeout_s = o.startup_timeout_s > 0 ? o.startup_timeout_s : site.defaults.startup_timeout_s;
  settings.limits.row_timeout_s = o.row_timeout_s > 0 ? o.row_timeout_s : site.defaults.row_timeout_s;
  settings.limits.stop_grace_s = site.defaults.stop_grace_s;
  settings.resume = !o.no_resume;
  settings.progress_tty = isatty(STDERR_FILENO) != 0;
  const std::string result_dir =
      fs::absolute(site.Resolve(o.plan.result_dir.empty() ? site.defaults.result_dir : o.plan.result_dir))
          .lexically_normal()
          .string();
  const SweepRunInfo run_info = RunInfoFor(o, site, result_dir);
  if (!o.no_store) settings.store = MakeStoreHook(run_info);
  if (o.dry_run) {
    for (const auto& row : rows) PrintPlan(PlanRow(row, site, o.plan));
    return kExitOk;
  }
  bool slurm = false;
  for (const auto& row : rows) {
    const RunnerSite* r = site.FindRunner(row.contains("runner") ? row["runner"].get<std::string>() : "");
    slurm = slurm || (r != nullptr && r->executor == ExecutorKind::kSlurm);
  }
  if (slurm) {
    SlurmSettings ss;
    ss.poll_interval_s = 1;
    ss.run_key = run_info.run_key;
    ss.run_label = run_info.label;
    ss.no_store = o.no_store;
    ss.database = run_info.database;
    const int code = RunSlurmSweep(rows, site, settings, ss);
    if (!o.no_store && code != kExitBadInput && code < 128) {
      const std::string report = o.report.empty() ? (fs::path(result_dir) / "report.html").string() : o.report;
      try {
        const int points = WriteSweepReport(run_info, report);
        std::printf("stored in %s (run '%s'); report of %d points: %s\n", run_info.database.c_str(),
                    run_info.run_key.c_str(), points, report.c_str());
      } catch (const std::exception& e) {
        std::printf("report not written: %s\n", e.what());
      }
      std::fflush(stdout);
    }
    return code;
  }
  InstallStopHandlers();
  BecomeSubreaper();
  const SweepSummary summary = RunSweep(rows, site, settings);
  PrintSummary(summary, result_dir);
  if (!o.no_store && summary.stop_signal == 0 && summary.done + summary.skipped > 0) {
    const std::string report = o.report.empty() ? (fs::path(result_dir) / "report.html").string() : o.report;
    try {
      const int points = WriteSweepReport(run_info, report);
      std::printf("stored in %s (run '%s'); report of %d points: %s\n", run_info.database.c_str(),
                  run_info.run_key.c_str(), points, report.c_str());
    } catch (const std::exception& e) {
      std::printf("report not written: %s\n", e.what());
    }
    std::fflush(stdout);
  }
  if (summary.stop_signal != 0) return 128 + summary.stop_signal;
  return summary.failed > 0 ? kExitRunFailed : kExitOk;
}

}  // namespace infermark::runner
