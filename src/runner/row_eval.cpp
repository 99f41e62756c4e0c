// In-process evals are stopped through the eval client's stop flag, which a watcher thread raises
// when the sweep is asked to stop or the row's time is up, so an eval never outlives its row.
#include "runner/row_eval.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "core/eval_thresholds.hpp"
#include "core/file_io.hpp"
#include "eval/eval_run.hpp"
#include "eval/lm_eval_output.hpp"
#include "loadgen/http_target.hpp"
#include "runner/launch_env.hpp"
#include "runner/row_plan.hpp"
#include "runner/stop_signal.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The row's launcher environment with CONC set to the eval's concurrency (meta_env.json's conc).
eval::EnvLookup EvalEnv(const RowPlan& plan, int conc) {
  return [&plan, conc](const std::string& key) -> std::optional<std::string> {
    if (key == "CONC") return std::to_string(conc);
    for (auto it = plan.env.rbegin(); it != plan.env.rend(); ++it) {
      if (it->first == key) return it->second;
    }
    return std::nullopt;
  };
}

eval::EvalStatus Base(const RowPlan& plan, int conc) {
  eval::EvalStatus s;
  s.task = plan.eval->task;
  s.concurrency = conc;
  s.result_filename = plan.result_filename;
  s.server = plan.eval->server;
  return s;
}

void WriteMetaEnv(const RowPlan& plan, int conc, const std::string& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  WriteFileAtomic((fs::path(folder) / "meta_env.json").string(),
                  eval::MetaEnvJson(EvalEnv(plan, conc), plan.eval->model, static_cast<std::size_t>(conc)).dump(2));
}

eval::EvalStatus Invalid(const RowPlan& plan, int conc, const std::string& folder, const std::string& why) {
  WriteMetaEnv(plan, conc, folder);
  eval::EvalStatus s = Base(plan, conc);
  s.status = "invalid";
  s.reasons = {why};
  s.started_utc = IsoUtcNow();
  return s;
}

