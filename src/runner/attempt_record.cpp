#include "runner/attempt_record.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "results/point_details.hpp"
#include "results/runner_label.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

bool Has(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

const char* TargetText(TargetKind kind) {
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

results::AttemptOutcome OutcomeOf(RowStatus status, bool retried) {
  if (retried) return results::AttemptOutcome::kRetried;
  switch (status) {
    case RowStatus::kDone:
      return results::AttemptOutcome::kCompleted;
    case RowStatus::kInvalid:
      return results::AttemptOutcome::kInvalid;
    case RowStatus::kSkipped:
      return results::AttemptOutcome::kSkipped;
    case RowStatus::kEvalFailed:
      // The point was kept; its eval failed. Whether the point itself is VALID is the reliability
      // question, answered from the reason (an INVALID point's reason opens with the verdict).
      return results::AttemptOutcome::kCompleted;
    case RowStatus::kFailed:
    case RowStatus::kInterrupted:
      return results::AttemptOutcome::kFailed;
  }
  return results::AttemptOutcome::kFailed;
}

std::string Text(const Json& doc, const char* key) {
  const auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

long long Integer(const Json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end()) return 0;
  if (it->is_number()) return it->get<long long>();
  if (it->is_array() && !it->empty() && it->front().is_number()) return it->front().get<long long>();
  return 0;
}

// The row's own fields, from the row as generated.
void FillFromRaw(results::RowAttempt& a, const Json& raw) {
  if (!raw.is_object()) return;
  a.runner_label = Text(raw, "runner");
  a.hw = results::HardwareOfLabel(a.runner_label);
  a.model = Text(raw, "model");
  a.framework = Text(raw, "framework");
  a.precision = Text(raw, "precision");
  a.isl = Integer(raw, "isl");
  a.osl = Integer(raw, "osl");
  a.conc = Integer(raw, "conc");
  a.config_key = Text(raw, "exp-name");
}

// The newest client log of a row's log folder.
std::string ClientLogIn(const fs::path& dir) {
  if (fs::exists(dir / "client.log")) return (dir / "client.log").string();
  std::string found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("client_conc", 0) == 0 && e.path().extension() == ".log" &&
        (found.empty() || name > fs::path(found).filename().string()))
      found = e.path().string();
  }
  return found;
}

std::string ServerLogIn(const fs::path& dir) {
  for (const char* name : {"server.log", "launcher.log", "router.log"}) {
    if (fs::exists(dir / name)) return (dir / name).string();
  }
  return "";
}

std::string ReadIfThere(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !fs::is_regular_file(path, ec)) return "";
  try {
    return ReadFile(path);
  } catch (const std::exception&) {
    return "";
  }
}

// The end time of a state's `finished_at` minus `seconds`, as ISO 8601 UTC ("" when unreadable).
std::string StartOf(const std::string& finished_at, double seconds) {
  std::tm tm{};
  if (finished_at.size() < 19 || strptime(finished_at.substr(0, 19).c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr)
    return finished_at;
  const std::time_t end = timegm(&tm);
  const std::time_t start = end - static_cast<std::time_t>(seconds + 0.5);
  std::tm out{};
  gmtime_r(&start, &out);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &out);
  return text;
}

// When the row ended: its state's `finished_at`, or for a state that has none (written before states
// kept it) when the state file was last written.
std::string FinishedAt(const Json& state, const std::string& state_path) {
  if (std::string finished = Text(state, "finished_at"); !finished.empty()) return finished;
  std::error_code ec;
  const auto written = fs::last_write_time(state_path, ec);
  if (ec) return "";
  const std::time_t end = std::chrono::system_clock::to_time_t(std::chrono::file_clock::to_sys(written));
  std::tm out{};
  gmtime_r(&end, &out);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &out);
  return text;
}

}  // namespace

results::FailureClass ClassifyFailure(RowStatus status, const std::string& reason, bool was_ready) {
  using results::FailureClass;
  if (status == RowStatus::kInterrupted) return FailureClass::kKilled;
  if (status != RowStatus::kFailed) return FailureClass::kNone;
  if (reason.rfind("storing the result failed", 0) == 0) return FailureClass::kStore;
  if (Has(reason, "row timeout") || (Has(reason, "slurm job") && Has(reason, "TIMEOUT"))) return FailureClass::kTimeout;
  if (Has(reason, "interrupted by signal")) return FailureClass::kKilled;
  if (Has(reason, "not ready after") || Has(reason, "start-up timeout")) return FailureClass::kReadiness;
  if (Has(reason, "slurm job") && (Has(reason, "CANCELLED") || Has(reason, "PREEMPTED") || Has(reason, "NODE_FAIL") ||
                                   Has(reason, "OUT_OF_MEMORY")))
    return FailureClass::kKilled;
  const bool signalled = Has(reason, "was killed by signal");
  // "client … without a result", a launcher's run that wrote nothing: the load did not finish.
  if (reason.rfind("client ", 0) == 0 || Has(reason, "without a result") || Has(reason, "without writing") ||
      Has(reason, "wrote no") || Has(reason, "eval-only run"))
    return signalled ? FailureClass::kKilled : FailureClass::kClientError;
  // A server (or worker, or router) that ended while the client ran.
  if (Has(reason, "during the load") || Has(reason, "during a point"))
    return signalled ? FailureClass::kKilled : FailureClass::kServerExit;
  if (Has(reason, "before the server was ready") || Has(reason, "before the deployment was ready") ||
      Has(reason, "sbatch failed") || reason.rfind("server ", 0) == 0)
    return signalled ? FailureClass::kKilled : FailureClass::kStartup;
  return was_ready ? FailureClass::kClientError : FailureClass::kStartup;
}

