#include "report/eval_section.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/eval_compare.hpp"
#include "report/svg_chart.hpp"

namespace infermark::results {
namespace {

constexpr double kBarWidth = 260;
constexpr double kBarHeight = 24;
constexpr double kBarPad = 8;

std::string FixedPlaces(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string VerdictClass(const Evaluation& e) {
  switch (e.status) {
    case EvalStatus::kNotRun:
      return "not-run";
    case EvalStatus::kInvalid:
      return "invalid";
    case EvalStatus::kIncomplete:
      return "incomplete";
    case EvalStatus::kScored:
      break;
  }
  if (!e.passed) return "no-threshold";
  return *e.passed ? "pass" : "fail";
}

// The score axis every row shares: from below the lowest error bar or threshold to 1.
struct ScoreAxis {
  double lo = 0;
  double hi = 1;
  [[nodiscard]] double X(double v) const {
    return kBarPad + (std::clamp(v, lo, hi) - lo) / (hi - lo) * (kBarWidth - 2 * kBarPad);
  }
};

ScoreAxis AxisOf(const std::vector<const Evaluation*>& evaluations) {
  double lo = 1;
  for (const Evaluation* e : evaluations) {
    if (e->Scored()) lo = std::min(lo, *e->score - e->score_stderr.value_or(0));
    if (e->threshold) lo = std::min(lo, *e->threshold);
  }
  ScoreAxis axis;
  axis.lo = std::max(0.0, std::floor(lo * 20 - 1) / 20);  // a 0.05 step below the lowest figure
  return axis;
}

std::string Bar(const Evaluation& e, const ScoreAxis& axis) {
  const std::string cls = VerdictClass(e);
  std::string svg = "<svg class=\"eval-bar\" width=\"" + FixedPlaces(kBarWidth, 0) + "\" height=\"" +
                    FixedPlaces(kBarHeight, 0) + "\" viewBox=\"0 0 " + FixedPlaces(kBarWidth, 0) + " " +
                    FixedPlaces(kBarHeight, 0) + "\" role=\"img\">";
  svg += "<line class=\"axis\" x1=\"" + FixedPlaces(axis.X(axis.lo), 1) + "\" x2=\"" + FixedPlaces(axis.X(axis.hi), 1) +
         "\" y1=\"12\" y2=\"12\"/>";
  if (e.threshold) {
    const std::string x = FixedPlaces(axis.X(*e.threshold), 1);
    svg += "<line class=\"threshold\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"2\" y2=\"22\"><title>threshold " +
           FixedPlaces(*e.threshold, 2) + " (" + EscapeXml(e.threshold_source) + ")</title></line>";
  }
  if (e.Scored()) {
    const double se = e.score_stderr.value_or(0);
    svg += "<line class=\"error-bar " + cls + "\" x1=\"" + FixedPlaces(axis.X(*e.score - se), 1) + "\" x2=\"" +
           FixedPlaces(axis.X(*e.score + se), 1) + "\" y1=\"12\" y2=\"12\"/>";
    svg += "<circle class=\"score " + cls + "\" cx=\"" + FixedPlaces(axis.X(*e.score), 1) +
           "\" cy=\"12\" r=\"4.5\"><title>" + EscapeXml(ScoreText(e)) + "</title></circle>";
  } else {
    svg += "<text class=\"status\" x=\"" + FixedPlaces(kBarWidth / 2, 0) + "\" y=\"16\" text-anchor=\"middle\">" +
           EscapeXml(e.Verdict()) + " (no score)</text>";
  }
  return svg + "</svg>";
}

std::string Configuration(const Evaluation& e) {
  std::string text = e.key.model + " · " + e.key.hw + " " + e.key.framework + " " + e.key.precision;
  if (e.key.spec_decoding != "none") text += " " + e.key.spec_decoding;
  text += " · " + e.key.topology;
  text += e.key.isl > 0 ? " · " + std::to_string(e.key.isl) + "/" + std::to_string(e.key.osl) : " · any ISL/OSL";
  return text + " · conc " + std::to_string(e.key.conc);
}

}  // namespace

const char* const kEvaluationsCss = R"css(
svg.eval-bar .axis { stroke: #c3cad6; stroke-width: 1; }
svg.eval-bar .threshold { stroke: #b3261e; stroke-width: 1.5; stroke-dasharray: 3 2; }
svg.eval-bar .error-bar { stroke-width: 2.2; }
svg.eval-bar .pass { stroke: #2e7d32; fill: #2e7d32; }
svg.eval-bar .fail { stroke: #b3261e; fill: #b3261e; }
svg.eval-bar .no-threshold { stroke: #4e79a7; fill: #4e79a7; }
svg.eval-bar .status { font-size: 11.5px; fill: #5b6472; font-style: italic; }
td.verdict-pass { color: #2e7d32; font-weight: 600; }
td.verdict-fail { color: #b3261e; font-weight: 600; }
td.verdict-not-run, td.verdict-invalid, td.verdict-incomplete { color: #5b6472; font-style: italic; }
tr:target td { background: #fff7d6; }
)css";

std::string EvaluationAnchor(const Evaluation& e) {
  return "eval-" + std::to_string(e.id);
}

std::vector<const Evaluation*> EvaluationsOf(const PointKey& key, const std::vector<const Evaluation*>& evaluations) {
  std::vector<const Evaluation*> out;
  for (const Evaluation* e : evaluations) {
    if (SameConfiguration(e->key, key)) out.push_back(e);
  }
  return out;
}

std::string EvaluationLinks(const PointKey& key, const std::vector<const Evaluation*>& evaluations) {
  std::string html;
  for (const Evaluation* e : EvaluationsOf(key, evaluations)) {
    html += std::string(html.empty() ? "" : " ") + "<a class=\"eval-link verdict-" + VerdictClass(*e) + "\" href=\"#" +
            EvaluationAnchor(*e) + "\">" + EscapeXml(e->task) + " " + EscapeXml(e->Verdict()) + "</a>";
  }
  return html;
}

std::string EvaluationsSection(const std::vector<const Evaluation*>& evaluations) {
  if (evaluations.empty()) return "";
  const ScoreAxis axis = AxisOf(evaluations);
  std::string html =
      "<section class=\"evaluations\" id=\"evaluations\">\n<h2>Accuracy evaluations (" +
      std::to_string(evaluations.size()) +
      ")</h2>\n<div class=\"note eval-note\">Each row is one accuracy evaluation of a configuration (the points "
      "of that configuration link here). The dot is the gated score (" +
      EscapeXml(evaluations.front()->metric.empty() ? std::string("exact_match,strict-match")
                                                    : evaluations.front()->metric) +
      " for GSM8K), the bar ±1 standard error, the dashed red line the threshold it is gated by (InferenceX's "
      "thresholds.yaml: the model's own, else the task's default); the axis runs from " +
      FixedPlaces(axis.lo, 2) + " to " + FixedPlaces(axis.hi, 2) +
      ". Evaluations that were not run (a server without weights), INVALID (too many failed requests) or "
      "stopped early have no score and are shown as such, never as 0.</div>\n"
      "<div class=\"table-wrap\"><table class=\"evaluations\"><thead><tr><th class=\"l\">configuration</th>"
      "<th class=\"l\">task</th><th class=\"l\">score</th><th>score ± stderr</th><th>flexible</th>"
      "<th>threshold</th><th>n</th><th class=\"l\">verdict</th><th class=\"l\">reasons</th>"
      "<th class=\"l\">origin</th><th class=\"l\">date</th><th class=\"l\">run</th></tr></thead><tbody>\n";
  for (const Evaluation* e : evaluations) {
    std::string reasons;
    for (const std::string& r : e->reasons) reasons += (reasons.empty() ? "" : "; ") + r;
    const std::string cls = VerdictClass(*e);
    html += "<tr id=\"" + EvaluationAnchor(*e) + "\" class=\"eval " + cls + "\"><td class=\"l wrap\">" +
            EscapeXml(Configuration(*e)) + "</td><td class=\"l\">" + EscapeXml(e->task) + "</td><td class=\"l\">" +
            Bar(*e, axis) + "</td><td>" + EscapeXml(ScoreText(*e)) + "</td><td>" +
            (e->Scored() && e->flexible_score ? FixedPlaces(*e->flexible_score, 4) : "-") + "</td><td>" +
            (e->threshold ? FixedPlaces(*e->threshold, 2) + " (" + EscapeXml(e->threshold_source) + ")" : "-") +
            "</td><td>" + (e->n ? std::to_string(*e->n) : "-") + "</td><td class=\"l verdict-" + cls + "\">" +
            EscapeXml(e->Verdict()) + "</td><td class=\"l verdict\">" + EscapeXml(reasons) + "</td><td class=\"l\">" +
            EscapeXml(e->origin) + "</td><td class=\"l\">" + EscapeXml(e->date) + "</td><td class=\"l\">" +
            EscapeXml(e->run_key) + "</td></tr>\n";
  }
  return html + "</tbody></table></div>\n</section>\n";
}

}  // namespace infermark::results