eval::EvalStatus RunInProcess(const RowPlan& plan, int conc, const std::string& folder,
                              const EvalThresholds& thresholds, Clock::time_point deadline) {
  const EvalPlan& ev = *plan.eval;
  eval::EvalSettings s;
  s.task = ev.task;
  s.client.base_url = "http://127.0.0.1:" + std::to_string(plan.port);
  s.client.concurrency = static_cast<std::size_t>(conc);
  s.model = ev.model;
  s.limit = ev.limit;
  s.max_model_len = ev.max_model_len;
  std::atomic<bool> stop{false};
  std::jthread watcher([&stop, deadline](std::stop_token token) {
    while (!token.stop_requested()) {
      if (StopRequested() != 0 || Clock::now() >= deadline) stop = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  eval::EvalResult result;
  try {
    result = eval::RunEval(s, &stop);
  } catch (const loadgen::ServerUnreachable& e) {
    return Invalid(plan, conc, folder, std::string("the server could not be reached: ") + e.what());
  } catch (const InputError& e) {
    return Invalid(plan, conc, folder, e.what());
  }
  watcher.request_stop();
  if (!result.complete && StopRequested() == 0) {
    result.invalid_reasons.push_back("the row's time ran out during the eval");
  }
  eval::RunDescription run;
  run.model = ev.model;
  run.base_url = s.client.base_url;
  run.concurrency = s.client.concurrency;
  run.max_retries = s.client.max_retries;
  run.max_model_len = ev.max_model_len;
  run.limit = ev.limit;
  eval::WriteEvalFiles(folder, result, run, EvalEnv(plan, conc));
  eval::EvalStatus status = eval::JudgeEvalFolder(folder, thresholds, ev.model_prefix);
  status.started_utc = IsoUtc(result.start_unix);
  status.duration_s = result.end_unix - result.start_unix;
  return status;
}

}  // namespace

std::string EvalPlan::Folder(int conc) const {
  if (concs.size() <= 1) return dir;
  return (fs::path(dir) / ("conc" + std::to_string(conc))).string();
}

bool IsEvalRow(const matrix::MatrixRow& row) {
  return row.raw.value("run-eval", false) || IsEvalOnlyRow(row);
}

bool IsEvalOnlyRow(const matrix::MatrixRow& row) {
  return row.raw.value("eval-only", false);
}

std::vector<int> EvalConcs(const matrix::MatrixRow& row) {
  std::vector<int> out;
  for (const long long c : EvalConcValues(row.raw)) out.push_back(static_cast<int>(c));
  return out;
}

long long EvalMaxModelLen(const matrix::MatrixRow& row) {
  return EvalContextLength(row.raw);
}

std::vector<eval::EvalStatus> RecordEvalsNotRun(const RowPlan& plan, const std::string& reason) {
  std::vector<eval::EvalStatus> out;
  for (const int conc : plan.eval->concs) {
    const std::string folder = plan.eval->Folder(conc);
    WriteMetaEnv(plan, conc, folder);
    eval::EvalStatus s = Base(plan, conc);
    s.status = "not_run";
    s.reasons = {reason};
    s.started_utc = IsoUtcNow();
    eval::WriteEvalStatus(folder, s);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<eval::EvalStatus> RunRowEvals(const RowPlan& plan, double deadline_s) {
  const EvalPlan& ev = *plan.eval;
  if (!ev.not_run.empty()) return RecordEvalsNotRun(plan, ev.not_run);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::max(0.0, deadline_s)));
  EvalThresholds thresholds;
  std::string threshold_error;
  try {
    thresholds = ev.thresholds.empty() ? eval::BuiltInThresholds() : LoadEvalThresholds(ev.thresholds);
  } catch (const InputError& e) {
    threshold_error = std::string("the thresholds could not be read: ") + e.what();
  }
  std::vector<eval::EvalStatus> out;
  for (const int conc : ev.concs) {
    const std::string folder = ev.Folder(conc);
    eval::EvalStatus s;
    if (!threshold_error.empty()) {
      s = Invalid(plan, conc, folder, threshold_error);
    } else if (ev.in_process) {
      if (StopRequested() != 0) break;
      s = RunInProcess(plan, conc, folder, thresholds, deadline);
    } else {
      s = eval::JudgeEvalFolder(folder, thresholds, ev.model_prefix);
      if (s.results_file.empty()) {
        s.reasons = {"the launcher left no eval results in " + folder +
                     " (its script must call run_eval from benchmark_lib.sh when RUN_EVAL=true)"};
      }
    }
    s.task = s.task.empty() ? ev.task : s.task;
    s.concurrency = conc;
    s.result_filename = plan.result_filename;
    s.server = ev.server;
    if (s.started_utc.empty()) s.started_utc = IsoUtcNow();
    eval::WriteEvalStatus(folder, s);
    out.push_back(std::move(s));
  }
  return out;
}

bool EvalsComplete(const RowPlan& plan) {
  for (const int conc : plan.eval->concs) {
    const auto s = eval::ReadEvalStatus(plan.eval->Folder(conc));
    if (!s) return false;
    const bool fine =
        (s->status == "scored" && s->passed == true) || (s->status == "not_run" && !plan.eval->not_run.empty());
    if (!fine) return false;
  }
  return true;
}

std::string EvalFailures(const std::vector<eval::EvalStatus>& evals) {
  std::string out;
  for (const eval::EvalStatus& s : evals) {
    if (!s.Failed()) continue;
    std::string what = evals.size() > 1 ? "[conc=" + std::to_string(s.concurrency) + "] " : "";
    if (s.status == "invalid" || s.status == "incomplete") what += s.task + " eval " + s.status + ": ";
    for (std::size_t i = 0; i < s.reasons.size(); ++i) what += (i == 0 ? "" : "; ") + s.reasons[i];
    out += (out.empty() ? "" : "; ") + what;
  }
  return out;
}

}  // namespace infermark::runner
