#include "report/compare_markdown.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace infermark::results {
namespace {

constexpr std::size_t kMaxRows = 40;

std::string Number(double v, const std::string& unit) {
  char text[48];
  std::snprintf(text, sizeof text, unit == "s" ? "%.4f" : "%.1f", v);
  return text;
}

std::string Percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", fraction * 100);
  return text;
}

std::string Interval(const ChangeEvidence& e) {
  if (!e.low || !e.high) return "–";
  return Percent(*e.low) + " … " + Percent(*e.high);
}

std::string PValue(double p) {
  char text[32];
  std::snprintf(text, sizeof text, p < 0.001 ? "%.1e" : "%.3f", p);
  return text;
}

// The test's p-value, and the adjusted one it was judged by when the comparison's tests share alpha.
std::string PValue(const ChangeEvidence& e) {
  if (!e.p_value) return "–";
  std::string text = PValue(*e.p_value);
  if (e.family > 1 && e.p_adjusted) text += " (adj. " + PValue(*e.p_adjusted) + ")";
  return text;
}

std::string Repeats(const ChangeEvidence& e) {
  std::string text = std::to_string(e.baseline_repeats) + " / " + std::to_string(e.candidate_repeats);
  if (e.history > 0) text += " (history " + std::to_string(e.history) + ")";
  return text;
}

// Why a change is inconclusive, for a reader deciding what to do about it.
std::string Why(const ChangeEvidence& e) {
  if (!e.p_value) return "no repeats and too short a history: measure with `--repeats`";
  return "the interval reaches beyond the minimum effect: more repeats would decide";
}

// Markdown table cells may not hold a bar.
std::string Cell(std::string text) {
  for (std::size_t at = text.find('|'); at != std::string::npos; at = text.find('|', at + 2))
    text.replace(at, 1, "\\|");
  return text;
}

struct Row {
  std::string what;
  std::string metric;
  std::string unit;
  double baseline;
  double candidate;
  const ChangeEvidence* evidence;
};

std::string ChangeTable(const std::vector<Row>& rows, bool inconclusive) {
  std::string out =
      inconclusive ? "| point | metric | baseline | candidate | change | interval | repeats (b / c) | why |\n"
                     "|---|---|---:|---:|---:|---|---|---|\n"
                   : "| point | metric | baseline | candidate | change | 95% interval | test | p | repeats (b / c) "
                     "|\n|---|---|---:|---:|---:|---|---|---:|---|\n";
  for (std::size_t i = 0; i < rows.size() && i < kMaxRows; ++i) {
    const Row& r = rows[i];
    const ChangeEvidence& e = *r.evidence;
    out += "| " + Cell(r.what) + " | " + r.metric + " | " + Number(r.baseline, r.unit) + " | " +
           Number(r.candidate, r.unit) + " | " + (e.status == ChangeStatus::kRegression ? "**" : "") +
           Percent(e.change) + (e.status == ChangeStatus::kRegression ? "**" : "") + " | " + Interval(e) + " | ";
    out +=
        inconclusive ? Repeats(e) + " | " + Why(e) + " |\n" : e.test + " | " + PValue(e) + " | " + Repeats(e) + " |\n";
  }
  if (rows.size() > kMaxRows) out += "\n_" + std::to_string(rows.size() - kMaxRows) + " more not shown._\n";
  return out;
}

}  // namespace

