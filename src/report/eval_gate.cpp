#include "report/eval_gate.hpp"

#include <cstdio>

namespace infermark::results {
namespace {

std::string GateScore(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", v);
  return text;
}

std::string JoinedReasons(const std::vector<std::string>& reasons) {
  std::string text;
  for (const std::string& r : reasons) text += (text.empty() ? "" : "; ") + r;
  return text.empty() ? "no reason given" : text;
}

bool Expects(const ExpectedEval& row, const std::string& result_filename) {
  const std::string head = row.prefix + "_";
  return result_filename.size() > head.size() + row.suffix.size() &&
         result_filename.compare(0, head.size(), head) == 0 &&
         result_filename.compare(result_filename.size() - row.suffix.size(), row.suffix.size(), row.suffix) == 0;
}

// Markdown table cells hold no pipes or line breaks.
std::string MarkdownCell(std::string text) {
  for (char& c : text) {
    if (c == '|') c = '/';
    if (c == '\n') c = ' ';
  }
  return text;
}

}  // namespace

GateResult JudgeEvalGate(const std::vector<Evaluation>& evaluations, const EvalThresholds& thresholds,
                         const std::vector<ExpectedEval>& expected) {
  GateResult gate;
  for (const Evaluation& e : evaluations) {
    GateLine line;
    line.what = e.result_filename.empty() ? e.key.Canonical() : e.result_filename;
    line.task = e.task;
    switch (e.status) {
      case EvalStatus::kScored: {
        const ThresholdRule rule = thresholds.Resolve(e.task, e.model_prefix);
        const double threshold = rule.value;
        const std::string source = rule.SourceName();
        const double strict = e.score.value_or(0);
        const bool strict_ok = e.score.has_value() && strict >= threshold;
        const bool flexible_ok = !e.flexible_score || *e.flexible_score >= threshold;
        line.failed = !(strict_ok && flexible_ok);
        line.verdict = line.failed ? "FAIL" : "PASS";
        line.detail = "strict " + (e.score ? GateScore(strict) : std::string("none")) +
                      (e.flexible_score ? ", flexible " + GateScore(*e.flexible_score) : std::string()) +
                      (line.failed ? " below " : " reach ") + GateScore(threshold) + " (" + source + ")";
        break;
      }
      case EvalStatus::kInvalid:
        line.verdict = "INVALID";
        line.failed = true;
        line.detail = JoinedReasons(e.reasons);
        break;
      case EvalStatus::kIncomplete:
        line.verdict = "INCOMPLETE";
        line.failed = true;
        line.detail = JoinedReasons(e.reasons);
        break;
      case EvalStatus::kNotRun:
        line.verdict = "NOT RUN";
        line.detail = JoinedReasons(e.reasons);
        break;
    }
    gate.failures += line.failed ? 1 : 0;
    gate.lines.push_back(std::move(line));
  }
  for (const ExpectedEval& row : expected) {
    bool found = false;
    for (const Evaluation& e : evaluations) found = found || Expects(row, e.result_filename);
    if (found) continue;
    gate.lines.push_back(GateLine{"MISSING", true, row.prefix + "_<runner>" + row.suffix, "",
                                  "the matrix asked for this eval and the run holds none (did its job run?)"});
    ++gate.failures;
  }
  return gate;
}

std::string FormatEvalGate(const GateResult& gate) {
  std::string text;
  for (const GateLine& l : gate.lines) {
    text += l.verdict + "  " + (l.task.empty() ? "" : l.task + "  ") + l.what + "  " + l.detail + "\n";
  }
  if (gate.lines.empty()) text += "no evaluations\n";
  text += gate.failures == 0 ? "eval gate: PASSED\n" : "eval gate: FAILED (" + std::to_string(gate.failures) + ")\n";
  return text;
}

std::string FormatEvalGateMarkdown(const GateResult& gate) {
  std::string md = "### Accuracy gate\n\n";
  if (gate.lines.empty()) {
    md += "No evaluations in this run.\n\n";
  } else {
    md += "| verdict | task | eval | detail |\n|---|---|---|---|\n";
    for (const GateLine& l : gate.lines) {
      md += "| " + (l.failed ? "**" + l.verdict + "**" : l.verdict) + " | " + MarkdownCell(l.task) + " | `" +
            MarkdownCell(l.what) + "` | " + MarkdownCell(l.detail) + " |\n";
    }
    md += "\n";
  }
  md += gate.failures == 0 ? "Eval gate: **passed**.\n"
                           : "Eval gate: **failed** (" + std::to_string(gate.failures) + " evaluation(s)).\n";
  return md;
}

}  // namespace infermark::results
