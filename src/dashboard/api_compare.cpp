// Routes that read beyond the snapshot: compare (two runs' processed records through
// `results compare`) and prices (the dated price table).
#include <cmath>

#include "dashboard/api_routes.hpp"
#include "report/compare.hpp"

namespace infermark::dashboard::routes {
namespace {

const RunRow& RequireRun(const Snapshot& snapshot, const Query& query, const char* field) {
  const std::optional<std::string> ref = query.Single(field);
  if (!ref) throw QueryError(field, std::string("give the ") + field + " run (id or key)");
  const RunRow* run = snapshot.FindRun(*ref);
  if (!run) throw QueryError(field, "no run has id or key '" + *ref + "'");
  return *run;
}

Json RunRef(const RunRow& run) {
  return {{"id", run.id}, {"key", run.key}, {"label", run.label}};
}

}  // namespace

ApiReply Compare(const Snapshot& snapshot, const ApiSources& sources, const Query& query) {
  query.RequireKnown({"base", "head", "token"});
  const RunRow& base = RequireRun(snapshot, query, "base");
  const RunRow& head = RequireRun(snapshot, query, "head");
  const results::CompareOptions options;
  std::vector<results::Point> base_points;
  std::vector<results::Point> head_points;
  if (sources.run_points) {
    base_points = sources.run_points(base.id);
    head_points = sources.run_points(head.id);
  }
  const results::Comparison c = results::CompareRuns(base_points, head_points, options);
  Json rows = Json::array();
  for (const results::PointComparison& pc : c.points) {
    for (const results::MetricDelta& d : pc.deltas) {
      rows.push_back({{"key", pc.key.Canonical()},
                      {"metric", d.metric},
                      {"unit", d.unit},
                      {"base", d.baseline},
                      {"head", d.candidate},
                      {"change_pct", d.change * 100},
                      {"regression", d.regression}});
    }
  }
  for (const results::FrontierSample& s : c.frontier) {
    rows.push_back(
        {{"key", s.scenario + " " + s.group + " @ " + std::to_string(std::lround(s.interactivity)) + " tok/s/user"},
         {"metric", "frontier tput_per_gpu"},
         {"unit", "tok/s/GPU"},
         {"base", s.baseline},
         {"head", s.candidate},
         {"change_pct", s.change * 100},
         {"regression", s.regression}});
  }
  Json body = Json::object();
  body["base"] = RunRef(base);
  body["head"] = RunRef(head);
  body["threshold_pct"] = options.threshold * 100;
  body["rows"] = rows;
  body["only_base"] = c.only_baseline;
  body["only_head"] = c.only_candidate;
  body["point_regressions"] = c.point_regressions;
  body["frontier_regressions"] = c.frontier_regressions;
  return JsonReply(body);
}

ApiReply Prices(const ApiSources& sources, const Query& query) {
  query.RequireKnown({"token"});
  return JsonReply(sources.prices ? sources.prices() : Json{{"prices", Json::array()}});
}

}  // namespace infermark::dashboard::routes
