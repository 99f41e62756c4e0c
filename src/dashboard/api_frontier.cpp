// Routes over series' frontiers: frontier (with a band from the repeats' own frontiers), iso
// (iso-interactivity tables) and history (iso values per run date, a change flagged only when
// `results compare`'s rule finds it outside the noise).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/repeat_stats.hpp"
#include "dashboard/api_routes.hpp"
#include "dashboard/point_filter.hpp"
#include "report/compare.hpp"
#include "report/iso_interactivity.hpp"
#include "report/pareto.hpp"
#include "report/repeat_band.hpp"

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

// A point's repeats of `y` (throughputs only: cost and energy are not repeated figures), or null.
const std::vector<double>* RepeatYOf(const DashboardPoint& p, const YMetric& y) {
  const std::string_view key = y.key;
  const DashboardPoint::Repeats& r = p.repeat_values;
  const std::vector<double>* v = key == "tput_per_gpu"          ? &r.tput_per_gpu
                                 : key == "input_tput_per_gpu"  ? &r.input_tput_per_gpu
                                 : key == "output_tput_per_gpu" ? &r.output_tput_per_gpu
                                                                : nullptr;
  return v != nullptr && v->size() >= 2 ? v : nullptr;
}

// Per repeat k, the points' k-th (x, y) (report/repeat_band.hpp): empty unless every point of the
// series has repeats of both.
std::vector<std::vector<results::ChartPoint>> SeriesRepeatCharts(const std::vector<const DashboardPoint*>& points,
                                                                 const YMetric& y, bool interactivity_axis) {
  std::vector<results::RepeatXY> xy;
  for (const DashboardPoint* p : points) {
    xy.push_back({interactivity_axis ? &p->repeat_values.interactivity : &p->repeat_values.e2el_s, RepeatYOf(*p, y)});
  }
  return results::RepeatCharts(xy);
}

// The model-error band of `y` for a predicted point (none for energy: predictions have no power).
std::optional<results::FigureBand> YBandOf(const DashboardPoint& p, const YMetric& y) {
  const std::string_view key = y.key;
  if (key == "tput_per_gpu") return p.band.tput_per_gpu;
  if (key == "input_tput_per_gpu") return p.band.input_tput_per_gpu;
  if (key == "output_tput_per_gpu") return p.band.output_tput_per_gpu;
  if (key == "cost_per_m_tokens") return p.band.cost_per_m_tokens;
  return std::nullopt;
}

