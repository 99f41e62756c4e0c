// Jobs are watched through `scontrol show job` (kept for MinJobAge after they end), which needs
// no accounting database; a job that is gone from scontrol counts as ended.
#include "runner/slurm_executor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <thread>

#include "core/clock.hpp"
#include "core/file_io.hpp"
#include "core/subprocess.hpp"
#include "runner/readiness.hpp"
#include "runner/stop_signal.hpp"
#include "runner/worker_placement.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// One sbatch job: one row, or the rows of an eval batch (their evals need one server).
struct Job {
  std::size_t owner = 0;  // the row whose plan names the job (its log folder holds the job's output)
  std::vector<std::size_t> rows;
  std::string id;
  std::string state;
  bool ended = false;
  std::string submitted_at;  // when sbatch took it (the attempt's start, queueing included)
};

std::string JobState(const SlurmSettings& s, const std::string& id) {
  try {
    const ProcessResult r = RunCapture({s.scontrol, "show", "job", id});
    if (r.exit_code != 0) return "GONE";
    const auto pos = r.out.find("JobState=");
    if (pos == std::string::npos) return "GONE";
    const auto end = r.out.find_first_of(" \n", pos);
    return r.out.substr(pos + 9, end - pos - 9);
  } catch (const std::exception&) {
    return "GONE";
  }
}

bool Ended(const std::string& state) {
  return state != "PENDING" && state != "RUNNING" && state != "CONFIGURING" && state != "COMPLETING" &&
         state != "SUSPENDED" && state != "REQUEUED" && state != "RESIZING";
}

}  // namespace

int RowNodes(const matrix::MatrixRow& row, const RunnerSite& runner) {
  return PlacementNodes(row, runner.slurm.gpus_per_node > 0 ? runner.slurm.gpus_per_node : 8);
}

std::string SlurmJobScript(const RowPlan& plan, const RunnerSite& runner, int nodes, const std::string& row_file,
                           const std::string& site_file, const SweepSettings& settings, const SlurmSettings& slurm,
                           int rows) {
  std::ostringstream s;
  s << "#!/bin/bash\n";
  s << "#SBATCH --job-name=infermark_" << plan.label << "\n";
  s << "#SBATCH --nodes=" << nodes << "\n";
  s << "#SBATCH --exclusive\n";
  s << "#SBATCH --time=" << runner.slurm.time_limit_min * std::max(rows, 1) << "\n";
  s << "#SBATCH --output=" << (fs::path(plan.log_dir) / "slurm-%j.out").string() << "\n";
  if (!runner.slurm.partition.empty()) s << "#SBATCH --partition=" << runner.slurm.partition << "\n";
  if (runner.slurm.gpus_per_node > 0) s << "#SBATCH --gres=gpu:" << runner.slurm.gpus_per_node << "\n";
  for (const auto& a : runner.slurm.sbatch_args) s << "#SBATCH " << a << "\n";
  s << "# " << plan.result_filename << "\n";
  s << "set -euo pipefail\n";
  const std::string infermark = settings.plan.infermark.empty() ? SelfExecutable() : settings.plan.infermark;
  s << "exec " << Quote(infermark) << " run --matrix " << Quote(row_file) << " --site " << Quote(site_file)
    << " --executor local --result-dir " << Quote(plan.result_dir);
  const std::string runner_name = EnvValue(plan.env, "RUNNER_NAME");
  if (!runner_name.empty()) s << " --runner-name " << Quote(runner_name);
  s << " --port " << plan.port;
  if (plan.kind == TargetKind::kEngine) s << " --time-scale " << plan.time_scale;
  if (settings.plan.prompts_per_conc) s << " --prompts-per-conc " << *settings.plan.prompts_per_conc;
  if (settings.plan.warmups_per_conc) s << " --warmups-per-conc " << *settings.plan.warmups_per_conc;
  if (settings.plan.min_prompts) s << " --min-prompts " << *settings.plan.min_prompts;
  if (settings.plan.max_host_error_percent) s << " --max-host-error-percent " << *settings.plan.max_host_error_percent;
  if (settings.plan.eval_limit) s << " --eval-limit " << *settings.plan.eval_limit;
  if (!settings.plan.eval_thresholds.empty()) s << " --eval-thresholds " << Quote(settings.plan.eval_thresholds);
  s << " --startup-timeout " << settings.limits.startup_timeout_s << " --row-timeout " << settings.limits.row_timeout_s;
  if (!settings.resume) s << " --no-resume";
  if (settings.host_retries > 0) s << " --host-retries " << settings.host_retries;
  if (plan.repeats > 1)
    s << " --repeats " << plan.repeats << (plan.repeat_fresh_server ? " --repeat-fresh-server" : "");
  if (slurm.no_store) {
    s << " --no-store";
  } else {
    if (!slurm.database.empty())
      s << " --database " << Quote(slurm.database) << " --report "
        << Quote((fs::path(plan.log_dir) / "report.html").string());
    if (!slurm.run_key.empty()) s << " --run-key " << Quote(slurm.run_key) << " --run-label " << Quote(slurm.run_label);
  }
  s << "\n";
  return s.str();
}

