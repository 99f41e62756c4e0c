// In-process evals are stopped through the eval client's stop flag, which a watcher thread raises
// when the sweep is asked to stop or the row's time is up, so an eval never outlives its row.
#include "runner/row_eval.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "core/eval_batch.hpp"
#include "core/eval_thresholds.hpp"
#include "core/file_io.hpp"
#include "eval/batched_eval.hpp"
#include "eval/eval_run.hpp"
#include "eval/lm_eval_output.hpp"
#include "loadgen/http_target.hpp"
#include "runner/launch_env.hpp"
#include "runner/row_disagg.hpp"
#include "runner/row_plan.hpp"
#include "runner/stop_signal.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;
using EvalClock = std::chrono::steady_clock;

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

// meta_env.json of the row's eval folder: one eval's, or a batch's with `batch` as its manifest.
void WriteEvalMeta(const RowPlan& plan, int conc, const EvalBatch* batch) {
  std::error_code ec;
  fs::create_directories(plan.eval->dir, ec);
  Json meta = eval::MetaEnvJson(EvalEnv(plan, conc), plan.eval->model, static_cast<std::size_t>(conc));
  if (batch != nullptr) meta = WithEvalBatch(meta, *batch);
  WriteFileAtomic((fs::path(plan.eval->dir) / "meta_env.json").string(), meta.dump(2));
}

// The manifest of a batch none of whose evals ran.
EvalBatch NothingRan(const EvalPlan& ev) {
  EvalBatch b;
  for (const int c : ev.concs) b.concs.push_back(c);
  return b;
}

eval::EvalStatus Invalid(const RowPlan& plan, int conc, const std::string& why) {
  eval::EvalStatus s = Base(plan, conc);
  s.status = "invalid";
  s.reasons = {why};
  s.started_utc = IsoUtcNow();
  return s;
}

