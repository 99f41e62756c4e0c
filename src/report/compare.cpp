#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <span>

#include "core/diagnostic.hpp"
#include "report/pareto.hpp"
#include "report/repeat_band.hpp"
#include "results/multinode_fields.hpp"
#include "results/repeat_record.hpp"

namespace infermark::results {
namespace {

struct MetricSpec {
  const char* name;  // also the agg record's key, where a repeated point keeps its repeats
  const char* unit;
  bool higher_is_better;
  double PointMetrics::*field;
};

constexpr MetricSpec kMetrics[] = {
    {"tput_per_gpu", "tok/s/GPU", true, &PointMetrics::tput_per_gpu},
    {"median_intvty", "tok/s/user", true, &PointMetrics::median_intvty},
    {"median_ttft", "s", false, &PointMetrics::median_ttft},
    {"p99_ttft", "s", false, &PointMetrics::p99_ttft},
    {"median_e2el", "s", false, &PointMetrics::median_e2el},
};

// Agentic points have no P99 and two interactivities of their own.
constexpr MetricSpec kAgenticMetrics[] = {
    {"tput_per_gpu", "tok/s/GPU", true, &PointMetrics::tput_per_gpu},
    {"median_e2e_norm_intvty", "tok/s/user", true, &PointMetrics::median_e2e_norm_intvty},
    {"median_full_response_intvty", "tok/s/user", true, &PointMetrics::median_full_response_intvty},
    {"median_ttft", "s", false, &PointMetrics::median_ttft},
    {"p90_ttft", "s", false, &PointMetrics::p90_ttft},
    {"median_e2el", "s", false, &PointMetrics::median_e2el},
};

std::string FixedDigits(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string SignedPercent(double change) {
  return (change >= 0 ? "+" : "") + FixedDigits(change * 100, 1) + "%";
}

std::string Pad(std::string s, std::size_t width) {
  s.append(s.size() < width ? width - s.size() : 1, ' ');
  return s;
}

// A figure of a point as compared: its value and, for a repeated point, every repeat's.
ChangeSample SampleOf(const Point& point, const PointMetrics& metrics, const MetricSpec& spec) {
  ChangeSample s;
  s.value = metrics.*spec.field;
  if (const auto figure = DeScaledRepeatFigure(point, spec.name)) s.repeats = figure->values;
  return s;
}

void Count(Comparison& c, const ChangeEvidence& e) {
  c.improvements += e.status == ChangeStatus::kImprovement ? 1 : 0;
  c.inconclusive += e.status == ChangeStatus::kInconclusive ? 1 : 0;
}

// One run's frontiers per (scenario, series): the median points' front, and when every point of a
// curve was repeated, one front per repeat (report/repeat_band.hpp), for the frontier's own noise.
struct Fronts {
  std::vector<ChartPoint> median;
  std::vector<std::vector<ChartPoint>> repeats;
};
using Curves = std::map<std::pair<std::string, std::string>, Fronts>;

Curves CollectFronts(const std::vector<Point>& points, std::set<std::string>& agentic_scenarios) {
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<RepeatFigure, RepeatFigure>>> figures;
  std::map<std::pair<std::string, std::string>, bool> all_repeated;
  Curves curves;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const PointMetrics m = DeScaled(p);
    const double x = DefaultInteractivity(p, m);
    if (x <= 0 || m.tput_per_gpu <= 0) continue;
    if (p.key.Agentic()) agentic_scenarios.insert(p.key.Scenario());
    const std::pair<std::string, std::string> curve{p.key.Scenario(), SeriesGroup(p)};
    curves[curve].median.push_back({x, m.tput_per_gpu, i});
    const auto rx = DeScaledRepeatFigure(p, p.key.Agentic() ? "median_e2e_norm_intvty" : "median_intvty");
    const auto ry = DeScaledRepeatFigure(p, "tput_per_gpu");
    const auto [it, added] = all_repeated.emplace(curve, true);
    if (rx && ry) {
      figures[curve].emplace_back(*rx, *ry);
    } else {
      it->second = false;
    }
  }
  for (auto& [curve, fronts] : curves) {
    fronts.median = ParetoFront(fronts.median, XGoal::kMaximize);
    if (!all_repeated[curve]) continue;
    std::vector<RepeatXY> xy;
    for (const auto& [x, y] : figures[curve]) xy.push_back({&x.values, &y.values});
    fronts.repeats = RepeatFronts(RepeatCharts(xy), XGoal::kMaximize);
  }
  return curves;
}

}  // namespace

Comparison CompareRuns(const std::vector<Point>& baseline, const std::vector<Point>& candidate,
                       const CompareOptions& options, const std::vector<std::vector<Point>>& history) {
  Comparison out;
  std::map<std::string, const Point*> base_by_key;
  std::map<std::string, const Point*> cand_by_key;
  for (const Point& p : baseline) base_by_key[p.key.Canonical()] = &p;
  for (const Point& p : candidate) cand_by_key[p.key.Canonical()] = &p;
  // The lookback: the last history_runs runs before the baseline, oldest first.
  const std::size_t first_run = history.size() > static_cast<std::size_t>(std::max(0, options.history_runs))
                                    ? history.size() - static_cast<std::size_t>(std::max(0, options.history_runs))
                                    : 0;
  // A measured series is never judged against predictions, nor the other way round.
  std::set<PointKind> kinds;
  for (const Point& p : baseline) kinds.insert(p.provenance.kind);
  std::vector<std::vector<Point>> lookback;
  for (std::size_t r = first_run; r < history.size(); ++r) {
    auto& run = lookback.emplace_back();
    for (const Point& p : history[r]) {
      if (kinds.count(p.provenance.kind) != 0) run.push_back(p);
    }
  }
  std::vector<std::map<std::string, const Point*>> earlier;
  for (const auto& run : lookback) {
    auto& by_key = earlier.emplace_back();
    for (const Point& p : run) by_key[p.key.Canonical()] = &p;
  }

  for (const auto& [key, base] : base_by_key) {
    const auto it = cand_by_key.find(key);
    if (it == cand_by_key.end()) {
      out.only_baseline.push_back(key);
      continue;
    }
    const PointMetrics b = DeScaled(*base);
    const PointMetrics c = DeScaled(*it->second);
    PointComparison pc;
    pc.key = base->key;
    const bool agentic = base->key.Agentic();
    const std::span<const MetricSpec> specs =
        agentic ? std::span<const MetricSpec>(kAgenticMetrics) : std::span<const MetricSpec>(kMetrics);
    for (const MetricSpec& spec : specs) {
      MetricDelta d;
      d.metric = spec.name;
      d.unit = spec.unit;
      d.higher_is_better = spec.higher_is_better;
      std::vector<double> series;
      for (const auto& run : earlier) {
        if (const auto p = run.find(key); p != run.end()) series.push_back(DeScaled(*p->second).*spec.field);
      }
      d.evidence = JudgeChange(SampleOf(*base, b, spec), SampleOf(*it->second, c, spec), series, spec.higher_is_better,
                               options.rules);
      d.baseline = b.*spec.field;
      d.candidate = c.*spec.field;
      d.change = d.evidence.change;
      pc.deltas.push_back(d);
    }
    out.points.push_back(std::move(pc));
  }
  for (const auto& [key, cand] : cand_by_key) {
    if (!base_by_key.count(key)) out.only_candidate.push_back(key);
  }

  // Frontiers per (scenario, group): each run's throughput/interactivity front, read at the chosen
  // interactivities (else every frontier point of either run) inside both fronts' range. Agentic
  // scenarios and groups (offload mode included) never meet fixed-length ones; their x is the P50
  // E2E-normalized interactivity (DefaultInteractivity). Multi-node deployments (disagg xPyD) are
  // curves of their own (SeriesGroup), so a disaggregated front is never read against an aggregated one.
  std::set<std::string> agentic_scenarios;
  const Curves base_fronts = CollectFronts(baseline, agentic_scenarios);
  const Curves cand_fronts = CollectFronts(candidate, agentic_scenarios);
  std::vector<Curves> earlier_fronts;
  for (const auto& run : lookback) earlier_fronts.push_back(CollectFronts(run, agentic_scenarios));
  for (const auto& [group, base_front] : base_fronts) {
    const auto it = cand_fronts.find(group);
    if (it == cand_fronts.end()) continue;
    const Fronts& cand_front = it->second;
    std::set<double> xs(options.interactivities.begin(), options.interactivities.end());
    if (xs.empty()) {
      for (const auto& p : base_front.median) xs.insert(p.x);
      for (const auto& p : cand_front.median) xs.insert(p.x);
    }
    for (double x : xs) {
      const auto b = FrontAt(base_front.median, x);
      const auto c = FrontAt(cand_front.median, x);
      if (!b || !c) continue;
      std::vector<double> series;
      for (const Curves& run : earlier_fronts) {
        const auto front = run.find(group);
        if (front == run.end()) continue;
        if (const auto v = FrontAt(front->second.median, x)) series.push_back(*v);
      }
      FrontierSample s;
      s.scenario = group.first;
      s.group = group.second;
      s.interactivity = x;
      s.baseline = *b;
      s.candidate = *c;
      s.evidence = JudgeChange({*b, RepeatFrontValuesAt(base_front.repeats, x)},
                               {*c, RepeatFrontValuesAt(cand_front.repeats, x)}, series, true, options.rules);
      s.change = s.evidence.change;
      s.agentic = agentic_scenarios.count(group.first) > 0;
      out.frontier.push_back(s);
    }
  }

  // Every test of the comparison held to alpha together, then the verdicts counted.
  std::vector<ChangeEvidence*> family;
  for (PointComparison& pc : out.points) {
    for (MetricDelta& d : pc.deltas) family.push_back(&d.evidence);
  }
  for (FrontierSample& s : out.frontier) family.push_back(&s.evidence);
  AdjustForMultipleTests(family, options.rules);
  for (PointComparison& pc : out.points) {
    for (MetricDelta& d : pc.deltas) {
      d.regression = d.evidence.status == ChangeStatus::kRegression;
      pc.regression = pc.regression || d.regression;
      Count(out, d.evidence);
    }
    out.point_regressions += pc.regression ? 1 : 0;
  }
  for (FrontierSample& s : out.frontier) {
    s.regression = s.evidence.status == ChangeStatus::kRegression;
    out.frontier_regressions += s.regression ? 1 : 0;
    Count(out, s.evidence);
  }
  return out;
}

std::string FormatComparison(const Comparison& c, const CompareOptions& options, bool verbose) {
  const auto reported = [&](const ChangeEvidence& e) { return verbose || e.status != ChangeStatus::kUnchanged; };
  std::string out;
  out += "Points matched: " + std::to_string(c.points.size()) + ", significant regressions (minimum effect " +
         FixedDigits(options.rules.min_effect * 100, 1) + "%, alpha " + FixedDigits(options.rules.alpha, 2) +
         "): " + std::to_string(c.point_regressions) +
         "; figures significantly better: " + std::to_string(c.improvements) +
         "; inconclusive: " + std::to_string(c.inconclusive) + "\n";
  bool header = false;
  for (const PointComparison& p : c.points) {
    const bool changed =
        std::any_of(p.deltas.begin(), p.deltas.end(), [&](const MetricDelta& d) { return reported(d.evidence); });
    if (!changed) continue;
    if (!header) {
      out += "\n" + Pad("point", 72) + Pad("metric", 16) + Pad("baseline", 14) + Pad("candidate", 14) +
             Pad("change", 9) + Pad("verdict", 14) + "evidence\n";
      header = true;
    }
    bool first = true;
    for (const MetricDelta& d : p.deltas) {
      if (!reported(d.evidence)) continue;
      const int digits = d.unit[0] == 's' ? 4 : 1;
      std::string verdict = ChangeStatusName(d.evidence.status);
      if (d.regression) verdict = "REGRESSION";
      out += Pad(first ? p.key.Canonical() : "", 72) + Pad(d.metric, 16) + Pad(FixedDigits(d.baseline, digits), 14) +
             Pad(FixedDigits(d.candidate, digits), 14) + Pad(SignedPercent(d.change), 9) + Pad(verdict, 14) +
             d.evidence.Describe() + "\n";
      first = false;
    }
  }
  out += "\nFrontier samples (tok/s/GPU at equal interactivity): " + std::to_string(c.frontier.size()) +
         ", significant regressions: " + std::to_string(c.frontier_regressions) + "\n";
  if (std::any_of(c.frontier.begin(), c.frontier.end(), [](const FrontierSample& s) { return s.agentic; })) {
    out += "(agentic-coding scenarios: at equal P50 E2E-normalized interactivity, per offload mode)\n";
  }
  header = false;
  for (const FrontierSample& s : c.frontier) {
    if (!reported(s.evidence)) continue;
    if (!header) {
      out += "\n" + Pad("scenario", 34) + Pad("group", 26) + Pad("tok/s/user", 12) + Pad("baseline", 12) +
             Pad("candidate", 12) + Pad("change", 9) + Pad("verdict", 14) + "evidence\n";
      header = true;
    }
    out += Pad(s.scenario, 34) + Pad(s.group, 26) + Pad(FixedDigits(s.interactivity, 1), 12) +
           Pad(FixedDigits(s.baseline, 1), 12) + Pad(FixedDigits(s.candidate, 1), 12) +
           Pad(SignedPercent(s.change), 9) +
           Pad(s.regression ? "REGRESSION" : ChangeStatusName(s.evidence.status), 14) + s.evidence.Describe() + "\n";
  }
  if (!c.only_baseline.empty()) {
    out += "\nOnly in the baseline (" + std::to_string(c.only_baseline.size()) + "):\n";
    for (const auto& k : c.only_baseline) out += "  " + k + "\n";
  }
  if (!c.only_candidate.empty()) {
    out += "\nOnly in the candidate (" + std::to_string(c.only_candidate.size()) + "):\n";
    for (const auto& k : c.only_candidate) out += "  " + k + "\n";
  }
  return out;
}

double ParseMinEffectPercent(const std::string& text) {
  std::string s = text;
  if (!s.empty() && s.back() == '%') s.pop_back();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0 || v >= 100) {
    throw InputError(Diagnostic{
        {}, "", "--min-effect-percent", "must be a percentage in [0, 100) such as 5 or 2.5, got '" + text + "'"});
  }
  return v / 100;
}

}  // namespace infermark::results
