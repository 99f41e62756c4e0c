// Routes over series' frontiers: frontier, iso (iso-interactivity tables) and history (iso values
// per run date with regressions flagged by `results compare`'s threshold).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "dashboard/api_routes.hpp"
#include "dashboard/point_filter.hpp"
#include "report/compare.hpp"
#include "report/iso_interactivity.hpp"
#include "report/pareto.hpp"

namespace infermark::dashboard::routes {
namespace {

struct YMetric {
  const char* key;
  bool higher_is_better;
};

constexpr YMetric kYMetrics[] = {{"tput_per_gpu", true},
                                 {"input_tput_per_gpu", true},
                                 {"output_tput_per_gpu", true},
                                 {"j_per_token", false},
                                 {"cost_per_m_tokens", false}};

YMetric ParseY(const Query& query) {
  const std::string y = query.Single("y").value_or("tput_per_gpu");
  for (const YMetric& m : kYMetrics) {
    if (y == m.key) return m;
  }
  throw QueryError("y", "'" + y +
                            "' is not one of tput_per_gpu, input_tput_per_gpu, output_tput_per_gpu, j_per_token, "
                            "cost_per_m_tokens");
}

std::optional<double> YOf(const DashboardPoint& p, const YMetric& y) {
  const std::string_view key = y.key;
  if (key == "tput_per_gpu") return p.tput_per_gpu;
  if (key == "input_tput_per_gpu") return p.input_tput_per_gpu;
  if (key == "output_tput_per_gpu") return p.output_tput_per_gpu;
  if (key == "j_per_token") return p.j_per_token;
  return p.cost_per_m_tokens;
}

std::set<std::string, std::less<>> Allowed(std::initializer_list<const char*> extra) {
  std::set<std::string, std::less<>> names = FilterParameters();
  for (const char* name : extra) names.insert(name);
  return names;
}

std::vector<double> Targets(const Query& query) {
  std::vector<double> targets;
  for (const std::string& v : query.List("interactivity")) {
    const double t = ParseNumber("interactivity", v);
    if (t <= 0) throw QueryError("interactivity", "'" + v + "' is not a positive interactivity (tok/s/user)");
    targets.push_back(t);
  }
  if (targets.empty()) throw QueryError("interactivity", "give at least one target interactivity (tok/s/user)");
  return targets;
}

// The matching points grouped by series (series in name order, points in snapshot order). A point
// its run judged INVALID never enters a frontier, an iso value or a history entry, whatever the
// filters say (as in the report): it must not pass for a figure or flag a regression.
std::map<std::string, std::vector<const DashboardPoint*>> BySeries(const Snapshot& snapshot, const PointFilter& f) {
  std::map<std::string, std::vector<const DashboardPoint*>> series;
  for (const DashboardPoint& p : snapshot.points) {
    if (p.valid && f.Matches(p)) series[p.series].push_back(&p);
  }
  return series;
}

// `y` of `points` read on their iso-interactivity frontier at `target` (InferenceX's rule: the
// throughput frontier, then the metric splined, or re-derived for per-token cost and energy).
std::optional<double> IsoValueOf(const std::vector<const DashboardPoint*>& points, const YMetric& y, double target) {
  std::vector<results::ChartPoint> chart;
  std::vector<double> metric;
  std::vector<double> output;
  for (const DashboardPoint* p : points) {
    const std::optional<double> v = YOf(*p, y);
    if (!v || !std::isfinite(*v)) continue;
    chart.push_back({p->interactivity, p->tput_per_gpu, metric.size()});
    metric.push_back(*v);
    output.push_back(p->output_tput_per_gpu);
  }
  const results::IsoFrontier frontier(chart);
  std::optional<results::IsoValue> value;
  const std::string_view key = y.key;
  if (key == "tput_per_gpu") {
    value = frontier.Throughput(target);
  } else if (y.higher_is_better) {
    value = frontier.Metric(metric, target);
  } else {
    value = frontier.Reciprocal(metric, output, target);
  }
  if (!value) return std::nullopt;
  return value->value;
}

}  // namespace

ApiReply Frontier(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown(Allowed({"x", "y"}));
  const PointFilter filter = PointFilter::Parse(query, snapshot);
  const std::string x = query.Single("x").value_or("interactivity");
  const std::vector<std::string>& axes = FrontierAxes();
  if (std::find(axes.begin(), axes.end(), x) == axes.end()) {
    throw QueryError("x", "'" + x + "' is not interactivity, e2el_s or ttft_ms (each also as p90_… or p99_…)");
  }
  const YMetric y = ParseY(query);
  const results::XGoal goal = AxisHigherIsBetter(x) ? results::XGoal::kMaximize : results::XGoal::kMinimize;
  Json series = Json::array();
  for (const auto& [name, points] : BySeries(snapshot, filter)) {
    std::vector<results::ChartPoint> chart;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::optional<double> v = YOf(*points[i], y);
      const std::optional<double> px = AxisValue(*points[i], x);
      if (!v || !std::isfinite(*v) || !px || !std::isfinite(*px)) continue;
      // ParetoFront keeps the higher y: a lower-is-better metric is flipped in and out.
      chart.push_back({*px, y.higher_is_better ? *v : -*v, i});
    }
    if (chart.empty()) continue;
    Json front = Json::array();
    for (const results::ChartPoint& c : results::ParetoFront(chart, goal)) {
      front.push_back({{"x", c.x}, {"y", y.higher_is_better ? c.y : -c.y}, {"id", points[c.index]->id}});
    }
    series.push_back({{"series", name}, {"points", front}});
  }
  return JsonReply(Json{{"series", series}});
}

