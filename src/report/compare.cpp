#include "report/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <span>

#include "core/diagnostic.hpp"
#include "report/pareto.hpp"
#include "results/multinode_fields.hpp"

namespace infermark::results {
namespace {

struct MetricSpec {
  const char* name;
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

double Change(double baseline, double candidate) {
  return baseline != 0 ? (candidate - baseline) / std::fabs(baseline) : 0.0;
}

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

}  // namespace

Comparison CompareRuns(const std::vector<Point>& baseline, const std::vector<Point>& candidate,
                       const CompareOptions& options) {
  Comparison out;
  std::map<std::string, const Point*> base_by_key;
  std::map<std::string, const Point*> cand_by_key;
  for (const Point& p : baseline) base_by_key[p.key.Canonical()] = &p;
  for (const Point& p : candidate) cand_by_key[p.key.Canonical()] = &p;

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
      d.baseline = b.*spec.field;
      d.candidate = c.*spec.field;
      d.change = Change(d.baseline, d.candidate);
      d.regression = spec.higher_is_better ? d.change < -options.threshold : d.change > options.threshold;
      pc.regression = pc.regression || d.regression;
      pc.deltas.push_back(d);
    }
    out.point_regressions += pc.regression ? 1 : 0;
    out.points.push_back(std::move(pc));
  }
  for (const auto& [key, cand] : cand_by_key) {
    if (!base_by_key.count(key)) out.only_candidate.push_back(key);
  }

  // Frontiers per (scenario, group): each run's throughput/interactivity front, read at every
  // frontier point of either run inside both fronts' interactivity range. Agentic scenarios and
  // groups (offload mode included) never meet fixed-length ones; their x is the P50 E2E-normalized
  // interactivity (DefaultInteractivity). Multi-node deployments (disagg xPyD) are curves of their
  // own (SeriesGroup), so a disaggregated front is never read against an aggregated one.
  using Curves = std::map<std::pair<std::string, std::string>, std::vector<ChartPoint>>;
  std::set<std::string> agentic_scenarios;
  const auto collect = [&](const std::vector<Point>& points) {
    Curves curves;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const PointMetrics m = DeScaled(points[i]);
      const double x = DefaultInteractivity(points[i], m);
      if (x <= 0 || m.tput_per_gpu <= 0) continue;
      if (points[i].key.Agentic()) agentic_scenarios.insert(points[i].key.Scenario());
      curves[{points[i].key.Scenario(), SeriesGroup(points[i])}].push_back({x, m.tput_per_gpu, i});
    }
    for (auto& [group, pts] : curves) pts = ParetoFront(pts, XGoal::kMaximize);
    return curves;
  };
  const Curves base_fronts = collect(baseline);
  const Curves cand_fronts = collect(candidate);
  for (const auto& [group, base_front] : base_fronts) {
    const auto it = cand_fronts.find(group);
    if (it == cand_fronts.end()) continue;
    const auto& cand_front = it->second;
    std::set<double> xs;
    for (const auto& p : base_front) xs.insert(p.x);
    for (const auto& p : cand_front) xs.insert(p.x);
    for (double x : xs) {
      const auto b = FrontAt(base_front, x);
      const auto c = FrontAt(cand_front, x);
      if (!b || !c) continue;
      FrontierSample s{group.first, group.second,   x,     *b,
                       *c,          Change(*b, *c), false, agentic_scenarios.count(group.first) > 0};
      s.regression = s.change < -options.threshold;
      out.frontier_regressions += s.regression ? 1 : 0;
      out.frontier.push_back(s);
    }
  }
  return out;
}

std::string FormatComparison(const Comparison& c, const CompareOptions& options, bool verbose) {
  std::string out;
  out += "Points matched: " + std::to_string(c.points.size()) + ", regressions beyond " +
         FixedDigits(options.threshold * 100, 1) + "%: " + std::to_string(c.point_regressions) + "\n";
  bool header = false;
  for (const PointComparison& p : c.points) {
    const bool changed = std::any_of(p.deltas.begin(), p.deltas.end(),
                                     [&](const MetricDelta& d) { return std::fabs(d.change) > options.threshold; });
    if (!verbose && !changed) continue;
    if (!header) {
      out += "\n" + Pad("point", 72) + Pad("metric", 16) + Pad("baseline", 14) + Pad("candidate", 14) + "change\n";
      header = true;
    }
    bool first = true;
    for (const MetricDelta& d : p.deltas) {
      if (!verbose && std::fabs(d.change) <= options.threshold) continue;
      const int digits = d.unit[0] == 's' ? 4 : 1;
      out += Pad(first ? p.key.Canonical() : "", 72) + Pad(d.metric, 16) + Pad(FixedDigits(d.baseline, digits), 14) +
             Pad(FixedDigits(d.candidate, digits), 14) + SignedPercent(d.change) +
             (d.regression ? "  REGRESSION" : (std::fabs(d.change) > options.threshold ? "  improved" : "")) + "\n";
      first = false;
    }
  }
  out += "\nFrontier samples (tok/s/GPU at equal interactivity): " + std::to_string(c.frontier.size()) +
         ", regressions: " + std::to_string(c.frontier_regressions) + "\n";
  if (std::any_of(c.frontier.begin(), c.frontier.end(), [](const FrontierSample& s) { return s.agentic; })) {
    out += "(agentic-coding scenarios: at equal P50 E2E-normalized interactivity, per offload mode)\n";
  }
  header = false;
  for (const FrontierSample& s : c.frontier) {
    if (!verbose && std::fabs(s.change) <= options.threshold) continue;
    if (!header) {
      out += "\n" + Pad("scenario", 34) + Pad("group", 26) + Pad("tok/s/user", 12) + Pad("baseline", 12) +
             Pad("candidate", 12) + "change\n";
      header = true;
    }
    out += Pad(s.scenario, 34) + Pad(s.group, 26) + Pad(FixedDigits(s.interactivity, 1), 12) +
           Pad(FixedDigits(s.baseline, 1), 12) + Pad(FixedDigits(s.candidate, 1), 12) + SignedPercent(s.change) +
           (s.regression ? "  REGRESSION" : "") + "\n";
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

double ParseThreshold(const std::string& text) {
  std::string s = text;
  const bool percent = !s.empty() && s.back() == '%';
  if (percent) s.pop_back();
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0) {
    throw InputError(
        Diagnostic{{}, "", "--threshold", "must be a non-negative number such as 5% or 0.05, got '" + text + "'"});
  }
  return percent || v >= 1 ? v / 100 : v;
}

}  // namespace infermark::results