// A frontier's model-error band: each frontier point's optimistic corner (better x and better y
// at their band's edges) and pessimistic corner, in frontier order; null unless every frontier
// point has both bands (a measured frontier has none).
Json FrontierBand(const std::vector<results::ChartPoint>& front, const std::vector<const DashboardPoint*>& points,
                  const YMetric& y, bool interactivity) {
  Json optimistic = Json::array();
  Json pessimistic = Json::array();
  for (const results::ChartPoint& c : front) {
    const DashboardPoint& p = *points[c.index];
    const std::optional<results::FigureBand> xb = interactivity ? p.band.interactivity : p.band.e2el_s;
    const std::optional<results::FigureBand> yb = YBandOf(p, y);
    if (!xb || !yb) return nullptr;
    const double x_good = interactivity ? xb->band_p90 : xb->band_p10;
    const double x_bad = interactivity ? xb->band_p10 : xb->band_p90;
    const double y_good = y.higher_is_better ? yb->band_p90 : yb->band_p10;
    const double y_bad = y.higher_is_better ? yb->band_p10 : yb->band_p90;
    optimistic.push_back({{"x", x_good}, {"y", y_good}});
    pessimistic.push_back({{"x", x_bad}, {"y", y_bad}});
  }
  return Json{{"optimistic", optimistic}, {"pessimistic", pessimistic}};
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
    // The band: the repeats' own frontiers read at each frontier point (their median's interval).
    // (Cost and energy have no repeats: only throughput series get a band.)
    const std::vector<std::vector<results::ChartPoint>> repeat_fronts =
        results::RepeatFronts(SeriesRepeatCharts(points, y, x == "interactivity"), goal);
    Json front = Json::array();
    const std::vector<results::ChartPoint> frontier = results::ParetoFront(chart, goal);  // x ascending
    for (const results::ChartPoint& c : frontier) {
      Json band = nullptr;
      if (const auto m = results::RepeatBandAt(repeat_fronts, c.x)) {
        band = {{"low", m->low}, {"high", m->high}, {"confidence", m->confidence}};
      }
      front.push_back(
          {{"x", c.x}, {"y", y.higher_is_better ? c.y : -c.y}, {"id", points[c.index]->id}, {"band", band}});
    }
    // Per point `band`: the repeats' interval there; the series' `band`: a predicted frontier's
    // model-error band.
    Json entry = {{"series", name}, {"points", front}, {"repeats", repeat_fronts.size()}};
    if (Json band = FrontierBand(frontier, points, y, x == "interactivity"); !band.is_null())
      entry["band"] = std::move(band);
    series.push_back(std::move(entry));
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
  query.RequireKnown(Allowed({"interactivity", "y", "min_effect_pct"}));
  const PointFilter filter = PointFilter::Parse(query, snapshot);
  const std::vector<double> targets = Targets(query);
  if (targets.size() != 1) throw QueryError("interactivity", "history takes one target interactivity");
  const double target = targets.front();
  const YMetric y = ParseY(query);
  results::CompareOptions options;
  if (const auto v = query.Single("min_effect_pct")) {
    const double pct = ParseNumber("min_effect_pct", *v);
    if (!(pct >= 0 && pct < 100)) throw QueryError("min_effect_pct", "must be a percentage in [0, 100)");
    options.rules.min_effect = pct / 100;
  }
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
    // The earlier runs' samples, oldest first: a run is judged against the one before it, with the
    // runs before that as the series' history (results compare's rule, report/change_detection.hpp).
    std::vector<results::ChangeSample> earlier;
    for (const auto& [date, run, run_points] : order) {
      const std::optional<double> v = IsoValueOf(*run_points, y, target);
      Json entry = {{"date", date}, {"run_id", run}, {"y", v ? Json(*v) : Json(nullptr)}};
      results::ChangeSample sample;
      if (v) {
        sample.value = *v;
        // Each repeat's frontier read at the target: the iso value's own noise (the total
        // throughput's; the other metrics are splined over its frontier, which repeats do not give).
        const bool repeated = std::string_view(y.key) == "tput_per_gpu";
        for (const auto& chart :
             repeated ? SeriesRepeatCharts(*run_points, y, true) : std::vector<std::vector<results::ChartPoint>>()) {
          const results::IsoFrontier repeat(chart);
          if (const auto r = repeat.Throughput(target)) sample.repeats.push_back(r->value);
        }
        if (sample.repeats.size() >= 2) {
          const MedianInterval m = MedianWithInterval(sample.repeats, kRepeatConfidenceLevel);
          entry["y_low"] = m.low;
          entry["y_high"] = m.high;
          entry["repeats"] = sample.repeats.size();
        }
      }
      Json change = nullptr;
      std::string status;
      if (v && !earlier.empty() && earlier.back().value != 0) {
        std::vector<double> history;
        for (std::size_t i = earlier.size() > static_cast<std::size_t>(options.history_runs) + 1
                                 ? earlier.size() - static_cast<std::size_t>(options.history_runs) - 1
                                 : 0;
             i + 1 < earlier.size(); ++i) {
          history.push_back(earlier[i].value);
        }
        const results::ChangeEvidence e =
            results::JudgeChange(earlier.back(), sample, history, y.higher_is_better, options.rules);
        change = e.change * 100;
        status = results::ChangeStatusName(e.status);
        entry["test"] = e.test;
        entry["p_value"] = e.p_value ? Json(*e.p_value) : Json(nullptr);
        entry["evidence"] = e.Describe();
      }
      entry["regression"] = status == "regression";
      entry["status"] = status.empty() ? Json(nullptr) : Json(status);
      entry["change_pct"] = change;
      dates.push_back(entry);
      if (v) earlier.push_back(std::move(sample));
    }
    out.push_back({{"series", name}, {"dates", dates}});
  }
  return JsonReply(Json{{"series", out}});
}

}  // namespace infermark::dashboard::routes