ApiReply Iso(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown(Allowed({"interactivity", "y"}));
  const PointFilter filter = PointFilter::Parse(query, snapshot);
  const std::vector<double> targets = Targets(query);
  const YMetric y = ParseY(query);
  Json rows = Json::array();
  for (const auto& [name, points] : BySeries(snapshot, filter)) {
    Json values = Json::array();
    for (double t : targets) {
      const std::optional<double> v = IsoValueOf(points, y, t);
      values.push_back({{"interactivity", t}, {"y", v ? Json(*v) : Json(nullptr)}});
    }
    rows.push_back({{"series", name}, {"hardware", points.front()->hardware}, {"values", values}});
  }
  return JsonReply(Json{{"rows", rows}});
}

ApiReply History(const Snapshot& snapshot, const Query& query) {
  query.RequireKnown(Allowed({"interactivity", "y"}));
  const PointFilter filter = PointFilter::Parse(query, snapshot);
  const std::vector<double> targets = Targets(query);
  if (targets.size() != 1) throw QueryError("interactivity", "history takes one target interactivity");
  const double target = targets.front();
  const YMetric y = ParseY(query);
  const double threshold = results::CompareOptions{}.threshold;
  Json out = Json::array();
  for (const auto& [name, points] : BySeries(snapshot, filter)) {
    // One entry per run, dated by its earliest point in the series, in date order.
    std::map<std::int64_t, std::vector<const DashboardPoint*>> by_run;
    for (const DashboardPoint* p : points) by_run[p->run_id].push_back(p);
    std::vector<std::tuple<std::string, std::int64_t, const std::vector<const DashboardPoint*>*>> order;
    for (const auto& [run, run_points] : by_run) {
      std::string date = run_points.front()->date;
      for (const DashboardPoint* p : run_points) date = std::min(date, p->date);
      order.emplace_back(date, run, &run_points);
    }
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    Json dates = Json::array();
    std::optional<double> previous;
    for (const auto& [date, run, run_points] : order) {
      const std::optional<double> v = IsoValueOf(*run_points, y, target);
      Json entry = {{"date", date}, {"run_id", run}, {"y", v ? Json(*v) : Json(nullptr)}};
      bool regression = false;
      Json change = nullptr;
      if (v && previous && *previous != 0) {
        const double c = (*v - *previous) / std::fabs(*previous);
        change = c * 100;
        regression = y.higher_is_better ? c < -threshold : c > threshold;
      }
      entry["regression"] = regression;
      entry["change_pct"] = change;
      dates.push_back(entry);
      if (v) previous = v;
    }
    out.push_back({{"series", name}, {"dates", dates}});
  }
  return JsonReply(Json{{"series", out}});
}

}  // namespace infermark::dashboard::routes