// Raises `stop` when the sweep is asked to stop or `deadline` passes, until destroyed.
class EvalWatch {
 public:
  explicit EvalWatch(EvalClock::time_point deadline)
      : thread_([this, deadline](std::stop_token token) {
          while (!token.stop_requested()) {
            if (StopRequested() != 0 || EvalClock::now() >= deadline) stop_ = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
        }) {}
  [[nodiscard]] const std::atomic<bool>* flag() const { return &stop_; }
  /// The row's time ran out (rather than a signal asking the sweep to stop).
  [[nodiscard]] bool TimedOut() const { return stop_.load() && StopRequested() == 0; }

 private:
  std::atomic<bool> stop_{false};
  std::jthread thread_;
};

eval::EvalSettings InProcessSettings(const RowPlan& plan) {
  const EvalPlan& ev = *plan.eval;
  eval::EvalSettings s;
  s.task = ev.task;
  s.client.base_url = "http://127.0.0.1:" + std::to_string(plan.port);
  s.model = ev.model;
  s.limit = ev.limit;
  s.max_model_len = ev.max_model_len;
  return s;
}

eval::RunDescription InProcessRun(const RowPlan& plan, const eval::EvalSettings& s) {
  eval::RunDescription run;
  run.model = plan.eval->model;
  run.base_url = s.client.base_url;
  run.max_retries = s.client.max_retries;
  run.max_model_len = plan.eval->max_model_len;
  run.limit = plan.eval->limit;
  return run;
}

// One concurrency in process, into the row's folder of one eval.
eval::EvalStatus RunOneInProcess(const RowPlan& plan, int conc, const EvalThresholds& thresholds,
                                 EvalClock::time_point deadline) {
  const EvalPlan& ev = *plan.eval;
  eval::EvalSettings s = InProcessSettings(plan);
  s.client.concurrency = static_cast<std::size_t>(conc);
  eval::EvalResult result;
  {
    const EvalWatch watch(deadline);
    try {
      result = eval::RunEval(s, watch.flag());
    } catch (const loadgen::ServerUnreachable& e) {
      WriteEvalMeta(plan, conc, nullptr);
      return Invalid(plan, conc, std::string("the server could not be reached: ") + e.what());
    } catch (const InputError& e) {
      WriteEvalMeta(plan, conc, nullptr);
      return Invalid(plan, conc, e.what());
    }
    if (!result.complete && watch.TimedOut())
      result.invalid_reasons.push_back("the row's time ran out during the eval");
  }
  eval::RunDescription run = InProcessRun(plan, s);
  run.concurrency = s.client.concurrency;
  eval::WriteEvalFiles(ev.dir, result, run, EvalEnv(plan, conc));
  eval::EvalStatus status = eval::JudgeEvalFolder(ev.dir, thresholds, ev.model_prefix);
  status.concurrency = conc;
  status.started_utc = IsoUtc(result.start_unix);
  status.duration_s = result.end_unix - result.start_unix;
  return status;
}

// Every concurrency in process against the one server, into the row's batched folder.
std::vector<eval::EvalStatus> RunBatchInProcess(const RowPlan& plan, const EvalThresholds& thresholds,
                                                EvalClock::time_point deadline) {
  const EvalPlan& ev = *plan.eval;
  const eval::EvalSettings s = InProcessSettings(plan);
  std::vector<long long> concs(ev.concs.begin(), ev.concs.end());
  std::vector<eval::EvalStatus> out;
  const EvalWatch watch(deadline);
  const auto judged = [&](const eval::BatchedEval& e) {
    eval::EvalStatus status = eval::JudgeEvalFolder(ev.dir, thresholds, ev.model_prefix, e.concurrency);
    status.concurrency = e.concurrency;
    if (!e.result) status.reasons = e.problems;
    if (e.result && !e.result->complete && watch.TimedOut()) {
      status.reasons.push_back("the row's time ran out during the eval");
    }
    if (e.result) {
      status.started_utc = IsoUtc(e.result->start_unix);
      status.duration_s = e.result->end_unix - e.result->start_unix;
    }
    out.push_back(std::move(status));
  };
  try {
    eval::RunBatchedEval(s, concs, InProcessRun(plan, s), ev.dir, EvalEnv(plan, ev.concs.front()), watch.flag(), {},
                         judged);
  } catch (const InputError& e) {
    WriteEvalMeta(plan, ev.concs.front(), nullptr);
    out.clear();
    for (const int conc : ev.concs) out.push_back(Invalid(plan, conc, e.what()));
    return out;
  }
  // Concurrencies the row's time never reached are INVALID; a signal leaves them unjudged, so
  // that the resumed sweep runs them.
  for (std::size_t i = out.size(); i < ev.concs.size() && watch.TimedOut(); ++i) {
    out.push_back(Invalid(plan, ev.concs[i], "the row's time ran out before this concurrency's eval"));
  }
  return out;
}

// A configuration's identity as a batch key: the row without its concurrency and eval marking
// (eval-only stays: those rows start their server with the eval's context).
std::string BatchKey(const matrix::MatrixRow& row) {
  Json key = row.raw;
  for (const char* field : {"conc", "run-eval", "eval-conc", "eval-all-concs"}) key.erase(field);
  return key.dump();
}

}  // namespace

std::optional<long long> EvalPlan::BatchedConc(int conc) const {
  if (!Batched()) return std::nullopt;
  return conc;
}