results::RowAttempt MakeAttempt(const matrix::MatrixRow& row, const RowPlan& plan, const AttemptEnd& end) {
  results::RowAttempt a;
  a.result_filename = end.result_filename.empty() ? plan.result_filename : end.result_filename;
  a.attempt = end.attempt;
  a.outcome = OutcomeOf(end.status, end.retried);
  a.failure = a.outcome == results::AttemptOutcome::kFailed ? ClassifyFailure(end.status, end.reason, end.ready_s > 0)
                                                            : results::FailureClass::kNone;
  // An eval-failed row whose point is INVALID says so first ("run judged INVALID…; eval failed…").
  if (end.status == RowStatus::kEvalFailed && Has(end.reason, "INVALID")) a.outcome = results::AttemptOutcome::kInvalid;
  a.row_status = StatusName(end.status);
  a.reason = end.reason;
  FillFromRaw(a, row.raw);
  if (end.conc > 0) a.conc = end.conc;
  a.runner_label = plan.label;
  a.hw = results::HardwareOfLabel(plan.label);
  a.executor = plan.executor == ExecutorKind::kSlurm || std::getenv("SLURM_JOB_ID") != nullptr ? "slurm" : "local";
  a.target = TargetText(plan.kind);
  a.host = EnvValue(plan.env, "RUNNER_NAME");
  a.started_at = end.started_at;
  a.duration_s = end.seconds;
  if (a.outcome == results::AttemptOutcome::kFailed || a.outcome == results::AttemptOutcome::kRetried) {
    a.result_json = ReadIfThere(end.result_path);
    if (!end.client_log.empty()) a.client_log_tail = results::FileTail(end.client_log);
    const std::string server_log = ServerLogIn(plan.log_dir);
    if (!server_log.empty()) a.server_log_tail = results::FileTail(server_log);
  }
  return a;
}

