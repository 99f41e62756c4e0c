#include "report/eval_compare.hpp"

#include <cmath>
#include <cstdio>
#include <map>

namespace infermark::results {
namespace {

std::string FormatFixed(double v, int digits) {
  char text[48];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string PadTo(std::string s, std::size_t width) {
  s.append(s.size() < width ? width - s.size() : 1, ' ');
  return s;
}

}  // namespace

std::string ScoreText(const Evaluation& e) {
  if (!e.Scored()) return e.Verdict();
  return FormatFixed(*e.score, 4) + (e.score_stderr ? " ± " + FormatFixed(*e.score_stderr, 4) : "");
}

EvaluationComparison CompareEvaluations(const std::vector<Evaluation>& baseline,
                                        const std::vector<Evaluation>& candidate) {
  EvaluationComparison out;
  std::map<std::string, const Evaluation*> base;
  for (const Evaluation& e : baseline) base[e.EvalKey()] = &e;
  std::map<std::string, bool> matched;
  for (const Evaluation& c : candidate) {
    EvaluationChange change;
    change.key = c.EvalKey();
    change.candidate = c;
    if (const auto it = base.find(change.key); it != base.end()) {
      const Evaluation& b = *it->second;
      change.baseline = b;
      matched[change.key] = true;
      if (b.Scored() && c.Scored()) {
        change.delta = *c.score - *b.score;
        if (b.score_stderr && c.score_stderr) {
          change.delta_stderr = std::sqrt(*b.score_stderr * *b.score_stderr + *c.score_stderr * *c.score_stderr);
        }
        if (change.delta_stderr && *change.delta < -2 * *change.delta_stderr) {
          change.regression = true;
          change.note = "drop of " + FormatFixed(-*change.delta, 4) + " > 2 stderr (" +
                        FormatFixed(2 * *change.delta_stderr, 4) + ")";
        }
      } else if (b.status != c.status) {
        change.note = std::string(EvalStatusName(b.status)) + " -> " + EvalStatusName(c.status);
      }
    }
    if (c.Scored() && c.passed == false) {
      change.regression = true;
      change.note += (change.note.empty() ? "" : "; ") + std::string("below threshold ") +
                     FormatFixed(*c.threshold, 2) + " (" + c.threshold_source + ")";
    }
    if (!change.baseline && change.note.empty()) change.note = "new";
    if (change.regression) ++out.regressions;
    out.changes.push_back(std::move(change));
  }
  for (const Evaluation& b : baseline) {
    if (matched.count(b.EvalKey()) != 0) continue;
    EvaluationChange change;
    change.key = b.EvalKey();
    change.baseline = b;
    change.note = "missing in the candidate";
    out.changes.push_back(std::move(change));
  }
  return out;
}

std::string FormatEvaluationComparison(const EvaluationComparison& comparison) {
  if (comparison.changes.empty()) return "";
  std::string out = "evaluations:\n" + PadTo("configuration / task", 100) + PadTo("baseline", 20) +
                    PadTo("candidate", 20) + PadTo("change", 20) + "flag\n";
  for (const EvaluationChange& c : comparison.changes) {
    const std::string base = c.baseline ? ScoreText(*c.baseline) : "-";
    const std::string cand = c.candidate ? ScoreText(*c.candidate) : "-";
    std::string delta = "-";
    if (c.delta) {
      delta = (*c.delta >= 0 ? "+" : "") + FormatFixed(*c.delta, 4) +
              (c.delta_stderr ? " ± " + FormatFixed(*c.delta_stderr, 4) : "");
    }
    out += PadTo(c.key, 100) + PadTo(base, 20) + PadTo(cand, 20) + PadTo(delta, 20) +
           (c.regression ? "REGRESSION: " : "") + c.note + "\n";
  }
  out += std::to_string(comparison.regressions) + " evaluation regression(s)\n";
  return out;
}

}  // namespace infermark::results