std::vector<EvalBatchRole> EvalBatchRoles(const std::vector<matrix::MatrixRow>& rows) {
  std::vector<EvalBatchRole> roles(rows.size());
  std::map<std::string, std::vector<std::size_t>> batches;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const matrix::MatrixRow& row = rows[i];
    if (!IsEvalRow(row)) continue;
    roles[i].concs = EvalConcs(row);
    if (IsMultiNodeRow(row) || row.Agentic()) continue;  // one deployment per row; SWE-bench is not batched
    batches[BatchKey(row)].push_back(i);
  }
  for (const auto& [key, members] : batches) {
    if (members.size() < 2) continue;
    const std::size_t runner = members.back();
    std::vector<int> concs;
    for (const std::size_t i : members) {
      for (const int c : roles[i].concs) {
        if (std::find(concs.begin(), concs.end(), c) == concs.end()) concs.push_back(c);
      }
      roles[i].concs.clear();
      roles[i].by = runner;
    }
    roles[runner].concs = std::move(concs);
  }
  return roles;
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
  const EvalPlan& ev = *plan.eval;
  std::vector<eval::EvalStatus> out;
  if (ev.concs.empty()) return out;
  const EvalBatch batch = NothingRan(ev);
  WriteEvalMeta(plan, ev.concs.front(), ev.Batched() ? &batch : nullptr);
  for (const int conc : ev.concs) {
    eval::EvalStatus s = Base(plan, conc);
    s.status = "not_run";
    s.reasons = {reason};
    s.started_utc = IsoUtcNow();
    eval::WriteEvalStatus(ev.dir, s, ev.Batched());
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<eval::EvalStatus> RunRowEvals(const RowPlan& plan, double deadline_s) {
  const EvalPlan& ev = *plan.eval;
  if (ev.concs.empty()) return {};
  if (!ev.not_run.empty()) return RecordEvalsNotRun(plan, ev.not_run);
  const auto deadline = EvalClock::now() + std::chrono::duration_cast<EvalClock::duration>(
                                               std::chrono::duration<double>(std::max(0.0, deadline_s)));
  EvalThresholds thresholds;
  std::string threshold_error;
  try {
    thresholds = ev.thresholds.empty() ? eval::BuiltInThresholds() : LoadEvalThresholds(ev.thresholds);
  } catch (const InputError& e) {
    threshold_error = std::string("the thresholds could not be read: ") + e.what();
  }
  std::vector<eval::EvalStatus> out;
  if (!threshold_error.empty()) {
    const EvalBatch batch = NothingRan(ev);
    WriteEvalMeta(plan, ev.concs.front(), ev.Batched() ? &batch : nullptr);
    for (const int conc : ev.concs) out.push_back(Invalid(plan, conc, threshold_error));
  } else if (ev.in_process && ev.Batched()) {
    if (StopRequested() != 0) return {};
    out = RunBatchInProcess(plan, thresholds, deadline);
  } else if (ev.in_process) {
    if (StopRequested() != 0) return {};
    out.push_back(RunOneInProcess(plan, ev.concs.front(), thresholds, deadline));
  } else {
    for (const int conc : ev.concs) {
      eval::EvalStatus s = eval::JudgeEvalFolder(ev.dir, thresholds, ev.model_prefix, ev.BatchedConc(conc));
      s.concurrency = conc;
      if (s.results_file.empty() && s.reasons.size() == 1 && s.reasons[0].rfind("no results file", 0) == 0) {
        s.reasons = {"the launcher left no eval results" +
                     (ev.Batched() ? " for concurrency " + std::to_string(conc) : std::string()) + " in " + ev.dir +
                     " (its script must call run_eval from benchmark_lib.sh when RUN_EVAL=true)"};
      }
      out.push_back(std::move(s));
    }
    // A launcher that left no meta_env.json: the row's, so that the folder still says what the
    // evals were of (and, batched, that none finished).
    std::error_code ec;
    if (!fs::exists(fs::path(ev.dir) / "meta_env.json", ec)) {
      EvalBatch none = NothingRan(ev);
      none.failed = none.concs;
      WriteEvalMeta(plan, ev.concs.front(), ev.Batched() ? &none : nullptr);
    }
  }
  for (eval::EvalStatus& s : out) {
    s.task = s.task.empty() ? ev.task : s.task;
    s.result_filename = plan.result_filename;
    s.server = ev.server;
    if (s.started_utc.empty()) s.started_utc = IsoUtcNow();
    eval::WriteEvalStatus(ev.dir, s, ev.Batched());
  }
  return out;
}

bool EvalsComplete(const RowPlan& plan) {
  for (const int conc : plan.eval->concs) {
    const auto s = eval::ReadEvalStatus(plan.eval->dir, plan.eval->BatchedConc(conc));
    if (!s) return false;
    const bool fine =
        (s->status == "scored" && s->passed == true) || (s->status == "not_run" && !plan.eval->not_run.empty());
    if (!fine) return false;
  }
  return true;
}

std::string EvalBatchNote(const RowPlan& plan) {
  if (!plan.eval) return {};
  const EvalPlan& ev = *plan.eval;
  const auto list = [](const std::vector<int>& concs) {
    std::string out;
    for (const int c : concs) out += (out.empty() ? "" : " ") + std::to_string(c);
    return out;
  };
  if (!ev.RunsHere()) {
    return "eval at conc " + list(ev.own_concs) + " in the batch of " + ev.batched_with + ", on that row's server";
  }
  if (ev.Batched()) return "evals at conc " + list(ev.concs) + " on this row's server";
  return {};
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