results::RowAttempt RecordAttempt(const AttemptSink& sink, std::FILE* progress, const matrix::MatrixRow& row,
                                  const RowPlan& plan, const AttemptEnd& end) {
  results::RowAttempt a = MakeAttempt(row, plan, end);
  if (sink) {
    std::string why;
    try {
      why = sink(a);
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (!why.empty() && progress != nullptr) {
      std::fprintf(progress, "%s: attempt %d not recorded in the store: %s\n", a.result_filename.c_str(), a.attempt,
                   why.c_str());
    }
  }
  a.result_json.clear();
  a.client_log_tail.clear();
  a.server_log_tail.clear();
  return a;
}

Json AttemptStateJson(const results::RowAttempt& a) {
  Json j = Json::object();
  j["attempt"] = a.attempt;
  j["outcome"] = results::AttemptOutcomeName(a.outcome);
  j["failure_class"] = results::FailureClassName(a.failure);
  j["row_status"] = a.row_status;
  j["reason"] = a.reason;
  j["executor"] = a.executor;
  j["target"] = a.target;
  j["host"] = a.host;
  j["started_at"] = a.started_at;
  j["seconds"] = a.duration_s ? Json(*a.duration_s) : Json(nullptr);
  return j;
}

std::vector<results::RowAttempt> AttemptsFromRowState(const std::string& state_path) {
  Json state;
  try {
    state = Json::parse(ReadFile(state_path));
  } catch (const std::exception& e) {
    throw InputError(Diagnostic{{state_path, 0, 0}, "", "", std::string("not a row state: ") + e.what()});
  }
  if (!state.is_object() || !state.contains("status") || !state["status"].is_string()) {
    throw InputError(Diagnostic{{state_path, 1, 1}, "", "status", "a row state names the row's status"});
  }
  const fs::path result_dir = fs::path(state_path).parent_path();
  std::string stem = Text(state, "result_filename");
  if (stem.empty()) {
    stem = fs::path(state_path).filename().string();
    stem.resize(stem.size() - std::string(".row.json").size());
  }
  const fs::path log_dir = result_dir / "logs" / stem;
  results::RowAttempt base;
  base.result_filename = stem;
  FillFromRaw(base, state.value("row", Json()));
  base.executor = Text(state, "executor");
  base.target = Text(state, "target");

  std::vector<results::RowAttempt> out;
  const auto add_texts = [&](results::RowAttempt& a, bool last) {
    if (a.outcome == results::AttemptOutcome::kRetried) {
      const std::string kept = "attempt-" + std::to_string(a.attempt);
      a.result_json = ReadIfThere((log_dir / (kept + ".json")).string());
      a.client_log_tail = results::FileTail((log_dir / (kept + ".client.log")).string());
    } else if (a.outcome == results::AttemptOutcome::kFailed && last) {
      a.client_log_tail = results::FileTail(ClientLogIn(log_dir));
      a.server_log_tail = results::FileTail(ServerLogIn(log_dir));
    }
  };
  const auto attempts = state.find("attempts");
  if (attempts != state.end() && attempts->is_array()) {
    for (std::size_t i = 0; i < attempts->size(); ++i) {
      const Json& j = (*attempts)[i];
      if (!j.is_object()) continue;
      results::RowAttempt a = base;
      a.attempt = static_cast<int>(Integer(j, "attempt"));
      a.outcome = results::ParseAttemptOutcome(Text(j, "outcome")).value_or(results::AttemptOutcome::kFailed);
      a.failure = results::ParseFailureClass(Text(j, "failure_class")).value_or(results::FailureClass::kNone);
      if ((a.outcome == results::AttemptOutcome::kFailed) != (a.failure != results::FailureClass::kNone)) {
        a.failure = a.outcome == results::AttemptOutcome::kFailed ? results::FailureClass::kStartup
                                                                  : results::FailureClass::kNone;
      }
      a.row_status = Text(j, "row_status");
      a.reason = Text(j, "reason");
      if (const std::string e = Text(j, "executor"); !e.empty()) a.executor = e;
      if (const std::string t = Text(j, "target"); !t.empty()) a.target = t;
      a.host = Text(j, "host");
      a.started_at = Text(j, "started_at");
      if (const auto s = j.find("seconds"); s != j.end() && s->is_number()) a.duration_s = s->get<double>();
      if (a.attempt < 1 || a.started_at.empty()) continue;
      add_texts(a, i + 1 == attempts->size());
      out.push_back(std::move(a));
    }
    return out;
  }
  // A state from before states listed their attempts: the row's end, and the attempts it kept.
  const std::string status = Text(state, "status");
  const RowStatus row_status = status == "done"          ? RowStatus::kDone
                               : status == "invalid"     ? RowStatus::kInvalid
                               : status == "eval-failed" ? RowStatus::kEvalFailed
                               : status == "interrupted" ? RowStatus::kInterrupted
                               : status == "skipped"     ? RowStatus::kSkipped
                                                         : RowStatus::kFailed;
  const double seconds = state.value("seconds", 0.0);
  const std::string started = StartOf(FinishedAt(state, state_path), seconds);
  int n = 0;
  if (const auto earlier = state.find("earlier_attempts"); earlier != state.end() && earlier->is_array()) {
    for (const Json& e : *earlier) {
      results::RowAttempt a = base;
      a.attempt = ++n;
      a.outcome = results::AttemptOutcome::kRetried;
      a.row_status = "invalid";
      a.reason = e.is_string() ? e.get<std::string>() : "";
      a.started_at = started;
      add_texts(a, false);
      out.push_back(std::move(a));
    }
  }
  results::RowAttempt last = base;
  last.attempt = ++n;
  last.outcome = OutcomeOf(row_status, false);
  last.row_status = status;
  last.reason = Text(state, "reason");
  if (row_status == RowStatus::kEvalFailed && Has(last.reason, "INVALID"))
    last.outcome = results::AttemptOutcome::kInvalid;
  if (last.outcome == results::AttemptOutcome::kFailed)
    last.failure = ClassifyFailure(row_status, last.reason, state.value("ready_seconds", 0.0) > 0);
  last.started_at = started;
  last.duration_s = seconds;
  add_texts(last, true);
  out.push_back(std::move(last));
  return out;
}

std::vector<results::RowAttempt> AttemptsFromRowStates(const std::vector<std::string>& paths) {
  const auto is_state = [](const fs::path& p) {
    const std::string name = p.filename().string();
    return name.size() > 9 && name.compare(name.size() - 9, 9, ".row.json") == 0;
  };
  std::vector<std::string> states;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && is_state(it->path())) found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      states.insert(states.end(), found.begin(), found.end());
    } else if (is_state(path)) {
      states.push_back(path);
    }
  }
  std::vector<results::RowAttempt> out;
  std::vector<Diagnostic> problems;
  for (const std::string& state : states) {
    try {
      for (auto& a : AttemptsFromRowState(state)) out.push_back(std::move(a));
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  return out;
}

}  // namespace infermark::runner
