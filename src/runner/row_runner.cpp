// A row's processes live in ProcessGroup objects whose destructors stop them, so every early
// return (and exception) still leaves no process behind.
#include "runner/row_runner.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include "core/subprocess.hpp"
#include "runner/exit_reason.hpp"
#include "runner/readiness.hpp"
#include "runner/row_telemetry.hpp"
#include "runner/stop_signal.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

void RunCleanup(const RowPlan& plan) {
  if (plan.cleanup.empty()) return;
  try {
    RunCapture(plan.cleanup);
  } catch (const std::exception&) {
    // The container engine is gone too: nothing is left to remove.
  }
}

// Result files of a script row land in RESULT_DIR; its server log moves into the row's folder.
void CollectScriptLog(const RowPlan& plan) {
  if (plan.kind != TargetKind::kScript && plan.kind != TargetKind::kContainer) return;
  std::error_code ec;
  if (fs::exists(plan.server_log, ec)) fs::rename(plan.server_log, fs::path(plan.log_dir) / "server.log", ec);
}

// `spec` with the row's mark in its environment (kRowMarkVariable), which its descendants inherit.
SpawnSpec Marked(SpawnSpec spec, const std::string& mark) {
  spec.env.emplace_back(kRowMarkVariable, mark);
  return spec;
}

}  // namespace

std::string VerdictReasons(const std::string& log) {
  std::ifstream in(log);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  - ", 0) == 0) out += (out.empty() ? ": " : "; ") + line.substr(4);
  }
  return out;
}

const char* StatusName(RowStatus status) {
  switch (status) {
    case RowStatus::kDone:
      return "done";
    case RowStatus::kInvalid:
      return "invalid";
    case RowStatus::kFailed:
      return "failed";
    case RowStatus::kInterrupted:
      return "interrupted";
    case RowStatus::kSkipped:
      return "skipped";
    case RowStatus::kEvalFailed:
      return "eval-failed";
  }
  return "failed";
}

void ApplyEvalVerdict(RowOutcome& out) {
  if (out.status != RowStatus::kDone && out.status != RowStatus::kInvalid) return;
  const std::string failures = EvalFailures(out.evals);
  if (failures.empty()) return;
  out.status = RowStatus::kEvalFailed;
  out.reason = (out.reason.empty() ? "" : out.reason + "; ") + "eval failed: " + failures;
}

