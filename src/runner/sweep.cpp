// Row states are written with WriteFileAtomic after the result is stored, so a sweep killed at
// any instant leaves each row either complete (state + result) or not (re-run); a result file
// with no state is adopted after a check that it parses, so a kill between the client's write and
// the state's costs no measurement.
#include "runner/sweep.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "runner/multinode_row.hpp"
#include "runner/process_group.hpp"
#include "runner/progress.hpp"
#include "runner/row_repeats.hpp"
#include "runner/stop_signal.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

Json ReadJson(const std::string& path) {
  try {
    return Json::parse(ReadFile(path));
  } catch (const std::exception&) {
    return Json();
  }
}

const char* TargetName(TargetKind kind) {
  switch (kind) {
    case TargetKind::kEngine:
      return "engine";
    case TargetKind::kScript:
      return "script";
    case TargetKind::kContainer:
      return "container";
    case TargetKind::kCommand:
      return "command";
  }
  return "engine";
}

// A multi-node row's judged eval folder, stored under the sweep's run as an eval-only row's is
// (its points were stored as they ended); a failure to store fails the row.
void StoreMultiNodeEvals(const matrix::MatrixRow& row, const RowPlan& plan, const SweepSettings& settings,
                         RowOutcome& outcome) {
  std::error_code ec;
  if (!settings.store || !fs::exists(plan.eval->dir, ec)) return;
  RowPlan evals = plan;
  evals.eval->only = true;
  std::string why;
  try {
    why = settings.store(row, evals, outcome);
  } catch (const std::exception& e) {
    why = e.what();
  }
  if (!why.empty()) {
    outcome.status = RowStatus::kFailed;
    outcome.reason = "storing the evals failed: " + why + (outcome.reason.empty() ? "" : "; " + outcome.reason);
  }
}

// A multi-node row: one row state, one summary row per point (one for the row when it failed
// before any point could run).
void RunMultiNode(const matrix::MatrixRow& row, const RowPlan& plan, const SweepSettings& settings, int index,
                  Progress& progress, SweepSummary& summary) {
  MultiNodeOutcome out;
  if (plan.eval && plan.eval->only && !plan.eval->not_run.empty()) {
    // An eval-only row at a target that cannot answer: nothing to allocate or start.
    out.row.status = RowStatus::kDone;
    out.row.reason = "eval-only row, eval not run: " + plan.eval->not_run;
    out.row.evals = RecordEvalsNotRun(plan, plan.eval->not_run);
    StoreMultiNodeEvals(row, plan, settings, out.row);
    WriteRowState(plan, row, out.row);
    if (settings.progress != nullptr) {
      progress.Finish(index, plan.result_filename + ": " + out.row.reason, StatusName(out.row.status), 0, true);
    }
    summary.Add(plan.result_filename, std::move(out.row));
    return;
  }
  if (plan.eval) {
    // An eval's files from an earlier run of the row would be judged as this one's.
    std::error_code ec;
    fs::remove_all(plan.eval->dir, ec);
  }
  const std::string started_at = IsoUtcNow();
  out = RunMultiNodeRow(row, plan, settings.limits, settings.store, settings.resume);
  if (plan.eval) {
    // The launcher ran EVAL_CONC in turn on its one deployment (or the built-in engine cannot).
    const bool measured = out.row.status == RowStatus::kDone || out.row.status == RowStatus::kInvalid;
    if (measured || (plan.eval->only && out.row.status == RowStatus::kFailed)) {
      out.row.evals = RunRowEvals(plan, 0);
    } else if (out.row.status == RowStatus::kFailed) {
      out.row.evals = RecordEvalsNotRun(plan, "the row failed before its eval: " + out.row.reason);
    }
    ApplyEvalVerdict(out.row);
    StoreMultiNodeEvals(row, plan, settings, out.row);
  }
  bool any_point = false;
  for (const auto& p : out.points) any_point = any_point || p.outcome.reason != out.row.reason;
  if (!any_point || (plan.eval && plan.eval->only)) {
    // No point ran, or none was due (an eval-only row): the row stands for itself.
    out.points.assign(1, MultiNodePointOutcome{plan.result_filename, out.row});
  } else if (plan.eval) {
    // The evals ran on the deployment after its points: they go with the last in the summary.
    RowOutcome& last = out.points.back().outcome;
    last.evals = out.row.evals;
    ApplyEvalVerdict(last);
  }
  // One attempt per point, each under its own stem; the row as a whole when no point ran.
  for (const auto& p : out.points) {
    AttemptEnd end{.started_at = started_at,
                   .seconds = p.outcome.seconds,
                   .status = p.outcome.status,
                   .reason = p.outcome.reason,
                   .ready_s = out.row.ready_s,
                   .result_filename = p.result_filename};
    for (const auto& planned : plan.multinode->points) {
      if (planned.result_filename == p.result_filename) end.conc = planned.conc;
    }
    out.row.attempts.push_back(RecordAttempt(settings.attempts, settings.progress, row, plan, end));
  }
  WriteRowState(plan, row, out.row);
  if (settings.progress != nullptr) {
    std::string label = plan.result_filename + ": " + std::to_string(out.points.size()) + " point(s)";
    if (!out.row.reason.empty() && out.row.status != RowStatus::kDone) label += ": " + out.row.reason;
    progress.Finish(index, label, StatusName(out.row.status), out.row.seconds, true);
  }
  for (auto& p : out.points) summary.Add(p.result_filename, std::move(p.outcome));
}

