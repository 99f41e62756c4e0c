// GET /api/v1/reliability and /api/v1/attempts[/ID]: how often rows succeed, per GPU and per runner
// label over the windows InferenceX's reliability view uses (3, 7, 30 and 90 days and all time), each
// failure class counted and each failure listed with a link to its attempt.
//
// A row attempt succeeded when it gave a point its run judged VALID (or that carries no verdict).
// The rate is succeeded / attempts that ran: skipped attempts ran nothing and are counted apart;
// INVALID points, failures and attempts the host spoiled (retried) are not successes.
#include <algorithm>
#include <array>
#include <chrono>
#include <ctime>
#include <map>
#include <set>

#include "dashboard/api_detail_routes.hpp"
#include "dashboard/api_routes.hpp"

namespace infermark::dashboard::routes {
namespace {

using results::AttemptOutcome;
using results::FailureClass;

struct Window {
  const char* key;  // `3d`, …, `all`
  int days;         // 0: all time
};

constexpr Window kWindows[] = {{"3d", 3}, {"7d", 7}, {"30d", 30}, {"90d", 90}, {"all", 0}};

constexpr FailureClass kClasses[] = {FailureClass::kStartup,    FailureClass::kReadiness, FailureClass::kClientError,
                                     FailureClass::kServerExit, FailureClass::kTimeout,   FailureClass::kKilled,
                                     FailureClass::kStore};

std::string IsoUtc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// The end of the windows: the end of day `at` (UTC), else now.
std::time_t WindowsEnd(const Query& query) {
  if (const std::optional<std::string> at = query.Single("at")) {
    const std::string date = ParseDate("at", *at);
    std::tm tm{};
    if (strptime((date + "T23:59:59").c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr)
      throw QueryError("at", "'" + *at + "' is not a date YYYY-MM-DD");
    return timegm(&tm);
  }
  return std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
}

// Counts of one group over one window.
struct Tally {
  long long ran = 0;
  long long completed = 0;
  long long invalid = 0;
  long long failed = 0;
  long long retried = 0;
  long long skipped = 0;
  std::map<FailureClass, long long> classes;

  void Add(const results::RowAttempt& a) {
    switch (a.outcome) {
      case AttemptOutcome::kSkipped:
        ++skipped;
        return;
      case AttemptOutcome::kCompleted:
        ++completed;
        break;
      case AttemptOutcome::kInvalid:
        ++invalid;
        break;
      case AttemptOutcome::kFailed:
        ++failed;
        ++classes[a.failure];
        break;
      case AttemptOutcome::kRetried:
        ++retried;
        break;
    }
    ++ran;
  }

  Json ToJson() const {
    Json c = Json::object();
    for (FailureClass f : kClasses) {
      const auto it = classes.find(f);
      c[results::FailureClassName(f)] = it == classes.end() ? 0 : it->second;
    }
    Json j = Json::object();
    j["attempts"] = ran;
    j["succeeded"] = completed;
    j["rate"] = ran > 0 ? Json(static_cast<double>(completed) / static_cast<double>(ran)) : Json(nullptr);
    j["invalid"] = invalid;
    j["failed"] = failed;
    j["retried"] = retried;
    j["skipped"] = skipped;
    j["classes"] = std::move(c);
    return j;
  }
};

// What an attempt filter selects: run, hardware, runner label, outcome, class.
struct AttemptFilter {
  std::vector<std::int64_t> runs;
  std::vector<std::string> hardware;
  std::vector<std::string> runners;
  std::vector<std::string> outcomes;
  std::vector<std::string> classes;

  static AttemptFilter Parse(const Snapshot& snapshot, const Query& query) {
    AttemptFilter f;
    for (const std::string& ref : query.List("run")) {
      const RunRow* run = snapshot.FindRun(ref);
      if (run == nullptr) throw QueryError("run", "no run '" + ref + "' (give a run id or key)");
      f.runs.push_back(run->id);
    }
    f.hardware = query.List("hardware");
    f.runners = query.List("runner");
    f.outcomes = query.List("outcome");
    for (const std::string& o : f.outcomes) {
      if (!results::ParseAttemptOutcome(o))
        throw QueryError("outcome", "'" + o + "' is not completed, invalid, failed, retried or skipped");
    }
    f.classes = query.List("class");
    for (const std::string& c : f.classes) {
      if (c.empty() || !results::ParseFailureClass(c))
        throw QueryError("class",
                         "'" + c + "' is not startup, readiness, client_error, server_exit, timeout, killed or store");
    }
    return f;
  }

  bool Matches(const DashboardAttempt& d) const {
    const results::RowAttempt& a = d.attempt;
    const auto allowed = [](const std::vector<std::string>& wanted, const std::string& v) {
      return wanted.empty() || std::find(wanted.begin(), wanted.end(), v) != wanted.end();
    };
    return (runs.empty() || std::find(runs.begin(), runs.end(), a.run_id) != runs.end()) && allowed(hardware, a.hw) &&
           allowed(runners, a.runner_label) && allowed(outcomes, results::AttemptOutcomeName(a.outcome)) &&
           allowed(classes, results::FailureClassName(a.failure));
  }
};

long long Limit(const Query& query, long long fallback, long long most) {
  const std::optional<std::string> text = query.Single("limit");
  if (!text) return fallback;
  const long long n = ParseCount("limit", *text);
  if (n < 1 || n > most) throw QueryError("limit", "must be between 1 and " + std::to_string(most));
  return n;
}

}  // namespace

Json AttemptJson(const DashboardAttempt& d) {
  const results::RowAttempt& a = d.attempt;
  Json j = Json::object();
  j["id"] = a.id;
  j["run_id"] = a.run_id;
  j["run_key"] = a.run_key;
  j["run_label"] = d.run_label;
  j["result_filename"] = a.result_filename;
  j["attempt"] = a.attempt;
  j["outcome"] = results::AttemptOutcomeName(a.outcome);
  j["failure_class"] = a.failure == FailureClass::kNone ? Json(nullptr) : Json(results::FailureClassName(a.failure));
  j["row_status"] = a.row_status;
  j["reason"] = a.reason;
  j["runner_label"] = a.runner_label;
  j["hardware"] = a.hw;
  j["executor"] = a.executor;
  j["target"] = a.target;
  j["host"] = a.host;
  j["model"] = a.model;
  j["framework"] = a.framework;
  j["precision"] = a.precision;
  j["isl"] = a.isl;
  j["osl"] = a.osl;
  j["conc"] = a.conc;
  j["config_key"] = a.config_key;
  j["started_at"] = a.started_at;
  j["duration_s"] = a.duration_s ? Json(*a.duration_s) : Json(nullptr);
  j["point_id"] = d.point_id ? Json(*d.point_id) : Json(nullptr);
  j["point_url"] = d.point_id ? Json("/point/" + std::to_string(*d.point_id)) : Json(nullptr);
  j["url"] = "/reliability?attempt=" + std::to_string(a.id);
  j["api_url"] = "/api/v1/attempts/" + std::to_string(a.id);
  return j;
}

ApiReply Reliability(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown({"token", "run", "hardware", "runner", "at", "limit"});
  const AttemptFilter filter = AttemptFilter::Parse(snapshot, query);
  const long long limit = Limit(query, 100, 10000);
  const std::time_t end = WindowsEnd(query);
  const std::string now = IsoUtc(end);
  std::vector<std::string> since;
  Json windows = Json::array();
  for (const Window& w : kWindows) {
    since.push_back(w.days > 0 ? IsoUtc(end - static_cast<std::time_t>(w.days) * 86400) : "");
    windows.push_back({{"key", w.key},
                       {"days", w.days > 0 ? Json(w.days) : Json(nullptr)},
                       {"since", w.days > 0 ? Json(since.back()) : Json(nullptr)}});
  }
  constexpr std::size_t kWindowCount = std::size(kWindows);
  using Tallies = std::array<Tally, kWindowCount>;
  std::map<std::string, Tallies> by_gpu;
  std::map<std::string, Tallies> by_runner;
  Tallies total;
  std::vector<const DashboardAttempt*> failures;
  for (const DashboardAttempt& d : snapshot.attempts) {
    const results::RowAttempt& a = d.attempt;
    if (!filter.Matches(d) || a.started_at > now) continue;
    Tallies& gpu = by_gpu[a.hw];
    Tallies& runner = by_runner[a.runner_label];
    for (std::size_t w = 0; w < kWindowCount; ++w) {
      if (!since[w].empty() && a.started_at < since[w]) continue;
      gpu[w].Add(a);
      runner[w].Add(a);
      total[w].Add(a);
    }
    if (a.outcome == AttemptOutcome::kFailed || a.outcome == AttemptOutcome::kInvalid ||
        a.outcome == AttemptOutcome::kRetried)
      failures.push_back(&d);
  }
  const auto tallies = [](const Tallies& t) {
    Json j = Json::object();
    for (std::size_t w = 0; w < kWindowCount; ++w) j[kWindows[w].key] = t[w].ToJson();
    return j;
  };
  Json gpus = Json::array();
  for (const auto& [hw, t] : by_gpu) gpus.push_back({{"hardware", hw}, {"windows", tallies(t)}});
  Json runners = Json::array();
  for (const auto& [label, t] : by_runner) runners.push_back({{"runner_label", label}, {"windows", tallies(t)}});
  // Newest first: what went wrong lately is what a person looks for.
  std::stable_sort(failures.begin(), failures.end(), [](const DashboardAttempt* a, const DashboardAttempt* b) {
    return a->attempt.started_at > b->attempt.started_at;
  });
  Json listed = Json::array();
  for (std::size_t i = 0; i < failures.size() && static_cast<long long>(i) < limit; ++i)
    listed.push_back(AttemptJson(*failures[i]));
  Json classes = Json::array();
  for (FailureClass f : kClasses) classes.push_back(results::FailureClassName(f));
  Json body = Json::object();
  body["now"] = now;
  body["windows"] = std::move(windows);
  body["failure_classes"] = std::move(classes);
  body["total"] = tallies(total);
  body["by_gpu"] = std::move(gpus);
  body["by_runner"] = std::move(runners);
  body["failures_total"] = failures.size();
  body["failures"] = std::move(listed);
  return JsonReply(body);
}

ApiReply Attempts(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown({"token", "run", "hardware", "runner", "outcome", "class", "offset", "limit"});
  const AttemptFilter filter = AttemptFilter::Parse(snapshot, query);
  const long long limit = Limit(query, 500, 10000);
  const long long offset = query.Single("offset") ? ParseCount("offset", *query.Single("offset")) : 0;
  Json list = Json::array();
  long long matched = 0;
  // Newest first.
  for (auto it = snapshot.attempts.rbegin(); it != snapshot.attempts.rend(); ++it) {
    if (!filter.Matches(*it)) continue;
    if (matched >= offset && matched < offset + limit) list.push_back(AttemptJson(*it));
    ++matched;
  }
  return JsonReply(Json{{"count", list.size()}, {"total", matched}, {"attempts", std::move(list)}});
}

ApiReply Attempt(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query) {
  query.RequireKnown({"token"});
  const auto found = std::find_if(snapshot.attempts.begin(), snapshot.attempts.end(),
                                  [&](const DashboardAttempt& d) { return d.attempt.id == id; });
  if (found == snapshot.attempts.end() || !sources.with_store) {
    return ErrorReply(404, "", "no row attempt " + std::to_string(id));
  }
  std::optional<results::RowAttempt> full;
  sources.with_store([&](results::ResultStore& store) { full = store.FindAttempt(id); });
  Json j = AttemptJson(*found);
  Json result = nullptr;
  if (full && !full->result_json.empty()) {
    result = Json::parse(full->result_json, nullptr, false);
    if (result.is_discarded()) result = nullptr;
  }
  j["result"] = std::move(result);
  j["client_log_tail"] = full ? full->client_log_tail : "";
  j["server_log_tail"] = full ? full->server_log_tail : "";
  // The row's other attempts in its run, oldest first.
  Json row = Json::array();
  for (const DashboardAttempt& d : snapshot.attempts) {
    if (d.attempt.run_id == found->attempt.run_id && d.attempt.result_filename == found->attempt.result_filename)
      row.push_back({{"id", d.attempt.id},
                     {"attempt", d.attempt.attempt},
                     {"outcome", results::AttemptOutcomeName(d.attempt.outcome)},
                     {"started_at", d.attempt.started_at},
                     {"url", "/reliability?attempt=" + std::to_string(d.attempt.id)}});
  }
  j["row_attempts"] = std::move(row);
  return JsonReply(j);
}

}  // namespace infermark::dashboard::routes
