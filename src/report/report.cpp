#include "report/report.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/version.hpp"
#include "power/power_fields.hpp"
#include "report/eval_section.hpp"
#include "report/pareto.hpp"
#include "report/repeat_band.hpp"
#include "report/svg_chart.hpp"
#include "results/agentic_record.hpp"
#include "results/host_error_summary.hpp"
#include "results/multinode_fields.hpp"
#include "results/point_validity.hpp"
#include "results/prediction_band_fields.hpp"
#include "results/repeat_record.hpp"

namespace infermark::results {
namespace {

// Tableau 10: distinct, colour-blind-aware, readable on white.
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

constexpr const char* kCss = R"css(
:root { --fg:#1d2330; --muted:#5b6472; --line:#d9dee7; --bg:#ffffff; --band:#f6f8fb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--fg); background: var(--bg); }
header { padding: 22px 32px 14px; border-bottom: 1px solid var(--line); background: var(--band); }
header h1 { margin: 0 0 4px; font-size: 22px; font-weight: 600; }
header .meta { color: var(--muted); font-size: 13px; }
main { padding: 8px 32px 40px; max-width: 1640px; }
h2 { font-size: 18px; font-weight: 600; margin: 30px 0 6px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 15px; font-weight: 600; margin: 18px 0 6px; }
.note { background: #fff8e6; border: 1px solid #f0d48a; border-radius: 4px; padding: 8px 12px; margin: 14px 0;
        font-size: 13px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 18px; margin: 10px 0 4px; }
svg.chart { width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
svg .chart-title { font-size: 16.5px; font-weight: 600; fill: var(--fg); }
svg .plot-bg { fill: #fbfcfe; }
svg .frame { fill: none; stroke: #9aa3b2; stroke-width: 1; }
svg .grid { stroke: #e6e9ef; stroke-width: 1; }
svg .tick { font-size: 13px; fill: var(--muted); font-variant-numeric: tabular-nums; }
svg .axis-label { font-size: 14.5px; fill: var(--fg); }
svg .frontier { fill: none; stroke-width: 2.2; stroke-linejoin: round; }
svg .frontier.predicted { stroke-dasharray: 6 4; stroke-width: 1.8; }
svg .band { fill-opacity: 0.13; stroke: none; }
svg .pt.measured { stroke: #fff; stroke-width: 1.2; }
svg .pt.measured.front { stroke: #1d2330; stroke-width: 1.2; }
svg .pt.predicted { fill: #fff; stroke-width: 2; }
svg .pt.invalid { stroke: #c62828 !important; stroke-width: 2.2; opacity: 0.55; }
svg .pt:hover { stroke: #000; stroke-width: 2.5; }
svg .legend-marker.measured { stroke: #fff; stroke-width: 1; }
svg .legend-marker.predicted { fill: #fff; stroke-width: 2; }
svg .halo { fill-opacity: 0.18; stroke-opacity: 0.6; stroke-width: 1.2; }
svg .frontier.dashed { stroke-dasharray: 2 4; stroke-width: 1.8; }
svg .frontier.offload { stroke-width: 3.4; stroke-opacity: 0.7; }
svg .frontier-band { fill-opacity: 0.14; stroke: none; }
svg .error-bar { fill: none; stroke-width: 1.3; stroke-opacity: 0.85; }
svg .frontier-label { font-size: 12.5px; font-weight: 600; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg .legend-label { font-size: 13px; fill: var(--fg); }
.table-wrap { overflow-x: auto; margin: 6px 0 10px; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th, td { padding: 4px 7px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
th { background: var(--band); font-weight: 600; position: sticky; top: 0; }
td.l, th.l { text-align: left; }
td.wrap { white-space: normal; min-width: 21em; }
td.verdict { white-space: normal; min-width: 14em; max-width: 30em; }
td.verdict summary { cursor: pointer; }
td.verdict .why { white-space: pre-wrap; font-size: 0.85em; color: #4b5563; }
td.verdict .tails { font-size: 0.85em; color: #b45309; }
td.power-invalid { color: #b3261e; text-align: center; font-style: italic; }
th { white-space: normal; vertical-align: bottom; }
td { font-variant-numeric: tabular-nums; }
tr.predicted td { color: #4b5563; font-style: italic; }
tr.invalid td { background: #fdecec; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 6px; vertical-align: -1px; }
.swatch.offload { box-shadow: 0 0 0 3px rgba(29, 35, 48, 0.18); }
.swatch.predicted { border-radius: 0; transform: rotate(45deg); background: #fff !important; border: 2px solid; width: 9px; height: 9px; }
footer { color: var(--muted); font-size: 12px; padding: 0 32px 30px; }
)css";

std::string Fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string ScaleText(double scale) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", scale);
  return text;
}

std::string NowUtc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &tm);
  return text;
}

bool IsPredictedRun(const RunSummary& run) {
  return run.points > 0 && run.predicted_points == run.points;
}

// One drawn point: which run and series it belongs to and its de-scaled figures.
struct Drawn;

// The band of a chart's x figure for a drawn point (none: no band).
using XBandOf = std::optional<FigureBand> (*)(const Drawn&);

struct Drawn {
  const Point* point;
  const ReportRun* run;
  PointMetrics m;
  std::size_t series;
  bool front_intvty = false;  // fixed: interactivity chart; agentic: E2E-normalized interactivity chart
  bool front_e2el = false;    // fixed: E2E latency chart; agentic: full-response interactivity chart
  BandFields band;            // a predicted point's model-error bands (none for measured ones)
};

struct SeriesInfo {
  std::string label;
  std::string color;
  bool predicted;
  std::string group;
  bool offload = false;  // agentic points with KV offloading: drawn with a halo
  std::string tag;       // the name written at the frontier: the group, or a multi-node deployment's label
};

// Points of one group share a colour across runs and offload modes (offload is drawn as a halo);
// each multi-node deployment (disagg xPyD) has a colour of its own.
std::string ColourGroup(const Point& p) {
  const PointKey& key = p.key;
  const auto multinode = MultiNodeFieldsOf(p.agg);
  return key.hw + " " + key.framework + " " + key.precision +
         (key.spec_decoding == "none" ? "" : " " + key.spec_decoding) + (multinode ? " " + multinode->Label() : "");
}

std::string Percent(const std::optional<double>& fraction) {
  return fraction ? Fixed(*fraction * 100, 1) : "";
}

template <typename T>
std::string Optional(const std::optional<T>& v, int digits) {
  if (!v) return "";
  return Fixed(static_cast<double>(*v), digits);
}

// A point whose own run judged it INVALID (a saturated client, an engine behind its model, too many
// failures) is drawn apart and left out of the frontiers: it must never pass for a valid figure.
bool Invalid(const Point& p) {
  return !ValidityOf(p.provenance.verdict).valid;
}

// A table has power columns when any of its points has valid measured power; there a point whose
// power the aggregation judged not valid is marked, and a point without power fields stays blank.
bool AnyValidPower(const std::vector<Drawn>& drawn) {
  return std::any_of(drawn.begin(), drawn.end(), [](const Drawn& d) { return PowerFieldsOf(d.point->agg).Valid(); });
}

constexpr const char* kPowerHeader = "<th>power [W/GPU]</th><th>energy [J/output tok]</th>";

constexpr const char* kPowerNote =
    "<div class=\"note power-note\">Power is the measured GPU board power per GPU, averaged over the benchmark "
    "window; energy per output token is the energy of every GPU of the deployment over that window divided by "
    "the output tokens (InferenceX's power metrics, schema version 2). <i>power invalid</i>: the telemetry did "
    "not cover the window (its power_validation sidecar says why), so the point has no power figures.</div>\n";

std::string PowerCells(const Point& p) {
  const PowerFields f = PowerFieldsOf(p.agg);
  if (f.Invalid()) return "<td class=\"power-invalid\" colspan=\"2\">power invalid</td>";
  if (!f.Valid()) return "<td></td><td></td>";
  return "<td>" + Optional(f.avg_power_w, 0) + "</td><td>" + Optional(f.joules_per_output_token, 3) + "</td>";
}

// The tooltip's power line: the measured figures, only when valid.
std::string PowerTitle(const Point& p) {
  const PowerFields f = PowerFieldsOf(p.agg);
  if (!f.Valid() || !f.avg_power_w) return "";
  return "power: " + Fixed(*f.avg_power_w, 0) + " W/GPU" +
         (f.joules_per_output_token ? ", " + Fixed(*f.joules_per_output_token, 3) + " J/output tok" : "") + "\n";
}

// A figure's band as "low–high" with `digits` decimals ("" without one).
std::string BandText(const std::optional<FigureBand>& band, int digits) {
  return band ? Fixed(band->band_p10, digits) + "–" + Fixed(band->band_p90, digits) : "";
}

// The tooltip's band line: the model-error band of a predicted point's figures.
std::string BandTitle(const BandFields& b) {
  if (!b.Present()) return "";
  return "model-error band p10–p90 (" + b.scope + "): " + BandText(b.tput_per_gpu, 1) + " tok/s/GPU, " +
         BandText(b.median_intvty, 1) + " tok/s/user, " + BandText(b.median_e2el, 2) + " s E2EL\n";
}

std::string PointTitle(const Drawn& d) {
  const Point& p = *d.point;
  std::string t = Invalid(p) ? p.provenance.verdict + "\n" : std::string();
  if (p.key.Agentic()) {
    const AgenticFields f = AgenticFieldsOf(p.agg);
    t += SeriesGroup(p) + "  " + p.key.topology + "  " + std::to_string(p.key.conc) + " users\n";
    t += "tok/s/GPU: " + Fixed(d.m.tput_per_gpu, 1) + "\n";
    t += "E2E-normalized interactivity P50/P90: " + Fixed(d.m.median_e2e_norm_intvty, 1) + " / " +
         Fixed(d.m.p90_e2e_norm_intvty, 1) + " tok/s/user\n";
    t += "full-response interactivity P50/P90: " + Fixed(d.m.median_full_response_intvty, 1) + " / " +
         Fixed(d.m.p90_full_response_intvty, 1) + " tok/s/user\n";
    t += "TTFT P50/P90: " + Fixed(d.m.median_ttft, 2) + " / " + Fixed(d.m.p90_ttft, 2) + " s\n";
    t += PowerTitle(p);
    if (f.theoretical_cache_hit_rate || f.server_cache_hit_rate) {
      t += "cache hit rate theoretical/server: " + Percent(f.theoretical_cache_hit_rate) + " / " +
           Percent(f.server_cache_hit_rate) + " %\n";
    }
    t += std::string(PointKindName(p.provenance.kind)) + ", run " + d.run->run.info.label;
    if (p.provenance.time_scale != 1) t += " (de-scaled from ×" + ScaleText(p.provenance.time_scale) + ")";
    return t;
  }
  // A repeated point's figure: the median with its interval.
  const auto interval = [&](const char* key, int digits) {
    const auto f = DeScaledRepeatFigure(p, key);
    return f ? " [" + Fixed(f->interval.low, digits) + ", " + Fixed(f->interval.high, digits) + "]" : std::string();
  };
  t += SeriesGroup(p) + "  " + p.key.topology + "  conc " + std::to_string(p.key.conc) + "\n";
  if (const int n = RepeatCount(p.agg); n > 1) {
    t += "median of " + std::to_string(n) + " repeats, [95 % interval of the median]\n";
  }
  t += "tok/s/GPU: " + Fixed(d.m.tput_per_gpu, 1) + interval("tput_per_gpu", 1) + "\n";
  t += "interactivity: " + Fixed(d.m.median_intvty, 1) + interval("median_intvty", 1) + " tok/s/user\n";
  t += "median E2E latency: " + Fixed(d.m.median_e2el, 2) + interval("median_e2el", 2) + " s\n";
  t += "median TTFT: " + Fixed(d.m.median_ttft * 1000, 0) + " ms, p99 TTFT: " + Fixed(d.m.p99_ttft * 1000, 0) + " ms\n";
  t += BandTitle(d.band);
  t += PowerTitle(p);
  t += std::string(PointKindName(p.provenance.kind)) + ", run " + d.run->run.info.label;
  if (p.provenance.time_scale != 1) t += " (de-scaled from ×" + ScaleText(p.provenance.time_scale) + ")";
  return t;
}

std::string RunsTable(const std::vector<ReportRun>& runs) {
  std::string h =
      "<div class=\"table-wrap\"><table class=\"runs\"><thead><tr><th class=\"l\">id</th><th class=\"l\">run</th><th "
      "class=\"l\">"
      "label</th><th class=\"l\">source</th><th>points</th><th class=\"l\">kind</th><th>time scale</th>"
      "<th class=\"l\">created</th><th class=\"l\">host</th><th class=\"l\">infermark</th></tr></thead><tbody>";
  for (const ReportRun& r : runs) {
    const RunSummary& s = r.run;
    const std::string kind = IsPredictedRun(s) ? "predicted" : s.predicted_points > 0 ? "mixed" : "measured";
    h += "<tr><td class=\"l\">" + std::to_string(s.id) + "</td><td class=\"l\">" + EscapeXml(s.info.run_key) +
         "</td><td class=\"l\">" + EscapeXml(s.info.label) + "</td><td class=\"l\">" + EscapeXml(s.info.source) +
         "</td><td>" + std::to_string(s.points) + "</td><td class=\"l\">" + kind + "</td><td>" +
         (s.max_time_scale != 1 ? "×" + ScaleText(s.max_time_scale) + " (de-scaled)" : "real time") +
         "</td><td class=\"l\">" + EscapeXml(s.created_at) + "</td><td class=\"l\">" + EscapeXml(s.info.host) +
         "</td><td class=\"l\">" + EscapeXml(s.info.infermark_version) + "</td></tr>";
  }
  return h + "</tbody></table></div>\n";
}

// The verdict as a short line (VALID, or INVALID and its first reason up to its detail), with the
// statistics the host moved past the tolerance; the whole text opens on a click.
std::string VerdictCell(const Point& p) {
  const PointValidity v = ValidityOf(p.provenance.verdict);
  const HostErrorSummary host = SummarizeHostError(p.provenance.host_error);
  std::string tails;
  for (const HostErrorMark& m : host.marks) {
    if (m.headline) continue;
    const std::string label = m.key.ends_with("_ms") ? m.key.substr(0, m.key.size() - 3) : m.key;
    tails += (tails.empty() ? "" : ", ") + label + " " + PercentText(m.rel);
  }
  std::string shortline = v.verdict.empty() ? "-" : v.verdict;
  if (!v.reasons.empty()) {
    std::string first = v.reasons.front();
    const std::size_t cut = std::min(first.find(" ("), first.find(", over"));
    if (cut != std::string::npos) first = first.substr(0, cut);
    if (first.size() > 70) first = first.substr(0, 67) + "…";
    shortline += ": " + first;
    if (v.reasons.size() > 1) shortline += " (+" + std::to_string(v.reasons.size() - 1) + " more)";
  }
  std::string detail = p.provenance.verdict;
  if (host.worst_headline_rel) {
    detail += (detail.empty() ? "" : "\n") + std::string("largest headline host error: ") + host.worst_headline + " " +
              PercentText(*host.worst_headline_rel) + " (" + host.kind + ")";
  }
  for (const HostErrorMark& m : host.marks) detail += "\n" + m.key + " " + PercentText(m.rel) + ": " + m.cause;
  std::string cell = "<details><summary>" + EscapeXml(shortline) + "</summary><div class=\"why\">" + EscapeXml(detail) +
                     "</div></details>";
  if (!tails.empty())
    cell +=
        "<div class=\"tails\" title=\"host error past the tolerance on these tail statistics (the point "
        "stands)\">tails marked: " +
        EscapeXml(tails) + "</div>";
  return cell;
}

std::string PointsTable(const std::vector<Drawn>& drawn, const std::vector<SeriesInfo>& series,
                        const std::vector<const Evaluation*>& evaluations) {
  const bool power = AnyValidPower(drawn);
  const bool accuracy = !evaluations.empty();
  const bool bands = std::any_of(drawn.begin(), drawn.end(), [](const Drawn& d) { return d.band.Present(); });
  std::string h = std::string(power ? kPowerNote : "") +
                  "<div class=\"table-wrap\"><table class=\"points\"><thead><tr><th class=\"l\">series</th><th "
                  "class=\"l\">parallelism</th><th>conc</th>"
                  "<th>tok/s/GPU</th><th>output tok/s/GPU</th><th>input tok/s/GPU</th>" +
                  (power ? kPowerHeader : "") + "<th>interactivity [tok/s/user]</th>" +
                  (bands ? "<th>tok/s/GPU band p10–p90</th><th>interactivity band p10–p90</th>" : "") +
                  "<th>median TTFT [ms]</th><th>p99 TTFT [ms]</th><th>median E2EL [s]</th><th>time scale</th>"
                  "<th class=\"l\">frontier</th><th class=\"l\">verdict</th>" +
                  (accuracy ? "<th class=\"l\">accuracy</th>" : "") + "</tr></thead><tbody>\n";
  for (const Drawn& d : drawn) {
    const Point& p = *d.point;
    const SeriesInfo& s = series[d.series];
    const bool invalid = Invalid(p);
    std::string cls = s.predicted ? "predicted" : "measured";
    if (invalid) cls += " invalid";
    h += "<tr class=\"" + cls + "\"><td class=\"l wrap\"><span class=\"swatch" +
         std::string(s.predicted ? " predicted" : "") + "\" style=\"background:" + s.color +
         ";border-color:" + s.color + "\"></span>" + EscapeXml(s.label) + "</td><td class=\"l\">" +
         EscapeXml(p.key.topology) + "</td><td>" + std::to_string(p.key.conc) + "</td><td>" +
         Fixed(d.m.tput_per_gpu, 1) + "</td><td>" + Fixed(d.m.output_tput_per_gpu, 1) + "</td><td>" +
         Fixed(d.m.input_tput_per_gpu, 1) + "</td>" + (power ? PowerCells(p) : "") + "<td>" +
         Fixed(d.m.median_intvty, 1) + "</td>" +
         (bands ? "<td class=\"band\">" + BandText(d.band.tput_per_gpu, 1) + "</td><td class=\"band\">" +
                      BandText(d.band.median_intvty, 1) + "</td>"
                : "") +
         "<td>" + Fixed(d.m.median_ttft * 1000, 0) + "</td><td>" + Fixed(d.m.p99_ttft * 1000, 0) + "</td><td>" +
         Fixed(d.m.median_e2el, 2) + "</td><td>" +
         (p.provenance.time_scale != 1 ? "×" + ScaleText(p.provenance.time_scale) : "1") + "</td><td class=\"l\">" +
         std::string(d.front_intvty ? "interactivity" : "") + (d.front_intvty && d.front_e2el ? ", " : "") +
         (d.front_e2el ? "latency" : "") + "</td><td class=\"l verdict\">" + VerdictCell(p) + "</td>" +
         (accuracy ? "<td class=\"l\">" + EvaluationLinks(p.key, evaluations) + "</td>" : "") + "</tr>\n";
  }
  return h + "</tbody></table></div>\n";
}

// A predicted frontier's model-error band as a closed polygon: its points' optimistic corners
// (throughput at its p90, x at its p90, or at its p10 where a lower x is better) along the
// frontier, then their pessimistic corners back; empty unless every frontier point has both bands.
std::vector<std::pair<double, double>> FrontierBand(const std::vector<ChartPoint>& front,
                                                    const std::vector<Drawn>& drawn, XBandOf x_band, XGoal goal) {
  std::vector<std::pair<double, double>> optimistic, pessimistic;
  for (const ChartPoint& f : front) {
    const Drawn& d = drawn[f.index];
    const std::optional<FigureBand> xb = x_band ? x_band(d) : std::nullopt;
    if (!xb || !d.band.tput_per_gpu) return {};
    const bool higher = goal == XGoal::kMaximize;
    optimistic.emplace_back(higher ? xb->band_p90 : xb->band_p10, d.band.tput_per_gpu->band_p90);
    pessimistic.emplace_back(higher ? xb->band_p10 : xb->band_p90, d.band.tput_per_gpu->band_p10);
  }
  if (front.size() < 2) return {};
  optimistic.insert(optimistic.end(), pessimistic.rbegin(), pessimistic.rend());
  return optimistic;
}

// One chart of throughput per GPU against `x`, a series per drawn series with its Pareto frontier
// over the points their run did not judge INVALID; `front` marks the frontier points in `drawn`.
// `x_key` names the x figure in a repeated point's record (its repeats give the error bars and,
// when every valid point of a series was repeated, the band around its frontier).
// A predicted frontier whose points have bands of `x_band` and throughput is drawn in its band.
ChartSpec ParetoChart(ChartSpec spec, std::vector<Drawn>& drawn, const std::vector<SeriesInfo>& series,
                      double (*x)(const Drawn&), const char* x_key, XGoal goal, bool Drawn::*front,
                      XBandOf x_band = nullptr) {
  std::map<std::size_t, std::vector<ChartPoint>> by_series;
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    const double xv = x(drawn[i]);
    if (drawn[i].m.tput_per_gpu > 0 && xv > 0) by_series[drawn[i].series].push_back({xv, drawn[i].m.tput_per_gpu, i});
  }
  std::set<std::string> tagged;
  for (auto& [s, points] : by_series) {
    ChartSeries cs{series[s].label, series[s].color, series[s].predicted, {}, {}, ""};
    cs.halo = series[s].offload;
    // One name per group and chart: the first series of the group (measured before predicted).
    if (tagged.insert(series[s].group).second) cs.tag = series[s].tag;
    std::vector<ChartPoint> valid;
    std::vector<std::pair<RepeatFigure, RepeatFigure>> repeats;
    bool all_repeated = true;
    for (const ChartPoint& p : points) {
      if (Invalid(*drawn[p.index].point)) continue;
      valid.push_back(p);
      const auto rx = DeScaledRepeatFigure(*drawn[p.index].point, x_key);
      const auto ry = DeScaledRepeatFigure(*drawn[p.index].point, "tput_per_gpu");
      if (rx && ry) {
        repeats.emplace_back(*rx, *ry);
      } else {
        all_repeated = false;
      }
    }
    std::vector<std::vector<ChartPoint>> repeat_fronts;
    if (all_repeated && !repeats.empty()) {
      std::vector<RepeatXY> xy;
      for (const auto& [rx, ry] : repeats) xy.push_back({&rx.values, &ry.values});
      repeat_fronts = RepeatFronts(RepeatCharts(xy), goal);
    }
    const std::vector<ChartPoint> frontier = ParetoFront(valid, goal);
    for (const ChartPoint& f : frontier) {
      cs.frontier.emplace_back(f.x, f.y);
      drawn[f.index].*front = true;
      if (const auto band = RepeatBandAt(repeat_fronts, f.x)) cs.band.push_back({f.x, band->low, band->high});
    }
    if (series[s].predicted) {
      cs.model_band = FrontierBand(frontier, drawn, x_band, goal);
      cs.model_band_title = "Model-error band p10–p90 (calibration's held-out residuals)";
    }
    for (const ChartPoint& p : points) {
      ChartDatum datum{p.x, p.y, PointTitle(drawn[p.index]), drawn[p.index].*front, Invalid(*drawn[p.index].point)};
      if (const auto rx = DeScaledRepeatFigure(*drawn[p.index].point, x_key)) {
        datum.x_interval = {rx->interval.low, rx->interval.high};
      }
      if (const auto ry = DeScaledRepeatFigure(*drawn[p.index].point, "tput_per_gpu")) {
        datum.y_interval = {ry->interval.low, ry->interval.high};
      }
      cs.points.push_back(std::move(datum));
    }
    spec.series.push_back(std::move(cs));
  }
  return spec;
}

// Prefix-cache hit rate against users: per series the theoretical rate (dotted) and the server's.
ChartSpec CacheChart(ChartSpec spec, const std::vector<Drawn>& drawn, const std::vector<SeriesInfo>& series) {
  std::map<std::size_t, std::vector<const Drawn*>> by_series;
  for (const Drawn& d : drawn) by_series[d.series].push_back(&d);
  for (auto& [s, points] : by_series) {
    std::sort(points.begin(), points.end(),
              [](const Drawn* a, const Drawn* b) { return a->point->key.conc < b->point->key.conc; });
    for (const bool theoretical : {true, false}) {
      // Short legend names: the group (with its offload mode), predicted runs marked, and which rate.
      ChartSeries cs{series[s].group + (series[s].predicted ? " · predicted" : "") +
                         (theoretical ? " · theoretical" : " · server"),
                     series[s].color,
                     series[s].predicted,
                     {},
                     {},
                     ""};
      cs.halo = series[s].offload;
      cs.dashed = theoretical;
      cs.line_title = theoretical ? "Theoretical hit rate by users" : "Server-measured hit rate by users";
      for (const Drawn* d : points) {
        const AgenticFields f = AgenticFieldsOf(d->point->agg);
        const auto rate = theoretical ? f.theoretical_cache_hit_rate : f.server_cache_hit_rate;
        if (!rate) continue;
        const double users = static_cast<double>(d->point->key.conc);
        cs.points.push_back({users, *rate * 100,
                             std::string(theoretical ? "theoretical" : "server-measured") + " prefix-cache hit rate " +
                                 Fixed(*rate * 100, 1) + " %\n" + series[s].label + ", " +
                                 std::to_string(d->point->key.conc) + " users" +
                                 (Invalid(*d->point) ? "\n" + d->point->provenance.verdict : ""),
                             false, Invalid(*d->point)});
        cs.frontier.emplace_back(users, *rate * 100);
      }
      if (!cs.points.empty()) spec.series.push_back(std::move(cs));
    }
  }
  return spec;
}

std::string AgenticPointsTable(const std::vector<Drawn>& drawn, const std::vector<SeriesInfo>& series) {
  const bool power = AnyValidPower(drawn);
  std::string h =
      std::string(power ? kPowerNote : "") +
      "<div class=\"table-wrap\"><table class=\"points agentic\"><thead><tr><th class=\"l\">series</th><th "
      "class=\"l\">parallelism</th><th>users</th><th class=\"l\">KV offload</th><th>host DRAM [GB]</th>"
      "<th>tok/s/GPU</th><th>output tok/s/GPU</th>" +
      (power ? kPowerHeader : "") +
      "<th>E2E-norm. interactivity P50 [tok/s/user]</th>"
      "<th>E2E-norm. interactivity P90 [tok/s/user]</th><th>full-response interactivity P50 [tok/s/user]</th>"
      "<th>full-response interactivity P90 [tok/s/user]</th><th>TTFT P50 [s]</th><th>TTFT P90 [s]</th>"
      "<th>E2EL P50 [s]</th><th>E2EL P90 [s]</th><th>theoretical cache hit [%]</th><th>server cache hit [%]</th>"
      "<th>server GPU hit [%]</th><th>server CPU hit [%]</th><th>KV pool [tokens]</th><th>requests ok / total</th>"
      "<th>failed</th><th>duration [s]</th>"
      "<th class=\"l\">frontier</th><th class=\"l\">verdict</th></tr></thead><tbody>\n";
  for (const Drawn& d : drawn) {
    const Point& p = *d.point;
    const SeriesInfo& s = series[d.series];
    const AgenticFields f = AgenticFieldsOf(p.agg);
    std::string cls = s.predicted ? "predicted" : "measured";
    if (Invalid(p)) cls += " invalid";
    std::string verdict = p.provenance.verdict;
    for (const std::string& w : f.warnings) verdict += (verdict.empty() ? "" : "; ") + std::string("warning: ") + w;
    h += "<tr class=\"" + cls + "\"><td class=\"l wrap\"><span class=\"swatch" +
         std::string(s.predicted ? " predicted" : "") + (s.offload ? " offload" : "") +
         "\" style=\"background:" + s.color + ";border-color:" + s.color + "\"></span>" + EscapeXml(s.label) +
         "</td><td class=\"l\">" + EscapeXml(p.key.topology) + "</td><td>" + std::to_string(p.key.conc) +
         "</td><td class=\"l\">" +
         EscapeXml(f.kv_offloading + (f.kv_offload_backend.empty() ? "" : " (" + f.kv_offload_backend + ")")) +
         "</td><td>" + Optional(f.allocated_cpu_dram_gb, 0) + "</td><td>" + Fixed(d.m.tput_per_gpu, 1) + "</td><td>" +
         Fixed(d.m.output_tput_per_gpu, 1) + "</td>" + (power ? PowerCells(p) : "") + "<td>" +
         Fixed(d.m.median_e2e_norm_intvty, 1) + "</td><td>" + Fixed(d.m.p90_e2e_norm_intvty, 1) + "</td><td>" +
         Fixed(d.m.median_full_response_intvty, 1) + "</td><td>" + Fixed(d.m.p90_full_response_intvty, 1) +
         "</td><td>" + Fixed(d.m.median_ttft, 2) + "</td><td>" + Fixed(d.m.p90_ttft, 2) + "</td><td>" +
         Fixed(d.m.median_e2el, 2) + "</td><td>" + Fixed(d.m.p90_e2el, 2) + "</td><td>" +
         Percent(f.theoretical_cache_hit_rate) + "</td><td>" + Percent(f.server_cache_hit_rate) + "</td><td>" +
         Percent(f.server_gpu_cache_hit_rate) + "</td><td>" + Percent(f.server_cpu_cache_hit_rate) + "</td><td>" +
         Optional(f.kv_cache_pool_tokens, 0) + "</td><td>" + Optional(f.requests_successful, 0) + " / " +
         Optional(f.requests_total, 0) + "</td><td>" + Optional(f.requests_error, 0) + "</td><td>" +
         Optional(f.duration_s, 0) + "</td><td class=\"l\">" + std::string(d.front_intvty ? "E2E-norm." : "") +
         (d.front_intvty && d.front_e2el ? ", " : "") + (d.front_e2el ? "full-response" : "") +
         "</td><td class=\"l verdict\">" + EscapeXml(verdict) + "</td></tr>\n";
  }
  return h + "</tbody></table></div>\n";
}

}  // namespace

std::string RenderReport(const std::vector<ReportRun>& runs, const ReportOptions& options) {
  // Series: one per (group, kind, run); colours per (group, run's rank among runs of its kind), so
  // a prediction shares the colour of the measured curve it predicts.
  std::map<std::string, std::size_t> group_colour;
  std::map<std::string, std::size_t> series_index;
  std::vector<SeriesInfo> series;
  int measured_runs = 0, predicted_runs = 0;
  for (const ReportRun& r : runs) (IsPredictedRun(r.run) ? predicted_runs : measured_runs)++;
  std::map<const ReportRun*, int> kind_rank;
  {
    int m = 0, p = 0;
    for (const ReportRun& r : runs) kind_rank[&r] = IsPredictedRun(r.run) ? p++ : m++;
  }
  // Scenario → drawn points; agentic scenarios apart from fixed-length ones.
  std::map<std::string, std::vector<Drawn>> scenarios;
  std::map<std::string, std::vector<Drawn>> agentic_scenarios;
  bool any_scaled = false;
  bool any_multinode = false;
  bool any_band = false;
  for (const ReportRun& r : runs) {
    for (const Point& p : r.points) {
      const bool predicted = p.provenance.kind == PointKind::kPredicted;
      const bool several = predicted ? predicted_runs > 1 : measured_runs > 1;
      // Multi-node deployments are series of their own ("… disagg 1P1D tp4/tp4"), beside the
      // aggregated points of their group.
      const std::string group = SeriesGroup(p);
      any_multinode = any_multinode || group != p.key.Group();
      any_band = any_band || (!p.key.Agentic() && p.agg.contains("prediction_band"));
      std::string label = group + (predicted ? " · predicted" : " · measured");
      if (several) label += " · " + r.run.info.label;
      if (p.provenance.time_scale != 1) {
        label += " (de-scaled ×" + ScaleText(p.provenance.time_scale) + ")";
        any_scaled = true;
      }
      const std::string colour_key = ColourGroup(p) + "\n" + std::to_string(kind_rank[&r]);
      const auto colour = group_colour.emplace(colour_key, group_colour.size()).first->second;
      const auto [it, added] = series_index.emplace(label, series.size());
      if (added) {
        // A multi-node frontier is named by its deployment alone ("disagg 1P1D tp4/tp4"), short
        // enough to stay inside the plot; its colour and legend entry name the rest.
        const auto multinode = MultiNodeFieldsOf(p.agg);
        series.push_back({label, kPalette[colour % std::size(kPalette)], predicted, group,
                          p.key.Agentic() && p.key.OffloadMode() != "kvnone", multinode ? multinode->Label() : group});
      }
      (p.key.Agentic() ? agentic_scenarios : scenarios)[p.key.Scenario()].push_back(
          {&p, &r, DeScaled(p), it->second, false, false, BandFieldsOf(p.agg, p.provenance.time_scale)});
    }
  }

  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      EscapeXml(options.title) + "</title>\n<style>" + kCss + kEvaluationsCss + "</style>\n</head>\n<body>\n";
  html += "<header><h1>" + EscapeXml(options.title) + "</h1><div class=\"meta\">Generated " + NowUtc() +
          " by infermark " + kVersion + (options.store_path.empty() ? "" : " from " + EscapeXml(options.store_path)) +
          " · " + std::to_string(runs.size()) + " run(s)</div></header>\n<main>\n";
  html += "<h2>Runs</h2>\n" + RunsTable(runs);
  if (any_scaled) {
    html +=
        "<div class=\"note time-scale-note\">Runs marked <b>de-scaled ×N</b> ran the built-in engine N times faster "
        "than the hardware it models. Their throughputs and interactivity are divided by N and their latencies "
        "multiplied by N, so every figure here reads as the modelled hardware.</div>\n";
  }
  if (!scenarios.empty())
    html +=
        "<div class=\"note\">Throughput per GPU is total (input + output) tokens/s divided by the GPUs serving; "
        "interactivity is 1000 / median TPOT (ms), the tokens/s one user sees. Lines are Pareto frontiers per "
        "hardware, framework, precision and speculative decoding over every parallelism and concurrency: points "
        "on a frontier are drawn larger and outlined. Filled dots are measured, hollow diamonds predicted "
        "(virtual clock). Points their run judged INVALID (a saturated client, an engine behind its model, too "
        "many failures) are ringed in red, faded and left out of the frontiers. Hover a point for its "
        "details.</div>\n";
  if (any_band)
    html +=
        "<div class=\"note band-note\">The shaded area around a predicted frontier is the model's p10–p90 error "
        "band: each frontier point moved by the 10th and 90th percentiles of ln(measured / predicted) over the "
        "calibration's held-out predictions of its framework on its GPU vendor (pooled where too few), to its "
        "optimistic corner along the top edge and its pessimistic corner along the bottom. About 80 % of "
        "measurements like the held-out ones fall inside (docs/engine-model.md, \"Prediction bands\"). It is the "
        "model's error, not run-to-run spread.</div>\n";
  if (any_multinode)
    html +=
        "<div class=\"note multinode-note\">Multi-node deployments are series of their own: <b>disagg xPyD "
        "tpA/tpB</b> runs x prefill workers (each tpA) and y decode workers (each tpB) and hands each request's KV "
        "cache from one to the other; <b>multinode Nx tpA</b> is one deployment over N workers that are not "
        "disaggregated. Their throughput per GPU is over the GPUs of both roles; their parallelism column names "
        "both pools (p: prefill, d: decode, workers x parallelism).</div>\n";
  std::vector<const Evaluation*> evaluations;
  for (const ReportRun& r : runs) {
    for (const Evaluation& e : r.evaluations) evaluations.push_back(&e);
  }
  if (scenarios.empty() && agentic_scenarios.empty()) html += "<p>No points to show.</p>\n";

  int chart_no = 0;
  for (auto& [scenario, drawn] : scenarios) {
    ++chart_no;
    const std::string id = "chart-" + std::to_string(chart_no);
    const ChartSpec intvty = ParetoChart(
        {id + "-interactivity",
         "Token throughput per GPU vs. interactivity",
         "Interactivity (median) [tok/s/user]",
         "Token throughput [tok/s/GPU]",
         {}},
        drawn, series, [](const Drawn& d) { return d.m.median_intvty; }, "median_intvty", XGoal::kMaximize,
        &Drawn::front_intvty, [](const Drawn& d) { return d.band.median_intvty; });
    const ChartSpec e2el = ParetoChart(
        {id + "-e2el",
         "Token throughput per GPU vs. end-to-end latency",
         "End-to-end latency (median) [s]",
         "Token throughput [tok/s/GPU]",
         {}},
        drawn, series, [](const Drawn& d) { return d.m.median_e2el; }, "median_e2el", XGoal::kMinimize,
        &Drawn::front_e2el, [](const Drawn& d) { return d.band.median_e2el; });
    html += "<section class=\"scenario\" id=\"scenario-" + std::to_string(chart_no) + "\">\n<h2>" +
            EscapeXml(drawn.front().point->key.model) + " · ISL " + std::to_string(drawn.front().point->key.isl) +
            " / OSL " + std::to_string(drawn.front().point->key.osl) + "</h2>\n";
    html += "<div class=\"charts\">\n" + RenderSvgChart(intvty) + RenderSvgChart(e2el) + "</div>\n";
    html += "<h3>Points (" + std::to_string(drawn.size()) + ")</h3>\n" + PointsTable(drawn, series, evaluations) +
            "</section>\n";
  }
  int agentic_no = 0;
  for (auto& [scenario, drawn] : agentic_scenarios) {
    ++agentic_no;
    const std::string id = "agentic-" + std::to_string(agentic_no);
    const ChartSpec e2e_norm = ParetoChart(
        {id + "-e2e-norm",
         "Token throughput per GPU vs. E2E-normalized interactivity",
         "E2E-normalized interactivity (P50) [tok/s/user]",
         "Token throughput [tok/s/GPU]",
         {}},
        drawn, series, [](const Drawn& d) { return d.m.median_e2e_norm_intvty; }, "median_e2e_norm_intvty",
        XGoal::kMaximize, &Drawn::front_intvty);
    const ChartSpec full = ParetoChart(
        {id + "-full-response",
         "Token throughput per GPU vs. full-response interactivity",
         "Full-response interactivity (P50) [tok/s/user]",
         "Token throughput [tok/s/GPU]",
         {}},
        drawn, series, [](const Drawn& d) { return d.m.median_full_response_intvty; }, "median_full_response_intvty",
        XGoal::kMaximize, &Drawn::front_e2el);
    const ChartSpec cache = CacheChart(
        {id + "-cache", "Prefix-cache hit rate vs. users", "Users (concurrent sessions)", "Cache hit rate [%]", {}},
        drawn, series);
    html += "<section class=\"scenario agentic\" id=\"" + id + "\">\n<h2>" + EscapeXml(drawn.front().point->key.model) +
            " · agentic coding (trace replay)</h2>\n";
    html +=
        "<div class=\"note agentic-note\">Each point replays agentic-coding session traces with a number of "
        "concurrent users for a fixed duration; there are no fixed sequence lengths. The first chart's x axis is "
        "the P50 E2E-normalized interactivity (one over the median of end-to-end latency per output token, what a "
        "user waits per token including prefill and queueing), the default for agentic points; the second uses "
        "the P50 full-response interactivity (decode only, InferenceX's canonical agentic interactivity). Series "
        "are per hardware, framework, precision and KV offload mode; points that offload the KV cache to host DRAM "
        "are drawn inside a halo. The cache chart shows the prefix-cache hit rate an unbounded cache would reach "
        "(theoretical, dotted) and the rate the server measured, against users. Points their run judged INVALID "
        "(aiperf's verdict, or InferenceX's gate of at most 10 % failed requests) are ringed in red, faded and left "
        "out of the frontiers.</div>\n";
    html += "<div class=\"charts\">\n" + RenderSvgChart(e2e_norm) + RenderSvgChart(full) + RenderSvgChart(cache) +
            "</div>\n";
    html +=
        "<h3>Points (" + std::to_string(drawn.size()) + ")</h3>\n" + AgenticPointsTable(drawn, series) + "</section>\n";
  }
  html += EvaluationsSection(evaluations);
  html +=
      "</main>\n<footer>Latencies are medians unless stated. Percentiles use linear interpolation. "
      "Each point is one server launch and one load run at a fixed client concurrency.</footer>\n</body>\n</html>\n";
  return html;
}

std::vector<RunSummary> DefaultReportRuns(ResultStore& store) {
  const std::vector<RunSummary> runs = store.ListRuns();  // oldest first
  std::vector<RunSummary> chosen;
  const RunSummary* measured = nullptr;
  for (const RunSummary& r : runs) {
    if (r.points > 0 && !IsPredictedRun(r)) measured = &r;
  }
  // The newest prediction of the same rows: the predicted run sharing most point keys with the
  // measured one, the newest of those (a later prediction of other rows, such as the agentic ones,
  // must not take its place); without a measured run, the newest prediction.
  const RunSummary* predicted = nullptr;
  std::size_t best = 0;
  std::set<std::string> keys;
  if (measured) {
    for (const Point& p : store.Points(measured->id)) keys.insert(p.key.Canonical());
  }
  for (const RunSummary& r : runs) {
    if (r.points == 0 || !IsPredictedRun(r)) continue;
    std::size_t shared = 0;
    if (measured) {
      for (const Point& p : store.Points(r.id)) shared += keys.count(p.key.Canonical());
    }
    if (!measured || shared >= best) {
      if (measured && shared == 0) continue;
      best = shared;
      predicted = &r;
    }
  }
  if (measured) chosen.push_back(*measured);
  if (predicted) chosen.push_back(*predicted);
  return chosen;
}

int WriteReport(ResultStore& store, const std::vector<std::string>& run_refs, const std::string& out_path,
                const ReportOptions& options) {
  std::vector<RunSummary> selected;
  if (run_refs.empty()) {
    selected = DefaultReportRuns(store);
    if (selected.empty())
      throw InputError(Diagnostic{{options.store_path, 0, 0}, "", "", "the store holds no points to report"});
  } else {
    std::set<std::int64_t> seen;
    for (const std::string& ref : run_refs) {
      RunSummary r = store.FindRun(ref);
      if (seen.insert(r.id).second) selected.push_back(std::move(r));
    }
  }
  std::vector<ReportRun> runs;
  int points = 0;
  for (RunSummary& r : selected) {
    ReportRun rr{std::move(r), {}, {}};
    rr.points = store.Points(rr.run.id);
    EvaluationQuery query;
    query.run_id = rr.run.id;
    rr.evaluations = store.Evaluations(query);
    points += static_cast<int>(rr.points.size());
    runs.push_back(std::move(rr));
  }
  WriteFileAtomic(out_path, RenderReport(runs, options));
  return points;
}

}  // namespace infermark::results