RowOutcome RunRowLocally(const RowPlan& plan, const RowLimits& limits) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(Seconds(limits.row_timeout_s));
  const Seconds grace(limits.stop_grace_s);
  RowOutcome out;
  std::error_code ec;
  fs::create_directories(plan.log_dir, ec);
  fs::create_directories(plan.result_dir, ec);
  // A result file without a finished state is from a run that was cut short: not this row's.
  fs::remove(plan.result_path, ec);
  const bool script = !plan.client.has_value();
  if (script) fs::remove(plan.server_log, ec);
  const bool eval_only = plan.eval && plan.eval->only;
  const bool evaluates = plan.eval && plan.eval->RunsHere();
  // An eval's files from an earlier run of the row would be judged as this one's.
  if (evaluates) fs::remove_all(plan.eval->dir, ec);

  auto finish = [&](RowStatus status, std::string reason) {
    out.status = status;
    out.reason = std::move(reason);
    out.seconds = Seconds(Clock::now() - start).count();
    return out;
  };
  auto interrupted = [&] { return "interrupted by signal " + std::to_string(StopRequested()); };
  if (eval_only && !evaluates) {
    // Nothing to start: the row is its eval alone, which another row's server answers.
    return finish(RowStatus::kDone, "eval-only row: " + EvalBatchNote(plan));
  }
  if (eval_only && !plan.eval->not_run.empty()) {
    // Nothing to start: the row is its eval alone and this target cannot answer it.
    out.evals = RecordEvalsNotRun(plan, plan.eval->not_run);
    return finish(RowStatus::kDone, "eval-only row, eval not run: " + plan.eval->not_run);
  }

  // Groups a sweep killed with SIGKILL left running would hold the port: end them first.
  const std::string groups_file = (fs::path(plan.log_dir) / "groups").string();
  KillRecordedGroups(groups_file);
  KillMarkedProcesses({groups_file});
  // Power is sampled from before the server starts until the row has ended (InferenceX's monitor).
  std::optional<RowTelemetrySession> telemetry;
  if (plan.telemetry) telemetry.emplace(*plan.telemetry);
  std::optional<ProcessGroup> server;
  try {
    server.emplace(Marked(plan.server, groups_file));
    RecordGroup(groups_file, server->pid());
  } catch (const std::exception& e) {
    return finish(RowStatus::kFailed, e.what());
  }
  ReadinessOptions ready;
  ready.port = plan.port;
  ready.log_path = plan.server_log;
  ready.timeout_s = limits.startup_timeout_s;
  ready.exit_zero_is_done = script;
  const ReadyResult r = WaitReady(*server, ready);
  out.ready_s = r.waited_s;

  RowStatus status = RowStatus::kDone;
  std::string reason;
  if (r.state == ReadyState::kInterrupted) {
    status = RowStatus::kInterrupted;
    reason = interrupted();
  } else if (r.state == ReadyState::kExited && script) {
    // The launcher's own output says why (its server may not have written a log yet).
    status = RowStatus::kFailed;
    reason = WithLogTail("launcher " + ExitText(server->Poll().value_or(-1)) + " before the server was ready",
                         plan.server.log_path);
  } else if (r.state == ReadyState::kExited || r.state == ReadyState::kTimedOut) {
    status = RowStatus::kFailed;
    reason = r.detail;
  } else if (script) {
    // The launcher runs the client itself: wait for it to finish the row.
    const auto left = Seconds(deadline - Clock::now());
    const std::optional<int> code = server->WaitFor(left);
    if (StopRequested() != 0) {
      status = RowStatus::kInterrupted;
      reason = interrupted();
    } else if (!code) {
      status = RowStatus::kFailed;
      reason =
          "row timeout: launcher still running after " + std::to_string(static_cast<int>(limits.row_timeout_s)) + " s";
    } else if (eval_only) {
      // The launcher ran the eval alone: its folder is judged below.
      if (*code != 0) {
        status = RowStatus::kFailed;
        reason = WithLogTail("launcher " + ExitText(*code) + " in its eval-only run", plan.server.log_path);
      }
    } else if (*code != 0 && !fs::exists(plan.result_path, ec)) {
      status = RowStatus::kFailed;
      reason = WithLogTail(
          "launcher " + ExitText(*code) + " without writing " + fs::path(plan.result_path).filename().string(),
          plan.server.log_path);
    } else if (*code != 0) {
      status = RowStatus::kInvalid;
      reason = "launcher " + ExitText(*code) + " after writing its result";
    } else if (!fs::exists(plan.result_path, ec)) {
      status = RowStatus::kFailed;
      reason = "launcher exited 0 but wrote no " + fs::path(plan.result_path).filename().string();
    }
  } else if (!eval_only) {
    std::optional<ProcessGroup> client;
    try {
      client.emplace(Marked(*plan.client, groups_file));
      RecordGroup(groups_file, client->pid());
    } catch (const std::exception& e) {
      status = RowStatus::kFailed;
      reason = e.what();
    }
    while (client) {
      if (auto code = client->WaitFor(Seconds(0.2))) {
        if (*code == 0 && fs::exists(plan.result_path, ec)) break;
        if (fs::exists(plan.result_path, ec)) {
          status = RowStatus::kInvalid;
          reason = "run judged INVALID by the load generator" + VerdictReasons(plan.client->log_path);
        } else {
          status = RowStatus::kFailed;
          reason = WithLogTail("client " + ExitText(*code) + " without a result", plan.client->log_path);
        }
        break;
      }
      if (StopRequested() != 0) {
        status = RowStatus::kInterrupted;
        reason = interrupted();
        break;
      }
      if (auto died = server->Poll()) {
        status = RowStatus::kFailed;
        reason = WithLogTail("server " + ExitText(*died) + " during the load", plan.server_log);
        break;
      }
      if (Clock::now() >= deadline) {
        status = RowStatus::kFailed;
        reason =
            "row timeout: load still running after " + std::to_string(static_cast<int>(limits.row_timeout_s)) + " s";
        break;
      }
    }
    if (client) client->Stop(grace);
    if (status == RowStatus::kFailed || status == RowStatus::kInterrupted) fs::remove(plan.result_path, ec);
  }
  const bool measured_point = status == RowStatus::kDone || status == RowStatus::kInvalid;
  if (evaluates && !script && measured_point) {
    // After the throughput point, against the same server (InferenceX: run_eval after
    // run_benchmark_serving); an eval-only row's server only answers the eval.
    if (auto died = server->Poll()) {
      out.evals =
          RecordEvalsNotRun(plan, WithLogTail("the server " + ExitText(*died) + " before the eval", plan.server_log));
    } else {
      out.evals = RunRowEvals(plan, Seconds(deadline - Clock::now()).count());
      if (StopRequested() != 0) {
        status = RowStatus::kInterrupted;
        reason = interrupted();
      }
    }
  }
  server->Stop(grace);
  server.reset();
  RunCleanup(plan);
  fs::remove(groups_file, ec);
  CollectScriptLog(plan);
  const bool launcher_evaluated = script && (measured_point || (eval_only && status == RowStatus::kFailed));
  if (evaluates && launcher_evaluated) {
    out.evals = RunRowEvals(plan, 0);  // judged from the folders the launcher's run_eval left
  } else if (evaluates && status == RowStatus::kFailed) {
    out.evals = RecordEvalsNotRun(plan, "the row failed before its eval: " + reason);
  }
  out.warnings = ScanLogWarnings(fs::path(plan.log_dir) / "server.log");
  if (status == RowStatus::kFailed && script) fs::remove(plan.result_path, ec);
  if (telemetry) {
    const bool measured = (status == RowStatus::kDone || status == RowStatus::kInvalid) && !eval_only;
    RowPower power = telemetry->Finish(measured ? plan.result_path : std::string());
    out.power_valid = power.valid;
    out.power_reasons = std::move(power.reasons);
    if (plan.telemetry->require_power && measured && power.valid != true && status == RowStatus::kDone) {
      std::string why;
      for (const auto& item : out.power_reasons) why += (why.empty() ? "" : ", ") + item;
      status = RowStatus::kInvalid;
      reason = "power required but invalid: " + (why.empty() ? std::string("no power fields") : why);
    }
  }
  out.status = status;
  out.reason = reason;
  ApplyEvalVerdict(out);
  return finish(out.status, out.reason);
}

}  // namespace infermark::runner
