// GET /api/v1/evaluations: accuracy evaluations, filtered as points are (several values of one
// filter mean OR, different filters AND), each with the ids of the points of its configuration.
#include <algorithm>
#include <cctype>
#include <set>

#include "dashboard/api_routes.hpp"
#include "report/eval_json.hpp"

namespace infermark::dashboard::routes {
namespace {

const std::set<std::string, std::less<>> kParameters = {"token",     "run",  "model",  "hardware", "framework",
                                                        "precision", "task", "status", "verdict",  "point"};

bool Allowed(const std::vector<std::string>& wanted, const std::string& value) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
}

}  // namespace

ApiReply Evaluations(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown(kParameters);
  std::vector<std::int64_t> runs;
  for (const std::string& ref : query.List("run")) {
    const RunRow* run = snapshot.FindRun(ref);
    if (run == nullptr) throw QueryError("run", "no run '" + ref + "' (give a run id or key)");
    runs.push_back(run->id);
  }
  const std::vector<std::string> statuses = query.List("status");
  for (const std::string& s : statuses) {
    if (!results::ParseEvalStatus(s)) throw QueryError("status", "must be scored, not_run, invalid or incomplete");
  }
  std::vector<std::string> verdicts = query.List("verdict");
  for (std::string& v : verdicts) {
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (v != "PASS" && v != "FAIL" && v != "NO THRESHOLD" && v != "NOT RUN" && v != "INVALID" && v != "INCOMPLETE") {
      throw QueryError("verdict", "must be pass, fail, no threshold, not run, invalid or incomplete");
    }
  }
  std::vector<std::int64_t> points;
  for (const std::string& p : query.List("point")) points.push_back(ParseCount("point", p));
  const std::vector<std::string> model = query.List("model"), hardware = query.List("hardware"),
                                 framework = query.List("framework"), precision = query.List("precision"),
                                 task = query.List("task");
  Json list = Json::array();
  for (const DashboardEvaluation& d : snapshot.evaluations) {
    const results::Evaluation& e = d.evaluation;
    if (!runs.empty() && std::find(runs.begin(), runs.end(), e.run_id) == runs.end()) continue;
    if (!Allowed(model, e.key.model) || !Allowed(hardware, e.key.hw) || !Allowed(framework, e.key.framework) ||
        !Allowed(precision, e.key.precision) || !Allowed(task, e.task) ||
        !Allowed(statuses, results::EvalStatusName(e.status)) || !Allowed(verdicts, e.Verdict())) {
      continue;
    }
    if (!points.empty() && std::none_of(points.begin(), points.end(), [&](std::int64_t p) {
          return std::find(d.point_ids.begin(), d.point_ids.end(), p) != d.point_ids.end();
        })) {
      continue;
    }
    Json j = results::EvaluationToJson(e);
    j["run_label"] = d.run_label;
    j["points"] = d.point_ids;
    list.push_back(std::move(j));
  }
  Json body = Json::object();
  body["count"] = list.size();
  body["evaluations"] = std::move(list);
  return JsonReply(body);
}

}  // namespace infermark::dashboard::routes