// Moves an attempt's result file and client log into the row's log folder as attempt-<n>.*, and
// returns the result's new path.
std::string KeepAttempt(const RowPlan& plan, int attempt) {
  std::error_code ec;
  const fs::path dir(plan.log_dir);
  fs::create_directories(dir, ec);
  const std::string stem = "attempt-" + std::to_string(attempt);
  const fs::path kept = dir / (stem + ".json");
  fs::rename(plan.result_path, kept, ec);
  // Moved, not copied: the client's log is appended to, and the next attempt's reasons are read from it.
  if (plan.client) fs::rename(plan.client->log_path, dir / (stem + ".client.log"), ec);
  return kept.string();
}

}  // namespace

bool InvalidForTheHostAlone(const std::string& path) {
  const Json result = ReadJson(path);
  if (!result.is_object() || result.value("verdict", "") != "INVALID") return false;
  const auto reasons = result.find("verdict_reasons");
  if (reasons == result.end() || !reasons->is_array() || reasons->empty()) return false;
  for (const auto& reason : *reasons) {
    if (!reason.is_string()) return false;
    const std::string& text = reason.get_ref<const std::string&>();
    if (text.rfind("host error:", 0) != 0) return false;
  }
  return true;
}

bool RowComplete(const RowPlan& plan) {
  std::error_code ec;
  if (plan.multinode && !(plan.eval && plan.eval->only)) {
    for (const auto& p : plan.multinode->points) {
      if (!fs::exists(p.result_path, ec)) return false;
    }
  } else if (!plan.multinode && !(plan.eval && plan.eval->only) && !fs::exists(plan.result_path, ec)) {
    return false;
  }
  const Json state = ReadJson(plan.state_path);
  if (!state.is_object() || !state.contains("status") || !state["status"].is_string()) return false;
  const std::string s = state["status"].get<std::string>();
  if (plan.eval && !EvalsComplete(plan)) return false;
  return s == "done" || s == "invalid";
}

void SweepSummary::Add(const std::string& result_filename, RowOutcome outcome) {
  if (outcome.status == RowStatus::kDone || outcome.status == RowStatus::kInvalid) {
    ++done;
  } else if (outcome.status == RowStatus::kEvalFailed) {
    ++done;
    ++eval_failed;
  } else if (outcome.status == RowStatus::kSkipped) {
    ++skipped;
  } else if (outcome.status != RowStatus::kInterrupted) {
    ++failed;
  }
  rows.push_back(SweepRow{result_filename, std::move(outcome)});
}

