#include "cli/cmd_run_flags.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/project_paths.hpp"
#include "core/exit_codes.hpp"
#include "store/store_url.hpp"

namespace infermark::cli {
namespace {

std::string JoinArgv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) out += (out.empty() ? "" : " ") + (a.find(' ') == std::string::npos ? a : "'" + a + "'");
  return out;
}

std::string JoinNodes(const std::vector<std::string>& nodes) {
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : "+") + n;
  return out;
}

// A multi-node row: its allocation, every worker and the router (built-in engine) or the launcher
// (script), and one line per concurrency: its client, or the result file its launcher writes.
void PrintMultiNodePlan(const runner::RowPlan& p) {
  const runner::MultiNodePlan& m = *p.multinode;
  std::printf("%s\n  allocation: %d node(s) of %d GPUs (<node0> leads; Slurm names them at run time)\n",
              p.result_filename.c_str(), m.allocation.nodes, m.gpus_per_node);
  if (p.planned_launch) {
    for (const auto& w : p.planned_launch->workers) {
      std::printf("  %s %d: %s GPUs %s port %d: %s\n", w.role.c_str(), w.index, JoinNodes(w.nodes).c_str(),
                  w.devices.c_str(), w.port, JoinArgv(w.argv).c_str());
    }
    const auto& r = p.planned_launch->router;
    std::printf("  router: %s port %d: %s\n", JoinNodes(r.nodes).c_str(), r.port, JoinArgv(r.argv).c_str());
  } else {
    std::printf("  launcher: <node0>: %s\n", JoinArgv(p.server.argv).c_str());
  }
  for (const auto& point : m.points) {
    if (point.client) {
      std::printf("  client conc %d: <node0>: %s\n", point.conc, JoinArgv(point.client->argv).c_str());
    } else {
      std::printf("  point conc %d: %s\n", point.conc, point.result_path.c_str());
    }
  }
  std::printf("  logs: %s\n", p.log_dir.c_str());
}

// An eval row's eval step: when it runs, at which concurrencies, who runs it and where it lands.
void PrintEvalPlan(const runner::RowPlan& p) {
  const runner::EvalPlan& e = *p.eval;
  std::string concs;
  for (const int c : e.RunsHere() ? e.concs : e.own_concs) concs += (concs.empty() ? "" : " ") + std::to_string(c);
  const char* when = e.only ? "alone (eval-only row: no throughput point)" : "after the throughput point";
  std::string how;
  if (!e.RunsHere()) {
    std::printf("  eval:   %s at conc %s in the batch of %s, on that row's server\n          -> %s\n", e.task.c_str(),
                concs.c_str(), e.batched_with.c_str(), e.dir.c_str());
    return;
  }
  if (e.Batched() && !p.multinode)
    when = e.only ? "alone on one server (eval-only rows: no throughput point)"
                  : "on one server after this row's throughput point";
  if (!e.not_run.empty()) {
    how = "not run: " + e.not_run;
  } else if (e.in_process) {
    how = "by the runner against http://127.0.0.1:" + std::to_string(p.port) + " (model " + e.model +
          ", max_model_len " + std::to_string(e.max_model_len) + ")";
  } else {
    how = "by the launcher's run_eval (EVAL_CONC, EVAL_RESULT_DIR)";
  }
  std::printf("  eval:   %s at conc %s %s, %s\n          -> %s\n", e.task.c_str(), concs.c_str(), when, how.c_str(),
              e.dir.c_str());
}

void PrintPlan(const runner::RowPlan& p) {
  if (p.multinode) {
    PrintMultiNodePlan(p);
    if (p.eval) PrintEvalPlan(p);
    return;
  }
  std::printf("%s\n  server: %s\n", p.result_filename.c_str(), JoinArgv(p.server.argv).c_str());
  if (p.client && !(p.eval && p.eval->only)) std::printf("  client: %s\n", JoinArgv(p.client->argv).c_str());
  if (p.eval) PrintEvalPlan(p);
  if (p.repeats > 1) {
    std::printf("  repeats: %d, %s\n", p.repeats,
                p.repeat_fresh_server ? "a fresh server each (the row run once per repeat)"
                                      : "one server, back to back (the client's --repeats)");
  }
  std::printf("  logs:   %s\n", p.log_dir.c_str());
}

