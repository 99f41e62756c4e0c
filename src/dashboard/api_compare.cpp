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

// A compared figure's verdict and the evidence behind it, as the API writes it.
void AddEvidence(Json& row, const results::ChangeEvidence& e) {
  row["status"] = results::ChangeStatusName(e.status);
  row["regression"] = e.status == results::ChangeStatus::kRegression;
  row["test"] = e.test;
  row["p_value"] = e.p_value ? Json(*e.p_value) : Json(nullptr);
  row["p_adjusted"] = e.p_adjusted ? Json(*e.p_adjusted) : Json(nullptr);
  row["tests_in_comparison"] = e.family;
  row["change_low_pct"] = e.low ? Json(*e.low * 100) : Json(nullptr);
  row["change_high_pct"] = e.high ? Json(*e.high * 100) : Json(nullptr);
  row["base_repeats"] = e.baseline_repeats;
  row["head_repeats"] = e.candidate_repeats;
  row["history"] = e.history;
}

ApiReply Compare(const Snapshot& snapshot, const ApiSources& sources, const Query& query) {
  query.RequireKnown({"base", "head", "token", "min_effect_pct", "alpha", "multiple"});
  const RunRow& base = RequireRun(snapshot, query, "base");
  const RunRow& head = RequireRun(snapshot, query, "head");
  results::CompareOptions options;
  if (const auto v = query.Single("min_effect_pct")) {
    const double pct = ParseNumber("min_effect_pct", *v);
    if (!(pct >= 0 && pct < 100)) throw QueryError("min_effect_pct", "must be a percentage in [0, 100)");
    options.rules.min_effect = pct / 100;
  }
  if (const auto v = query.Single("alpha")) {
    options.rules.alpha = ParseNumber("alpha", *v);
    if (!(options.rules.alpha > 0 && options.rules.alpha < 1)) throw QueryError("alpha", "must be in (0, 1)");
  }
  if (const auto v = query.Single("multiple")) {
    if (*v == "bh") {
      options.rules.multiple = results::MultipleTests::kBenjaminiHochberg;
    } else if (*v == "holm") {
      options.rules.multiple = results::MultipleTests::kHolm;
    } else if (*v == "none") {
      options.rules.multiple = results::MultipleTests::kNone;
    } else {
      throw QueryError("multiple", "must be bh, holm or none");
    }
  }
  std::vector<results::Point> base_points;
  std::vector<results::Point> head_points;
  // The series' history for points without repeats: the runs before the base (the head aside).
  std::vector<std::vector<results::Point>> history;
  if (sources.run_points) {
    base_points = sources.run_points(base.id);
    head_points = sources.run_points(head.id);
    std::vector<std::int64_t> earlier;
    for (const RunRow& r : snapshot.runs) {
      if (r.id < base.id && r.id != head.id) earlier.push_back(r.id);
    }
    const std::size_t keep = static_cast<std::size_t>(options.history_runs);
    for (std::size_t i = earlier.size() > keep ? earlier.size() - keep : 0; i < earlier.size(); ++i) {
      history.push_back(sources.run_points(earlier[i]));
    }
  }
  const results::Comparison c = results::CompareRuns(base_points, head_points, options, history);
  Json rows = Json::array();
  for (const results::PointComparison& pc : c.points) {
    for (const results::MetricDelta& d : pc.deltas) {
      Json row = {{"key", pc.key.Canonical()}, {"metric", d.metric},  {"unit", d.unit},
                  {"base", d.baseline},        {"head", d.candidate}, {"change_pct", d.change * 100}};
      AddEvidence(row, d.evidence);
      rows.push_back(std::move(row));
    }
  }
  for (const results::FrontierSample& s : c.frontier) {
    Json row = {
        {"key", s.scenario + " " + s.group + " @ " + std::to_string(std::lround(s.interactivity)) + " tok/s/user"},
        {"metric", "frontier tput_per_gpu"},
        {"unit", "tok/s/GPU"},
        {"base", s.baseline},
        {"head", s.candidate},
        {"change_pct", s.change * 100}};
    AddEvidence(row, s.evidence);
    rows.push_back(std::move(row));
  }
  Json body = Json::object();
  body["base"] = RunRef(base);
  body["head"] = RunRef(head);
  body["min_effect_pct"] = options.rules.min_effect * 100;
  body["alpha"] = options.rules.alpha;
  body["multiple"] = options.rules.multiple == results::MultipleTests::kBenjaminiHochberg ? "bh"
                     : options.rules.multiple == results::MultipleTests::kHolm            ? "holm"
                                                                                          : "none";
  body["rows"] = rows;
  body["only_base"] = c.only_baseline;
  body["only_head"] = c.only_candidate;
  body["point_regressions"] = c.point_regressions;
  body["frontier_regressions"] = c.frontier_regressions;
  body["improvements"] = c.improvements;
  body["inconclusive"] = c.inconclusive;
  return JsonReply(body);
}

ApiReply Prices(const ApiSources& sources, const Query& query) {
  query.RequireKnown({"token"});
  return JsonReply(sources.prices ? sources.prices() : Json{{"prices", Json::array()}});
}

}  // namespace infermark::dashboard::routes