void WriteRowState(const RowPlan& plan, const matrix::MatrixRow& row, const RowOutcome& outcome) {
  Json state = Json::object();
  state["status"] = StatusName(outcome.status);
  state["reason"] = outcome.reason;
  state["result_filename"] = plan.result_filename;
  state["target"] = TargetName(plan.kind);
  state["executor"] = plan.executor == ExecutorKind::kSlurm ? "slurm" : "local";
  state["finished_at"] = IsoUtcNow();
  state["seconds"] = outcome.seconds;
  state["ready_seconds"] = outcome.ready_s;
  state["time_scale"] = plan.time_scale;
  state["server_argv"] = plan.server.argv;
  Json warnings = Json::array();
  for (const auto& w : outcome.warnings) {
    warnings.push_back(Json{{"what", w.what}, {"count", w.count}, {"first_line", w.first_line}});
  }
  state["warnings"] = warnings;
  if (!outcome.earlier_attempts.empty()) state["earlier_attempts"] = outcome.earlier_attempts;
  if (!outcome.attempts.empty()) {
    Json attempts = Json::array();
    for (const results::RowAttempt& a : outcome.attempts) attempts.push_back(AttemptStateJson(a));
    state["attempts"] = attempts;
  }
  if (plan.eval) {
    Json evals = Json::array();
    for (const auto& e : outcome.evals) evals.push_back(eval::EvalStatusJson(e));
    state["evals"] = evals;
    // Which server evaluated the row: its own, with the batch's concurrencies, or another row's.
    Json batch = Json::object();
    batch["concs"] = plan.eval->RunsHere() ? plan.eval->concs : plan.eval->own_concs;
    batch["folder"] = plan.eval->dir;
    batch["server_of"] = plan.eval->RunsHere() ? plan.result_filename : plan.eval->batched_with;
    state["eval_batch"] = batch;
  }
  state["row"] = row.raw;
  std::error_code ec;
  fs::create_directories(plan.result_dir, ec);
  WriteFileAtomic(plan.state_path, state.dump(2) + "\n");
}