// The sweep's end: the progress said each row as it finished, so this lists only what needs a look
// (rows not done, their reasons, power and evals) and each server-log warning once, with how many
// rows' logs had it; every detail stays in the rows' logs and states.
void PrintSweepSummary(const runner::SweepCommandSummary& s) {
  const runner::SweepSummary& sweep = s.sweep;
  struct Seen {
    const runner::LogWarning* first;
    int rows;
  };
  std::vector<std::pair<std::string, Seen>> warnings;
  bool header = false;
  for (const auto& r : sweep.rows) {
    const runner::RowOutcome& o = r.outcome;
    for (const auto& w : o.warnings) {
      auto it = std::find_if(warnings.begin(), warnings.end(), [&](const auto& e) { return e.first == w.what; });
      if (it == warnings.end()) {
        warnings.push_back({w.what, Seen{&w, 1}});
      } else {
        ++it->second.rows;
      }
    }
    const bool notable = (o.status != runner::RowStatus::kDone && o.status != runner::RowStatus::kSkipped) ||
                         (o.status == runner::RowStatus::kDone && !o.reason.empty()) || !o.evals.empty() ||
                         o.power_valid || !o.power_reasons.empty();
    if (!notable) continue;
    if (!header) {
      std::printf("%-8s %8s  %s\n", "status", "seconds", "row");
      header = true;
    }
    std::printf("%-8s %8.1f  %s\n", runner::StatusName(o.status), o.seconds, r.result_filename.c_str());
    if (!o.reason.empty() && o.status != runner::RowStatus::kSkipped)
      std::printf("         reason: %s\n", o.reason.c_str());
    if (o.power_valid || !o.power_reasons.empty()) {
      std::string why;
      for (const auto& reason : o.power_reasons) why += (why.empty() ? "" : ", ") + reason;
      std::printf("         power: %s%s%s\n", o.power_valid.value_or(false) ? "valid" : "invalid",
                  why.empty() ? "" : ": ", why.c_str());
    }
    for (const auto& e : o.evals) {
      const std::string conc = o.evals.size() > 1 ? "[conc=" + std::to_string(e.concurrency) + "] " : "";
      std::printf("         eval: %s%s\n", conc.c_str(), e.Summary().c_str());
    }
  }
  for (const auto& [what, seen] : warnings) {
    std::printf("warning: %s in the server log of %d row%s (first: %s)\n", what.c_str(), seen.rows,
                seen.rows == 1 ? "" : "s", seen.first->first_line.c_str());
  }
  std::printf("%d run, %d skipped (complete), %d failed%s%s; results in %s\n", sweep.done, sweep.skipped, sweep.failed,
              sweep.eval_failed > 0 ? (", " + std::to_string(sweep.eval_failed) + " failed their eval").c_str() : "",
              sweep.slurm ? " (slurm executor)" : "", s.result_dir.c_str());
  if (sweep.stop_signal != 0) {
    std::printf("stopped by signal %d; run the same command again to resume\n", sweep.stop_signal);
  }
  if (s.report) {
    if (s.report->error.empty()) {
      std::printf("stored in %s (run '%s'); report of %d points: %s\n",
                  results::DisplayStoreUrl(s.store.database).c_str(), s.store.run_key.c_str(), s.report->points,
                  s.report->path.c_str());
    } else {
      std::printf("report not written: %s\n", s.report->error.c_str());
    }
  }
  std::fflush(stdout);
}

}  // namespace