std::string ComparisonMarkdown(const Comparison& c, const EvaluationComparison& evaluations,
                               const CompareOptions& options, const ComparedRuns& runs) {
  std::vector<Row> significant;
  std::vector<Row> inconclusive;
  for (const PointComparison& p : c.points) {
    for (const MetricDelta& d : p.deltas) {
      const Row row{p.key.Canonical(), d.metric, d.unit, d.baseline, d.candidate, &d.evidence};
      if (d.evidence.status == ChangeStatus::kRegression || d.evidence.status == ChangeStatus::kImprovement) {
        significant.push_back(row);
      } else if (d.evidence.status == ChangeStatus::kInconclusive) {
        inconclusive.push_back(row);
      }
    }
  }
  for (const FrontierSample& s : c.frontier) {
    const Row row{s.scenario + " · " + s.group + " @ " + Number(s.interactivity, "") + " tok/s/user",
                  "frontier tok/s/GPU",
                  "tok/s/GPU",
                  s.baseline,
                  s.candidate,
                  &s.evidence};
    if (s.evidence.status == ChangeStatus::kRegression || s.evidence.status == ChangeStatus::kImprovement) {
      significant.push_back(row);
    } else if (s.evidence.status == ChangeStatus::kInconclusive) {
      inconclusive.push_back(row);
    }
  }
  // Regressions first.
  std::stable_sort(significant.begin(), significant.end(), [](const Row& a, const Row& b) {
    return (a.evidence->status == ChangeStatus::kRegression) > (b.evidence->status == ChangeStatus::kRegression);
  });
  int failed_evals = 0;
  for (const EvaluationChange& e : evaluations.changes) failed_evals += e.regression ? 1 : 0;
  const int regressions = c.point_regressions + c.frontier_regressions;

  std::string out = "## infermark: performance comparison\n\n";
  out += "**Baseline:** " + Cell(runs.baseline) + "  \n**Candidate:** " + Cell(runs.candidate) + "\n\n";
  if (regressions + failed_evals > 0) {
    out += ":x: **" + std::to_string(c.point_regressions) + " point(s) and " + std::to_string(c.frontier_regressions) +
           " frontier sample(s) regressed significantly; " + std::to_string(failed_evals) +
           " evaluation(s) failed their gate.**\n\n";
  } else {
    out += ":white_check_mark: **No significant regression.**\n\n";
  }
  char rules[300];
  std::snprintf(rules, sizeof rules,
                "A change is flagged when a test finds it at alpha %.2f%s and it is at least %.1f%% (the minimum "
                "effect). %zu point(s) matched; %d significant improvement(s); %d inconclusive.\n\n",
                options.rules.alpha,
                options.rules.multiple == MultipleTests::kBenjaminiHochberg
                    ? " (p-values adjusted over the comparison's tests, Benjamini-Hochberg)"
                : options.rules.multiple == MultipleTests::kHolm
                    ? " (p-values adjusted over the comparison's tests, Holm)"
                    : "",
                options.rules.min_effect * 100, c.points.size(), c.improvements, c.inconclusive);
  out += rules;
  out += "### Significant changes\n\n";
  out += significant.empty() ? "None.\n\n" : ChangeTable(significant, false) + "\n";
  out += "### Inconclusive\n\n";
  out += inconclusive.empty() ? "None.\n\n" : ChangeTable(inconclusive, true) + "\n";

  // The frontier's shift: at the chosen interactivities, else three samples per series.
  out += "### Frontier shift (tok/s/GPU at equal interactivity)\n\n";
  std::map<std::pair<std::string, std::string>, std::vector<const FrontierSample*>> by_series;
  for (const FrontierSample& s : c.frontier) by_series[{s.scenario, s.group}].push_back(&s);
  if (by_series.empty()) {
    out += "No series has frontiers in both runs over a common interactivity range.\n\n";
  } else {
    out +=
        "| scenario | series | tok/s/user | baseline | candidate | change | verdict |\n"
        "|---|---|---:|---:|---:|---:|---|\n";
    std::size_t rows = 0;
    std::size_t left_out = 0;
    for (const auto& [series, samples] : by_series) {
      std::vector<const FrontierSample*> shown = samples;
      if (options.interactivities.empty() && samples.size() > 3) {
        shown = {samples.front(), samples[samples.size() / 2], samples.back()};
      }
      for (const FrontierSample* s : shown) {
        if (rows++ >= kMaxRows) {
          ++left_out;
          continue;
        }
        out += "| " + Cell(series.first) + " | " + Cell(series.second) + " | " + Number(s->interactivity, "") + " | " +
               Number(s->baseline, "") + " | " + Number(s->candidate, "") + " | " + Percent(s->change) + " | " +
               ChangeStatusName(s->evidence.status) + " |\n";
      }
    }
    if (left_out > 0) out += "\n_" + std::to_string(left_out) + " more not shown._\n";
    out += "\n";
  }

  out += "### Evaluations that failed their gate\n\n";
  if (failed_evals == 0) {
    out += evaluations.changes.empty() ? "No evaluations.\n" : "None.\n";
  } else {
    out += "| configuration / task | baseline | candidate | why |\n|---|---|---|---|\n";
    for (const EvaluationChange& e : evaluations.changes) {
      if (!e.regression) continue;
      out += "| " + Cell(e.key) + " | " + (e.baseline ? ScoreText(*e.baseline) : "–") + " | " +
             (e.candidate ? ScoreText(*e.candidate) : "–") + " | " + Cell(e.note) + " |\n";
    }
  }
  return out;
}

}  // namespace infermark::results