SweepSummary RunSweep(const std::vector<matrix::MatrixRow>& rows, const SiteConfig& site,
                      const SweepSettings& settings) {
  PlanOptions plan_options = settings.plan;
  plan_options.host_retries = settings.host_retries;  // a client's repeats are each retried so
  const std::vector<RowPlan> plans = PlanRows(rows, site, plan_options);
  // A sweep killed with SIGKILL leaves its row's processes running; end them before anything
  // else, so that none writes a result or holds the port while this sweep goes on.
  std::vector<std::string> marks;
  for (const auto& plan : plans) {
    marks.push_back((fs::path(plan.log_dir) / "groups").string());
    KillRecordedGroups(marks.back());
  }
  // Processes started in the instant before their group was recorded carry the row's mark.
  KillMarkedProcesses(marks);
  const RowExecutor executor = settings.executor ? settings.executor : RowExecutor(&RunRowLocally);
  const RowExecutor run = [&](const RowPlan& plan, const RowLimits& limits) {
    return plan.repeats > 1 && plan.repeat_fresh_server ? RunRowRepeats(plan, limits, executor, settings.host_retries)
                                                        : executor(plan, limits);
  };
  SweepSummary summary;
  Progress progress(settings.progress != nullptr ? settings.progress : stderr, static_cast<int>(plans.size()),
                    settings.progress_tty);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (StopRequested() != 0) break;
    const RowPlan& plan = plans[i];
    const int index = static_cast<int>(i);
    std::error_code ec;
    if (settings.resume && RowComplete(plan)) {
      RowOutcome skipped;
      skipped.status = RowStatus::kSkipped;
      RecordAttempt(settings.attempts, settings.progress, rows[i], plan,
                    {.started_at = IsoUtcNow(), .status = RowStatus::kSkipped});
      if (settings.progress != nullptr) progress.Finish(index, plan.result_filename, "skipped", 0, false);
      summary.Add(plan.result_filename, std::move(skipped));
      continue;
    }
    if (settings.progress != nullptr) progress.Start(index, plan.result_filename);
    if (plan.multinode) {
      RunMultiNode(rows[i], plan, settings, index, progress, summary);
      continue;
    }
    RowOutcome outcome;
    std::vector<results::RowAttempt> attempts;
    double spent_s = 0;  // the wall time of the attempts before the last
    std::string started_at = IsoUtcNow();
    // An eval row's result is not adopted: its eval needs the server the point ran against
    // (unless another row's batch runs its eval).
    const bool evaluates = plan.eval && plan.eval->RunsHere();
    const Json adopted =
        settings.resume && !evaluates && fs::exists(plan.result_path, ec) ? ReadJson(plan.result_path) : Json();
    if (adopted.is_object()) {
      outcome.status = RowStatus::kDone;
      outcome.reason = "result found from an interrupted sweep; stored without re-running";
    } else {
      outcome = run(plan, settings.limits);
      for (int attempt = 1; attempt <= settings.host_retries && outcome.status == RowStatus::kInvalid &&
                            StopRequested() == 0 && InvalidForTheHostAlone(plan.result_path);
           ++attempt) {
        const std::string kept = KeepAttempt(plan, attempt);
        attempts.push_back(RecordAttempt(
            settings.attempts, settings.progress, rows[i], plan,
            {.attempt = attempt,
             .started_at = started_at,
             .seconds = outcome.seconds - spent_s,
             .status = outcome.status,
             .reason = outcome.reason,
             .ready_s = outcome.ready_s,
             .retried = true,
             .result_path = kept,
             .client_log =
                 plan.client
                     ? (fs::path(plan.log_dir) / ("attempt-" + std::to_string(attempt) + ".client.log")).string()
                     : ""}));
        spent_s = outcome.seconds;
        started_at = IsoUtcNow();
        if (settings.progress != nullptr)
          progress.Retry(index, plan.result_filename + ": " + outcome.reason, attempt, outcome.seconds);
        RowOutcome again = run(plan, settings.limits);
        again.earlier_attempts = std::move(outcome.earlier_attempts);
        again.earlier_attempts.push_back(outcome.reason + " (result kept as " + kept + ")");
        again.seconds += outcome.seconds;
        outcome = std::move(again);
      }
    }
    // A point to store, or an eval-only row's eval folders (none when another row runs its eval).
    const bool has_result = (outcome.status == RowStatus::kDone || outcome.status == RowStatus::kInvalid ||
                             outcome.status == RowStatus::kEvalFailed) &&
                            (!(plan.eval && plan.eval->only) || (evaluates && fs::exists(plan.eval->dir, ec)));
    if (has_result && settings.store) {
      std::string why;
      try {
        why = settings.store(rows[i], plan, outcome);
      } catch (const std::exception& e) {
        why = e.what();
      }
      if (!why.empty()) {
        outcome.status = RowStatus::kFailed;
        outcome.reason = "storing the result failed: " + why + (outcome.reason.empty() ? "" : "; " + outcome.reason);
      }
    }
    attempts.push_back(RecordAttempt(settings.attempts, settings.progress, rows[i], plan,
                                     {.attempt = static_cast<int>(attempts.size()) + 1,
                                      .started_at = started_at,
                                      .seconds = outcome.seconds - spent_s,
                                      .status = outcome.status,
                                      .reason = outcome.reason,
                                      .ready_s = outcome.ready_s,
                                      .result_path = plan.result_path,
                                      .client_log = plan.client ? plan.client->log_path : ""}));
    outcome.attempts = std::move(attempts);
    WriteRowState(plan, rows[i], outcome);
    if (settings.progress != nullptr) {
      std::string label = plan.result_filename;
      if (const std::string note = EvalBatchNote(plan); !note.empty() && outcome.reason.find(note) == std::string::npos)
        label += " (" + note + ")";
      if (!outcome.reason.empty() && outcome.status != RowStatus::kDone) label += ": " + outcome.reason;
      progress.Finish(index, label, StatusName(outcome.status), outcome.seconds, true,
                      Progress::RowHeadline(plan.result_path));
    }
    summary.Add(plan.result_filename, std::move(outcome));
  }
  summary.stop_signal = StopRequested();
  if (settings.progress != nullptr) progress.Close();
  return summary;
}

}  // namespace infermark::runner