void AddSweepFlags(CLI::App* cmd, runner::SweepCommandOptions& o) {
  cmd->add_option("--config-files", o.config_files, "Master configs (default: the project's recipes/configs)");
  cmd->add_option("--runner-config", o.runner_config, "runners.yaml (default: beside the first config file)");
  cmd->add_option("--seq-lens", o.seq_lens, "Only these sequence lengths")->check(CLI::IsMember({"1k1k", "8k1k"}));
  cmd->add_option("--conc", o.conc, "Only these concurrencies");
  cmd->add_option("--tp", o.tp, "Only these TP sizes");
  cmd->add_option("--site", o.site_file, "Site file (default: $INFERMARK_SITE, else infermark.yaml here or above)");
  cmd->add_option("--executor", o.executor, "local or slurm (default: the site file's per runner label)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--result-dir", o.plan.result_dir, "Result folder (default: the site's)");
  cmd->add_option("--database", o.database, "Results database (default: the site's)");
  cmd->add_option("--runner-name", o.plan.runner_name, "Concrete runner name in result file names");
  cmd->add_option("--port", o.plan.port, "Server port (default: the site's)");
  cmd->add_option("--time-scale", o.plan.time_scale, "Built-in engine: run the modelled GPU this many times faster");
  cmd->add_option("--agentic-duration", o.plan.agentic_duration_s,
                  "Agentic rows: seconds of each profiling phase instead of the row's DURATION (under 900: unsafe)");
  cmd->add_option("--prompts-per-conc", o.plan.prompts_per_conc, "Prompts per point = this x conc (InferenceX: 10)");
  cmd->add_option("--warmups-per-conc", o.plan.warmups_per_conc, "Warm-up requests = this x conc (InferenceX: 2)");
  cmd->add_option("--min-prompts", o.plan.min_prompts, "A point sends at least this many prompts (default: no floor)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-host-error-percent", o.plan.max_host_error_percent,
                  "A point is INVALID when the host moved a headline figure by more than this % (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--startup-timeout", o.startup_timeout_s, "Seconds a server may take to become ready");
  cmd->add_option("--row-timeout", o.row_timeout_s, "Seconds a whole row may take");
  cmd->add_flag_callback(
      "--gpu-telemetry", [&o] { o.plan.gpu_telemetry = true; },
      "Sample GPU power for every row (default: launcher, container and command rows when NVML "
      "sees a GPU; never the built-in engine)");
  cmd->add_flag_callback(
      "--no-gpu-telemetry", [&o] { o.plan.gpu_telemetry = false; }, "Sample no GPU power");
  cmd->add_option("--gpu-telemetry-interval", o.plan.gpu_telemetry_interval_s, "Seconds between GPU power samples")
      ->capture_default_str();
  cmd->add_flag("--require-power", o.plan.require_power,
                "A row whose GPU power is invalid ends INVALID (InferenceX REQUIRE_POWER=1)");
  auto* no_evals = cmd->add_flag("--no-evals", o.evals.no_evals, "Config keys: throughput rows only, no eval rows");
  auto* evals_only = cmd->add_flag("--evals-only", o.evals.evals_only,
                                   "Config keys: only the recipe's eval rows, run as eval-only (no throughput point)");
  no_evals->excludes(evals_only);
  evals_only->excludes(no_evals);
  cmd->add_flag("--all-evals", o.evals.all_evals, "Config keys: every 8k1k row as an eval-only row")
      ->excludes(no_evals);
  cmd->add_option("--eval-limit", o.plan.eval_limit, "Eval rows: only the first N documents (EVAL_LIMIT)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--eval-thresholds", o.plan.eval_thresholds,
                  "Eval rows: thresholds file (default: data/evals/thresholds.yaml, InferenceX's)");
  cmd->add_flag("--no-resume", o.no_resume, "Run rows again even when their result is complete");
  cmd->add_option("--host-retries", o.host_retries,
                  "Run a row up to N more times when its point is INVALID only because this host moved a headline "
                  "figure beyond --max-host-error-percent; earlier attempts are kept in the row's log folder")
      ->check(CLI::Range(0, 10));
  cmd->add_option("--repeats", o.plan.repeats,
                  "Measure each point N times (default: the site's `repeats`, else 1): every repeat's result is kept "
                  "as <RF>.repeat-<k>.json and the point's figures are medians with 95% intervals")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag_callback(
      "--repeat-fresh-server", [&o] { o.plan.repeat_fresh_server = true; },
      "With --repeats: start a new server for each repeat (default: one server, the repeats back to back)");
  cmd->add_flag(
      "--dry-run", o.dry_run,
      "Print each row's command lines (multi-node: every worker, the router, a client per concurrency); start nothing");
  cmd->add_flag("--no-store", o.no_store, "Write result files only (no results store, no report)");
  cmd->add_option("--report", o.report, "Report to write at the end (default: RESULT_DIR/report.html)");
  cmd->add_option("--run-key", o.run_key, "Store the points under this run (default: from the selection and folder)");
  cmd->add_option("--run-label", o.run_label, "Label of the stored run");
}

void FillProjectDefaults(runner::SweepCommandOptions& o) {
  if (!o.matrix_file.empty()) return;
  if (o.config_files.empty()) o.config_files = ProjectMasterConfigs();
  if (o.runner_config.empty()) {
    o.runner_config = (std::filesystem::path(o.config_files.front()).parent_path() / "runners.yaml").string();
  }
}

int RunSweepWithDefaults(runner::SweepCommandOptions o) {
  FillProjectDefaults(o);
  const runner::SweepCommandSummary s = runner::RunSweepCommand(o);
  if (o.dry_run) {
    for (const auto& plan : s.dry_run) PrintPlan(plan);
    return kExitOk;
  }
  PrintSweepSummary(s);
  if (s.sweep.stop_signal != 0) return kExitSignalBase + s.sweep.stop_signal;
  return s.sweep.failed > 0 || s.sweep.eval_failed > 0 ? kExitRunFailed : kExitOk;
}

}  // namespace infermark::cli