SweepSummary RunSlurmSweep(const std::vector<matrix::MatrixRow>& rows, const SiteConfig& site,
                           const SweepSettings& settings, const SlurmSettings& slurm) {
  const std::vector<RowPlan> plans = PlanRows(rows, site, settings.plan);
  const std::vector<EvalBatchRole> roles = EvalBatchRoles(rows);
  InstallStopHandlers();
  std::vector<Job> jobs;
  SweepSummary summary;
  std::vector<RowOutcome> outcomes(plans.size());
  std::error_code ec;
  // The rows each job runs, by the row whose plan names the job: a row alone, or every row of an
  // eval batch in the job of the row that runs the batch (complete ones too: the job's own sweep
  // skips them but needs them to batch the evals as here).
  std::vector<std::vector<std::size_t>> due(plans.size());
  std::vector<std::vector<std::size_t>> members(plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const std::size_t owner = roles[i].by.value_or(i);
    members[owner].push_back(i);
    if (settings.resume && RowComplete(plans[i])) {
      outcomes[i].status = RowStatus::kSkipped;
      continue;
    }
    due[owner].push_back(i);
  }
  for (std::size_t owner = 0; owner < plans.size(); ++owner) {
    if (due[owner].empty()) continue;
    const RowPlan& plan = plans[owner];
    for (const std::size_t i : due[owner]) {
      fs::create_directories(plans[i].log_dir, ec);
      fs::remove(plans[i].state_path, ec);
    }
    const std::string row_file = (fs::path(plan.log_dir) / "row.json").string();
    const std::string script_file = (fs::path(plan.log_dir) / "job.sbatch").string();
    Json job_rows = Json::array();
    for (const std::size_t i : members[owner]) job_rows.push_back(rows[i].raw);
    WriteFileAtomic(row_file, job_rows.dump() + "\n");
    const RunnerSite* runner = site.FindRunner(plan.label);
    WriteFileAtomic(script_file, SlurmJobScript(plan, *runner, RowNodes(rows[owner], *runner), row_file, site.file,
                                                settings, slurm, static_cast<int>(due[owner].size())));
    ProcessResult r;
    try {
      r = RunCapture({slurm.sbatch, "--parsable", script_file});
    } catch (const std::exception& e) {
      r.exit_code = 127;
      r.err = e.what();
    }
    if (r.exit_code != 0) {
      for (const std::size_t i : due[owner]) {
        outcomes[i].status = RowStatus::kFailed;
        outcomes[i].reason = "sbatch failed: " + r.err.substr(0, r.err.find('\n'));
        outcomes[i].attempts.push_back(
            RecordAttempt(settings.attempts, settings.progress, rows[i], plans[i],
                          {.started_at = IsoUtcNow(), .status = RowStatus::kFailed, .reason = outcomes[i].reason}));
        WriteRowState(plans[i], rows[i], outcomes[i]);
      }
      continue;
    }
    Job job;
    job.owner = owner;
    job.rows = due[owner];
    job.submitted_at = IsoUtcNow();
    job.id = r.out.substr(0, r.out.find_first_of(";\n"));
    jobs.push_back(job);
    if (settings.progress != nullptr) {
      for (const std::size_t i : job.rows) {
        std::fprintf(settings.progress, "slurm: row %zu/%zu submitted as job %s: %s\n", i + 1, plans.size(),
                     job.id.c_str(), plans[i].result_filename.c_str());
      }
    }
  }
  std::size_t open = jobs.size();
  while (open > 0) {
    if (StopRequested() != 0) {
      for (auto& j : jobs) {
        if (!j.ended) RunCapture({slurm.scancel, j.id});
      }
      break;
    }
    for (auto& j : jobs) {
      if (j.ended) continue;
      j.state = JobState(slurm, j.id);
      if (Ended(j.state)) {
        j.ended = true;
        --open;
        if (settings.progress != nullptr) {
          std::fprintf(settings.progress, "slurm: job %s ended %s\n", j.id.c_str(), j.state.c_str());
        }
      }
    }
    if (open > 0) std::this_thread::sleep_for(std::chrono::duration<double>(slurm.poll_interval_s));
  }
  for (const auto& j : jobs) {
    for (const std::size_t row : j.rows) {
      const RowPlan& plan = plans[row];
      RowOutcome& out = outcomes[row];
      Json state;
      try {
        state = Json::parse(ReadFile(plan.state_path));
      } catch (const std::exception&) {
      }
      const std::string slurm_log = (fs::path(plans[j.owner].log_dir) / ("slurm-" + j.id + ".out")).string();
      if (state.is_object() && state.contains("status")) {
        const std::string s = state["status"].get<std::string>();
        out.status = s == "done"          ? RowStatus::kDone
                     : s == "invalid"     ? RowStatus::kInvalid
                     : s == "eval-failed" ? RowStatus::kEvalFailed
                                          : RowStatus::kFailed;
        out.reason = state.value("reason", "");
        out.seconds = state.value("seconds", 0.0);
        if (j.state != "COMPLETED" && out.status != RowStatus::kDone) out.reason += " (slurm job " + j.state + ")";
      } else {
        out.status = StopRequested() != 0 ? RowStatus::kInterrupted : RowStatus::kFailed;
        out.reason = "slurm job " + j.id + " ended " + (j.state.empty() ? "?" : j.state) + " without a row state";
        const std::string tail = LogTail(slurm_log, 3);
        if (!tail.empty()) out.reason += "; job output ends: " + tail;
        // The job never recorded its attempt: the submitter does, with the job's output as its log.
        const AttemptEnd end{
            .started_at = j.submitted_at, .status = out.status, .reason = out.reason, .client_log = slurm_log};
        out.attempts.push_back(RecordAttempt(settings.attempts, settings.progress, rows[row], plan, end));
        WriteRowState(plan, rows[row], out);
      }
    }
  }
  summary.slurm = true;
  for (std::size_t i = 0; i < plans.size(); ++i) summary.Add(plans[i].result_filename, std::move(outcomes[i]));
  summary.stop_signal = StopRequested();
  return summary;
}

}  // namespace infermark::runner
