#include "eval/thresholds.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "eval/task_data.hpp"

namespace infermark::eval {
namespace {

// Two decimals for thresholds written that way (0.9 → "0.90"), else as many as it takes.
std::string ThresholdText(double v) {
  char buf[32];
  if (std::fabs(v * 100 - std::round(v * 100)) < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.2f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%g", v);
  }
  return buf;
}

}  // namespace

EvalThresholds BuiltInThresholds() {
  return LoadEvalThresholds((std::filesystem::path(EvalDataDir()) / "thresholds.yaml").string());
}

GateVerdict JudgeResults(const Json& file, const EvalThresholds& thresholds, const std::string& prefix) {
  GateVerdict v;
  const auto results = file.find("results");
  if (results != file.end() && results->is_object()) {
    for (const auto& [task, metrics] : results->items()) {
      if (!metrics.is_object()) continue;
      const ThresholdRule rule = thresholds.Resolve(task, prefix);
      for (const auto& [name, value] : metrics.items()) {
        if (name.rfind("exact_match,", 0) != 0 || name.find("stderr") != std::string::npos) continue;
        if (!value.is_number()) continue;
        GateCheck c{task, name, value.get<double>(), rule, true};
        c.passed = !(c.score < rule.value);
        if (!c.passed) v.failures.push_back(FailureText(c, prefix));
        v.checks.push_back(std::move(c));
      }
    }
  }
  if (v.checks.empty()) v.failures.push_back("no exact_match score in the results to check against a threshold");
  v.passed = v.failures.empty();
  return v;
}

std::string FailureText(const GateCheck& c, const std::string& prefix) {
  const std::string threshold = ThresholdText(c.rule.value);
  char score[32];
  std::snprintf(score, sizeof score, "%.2f", c.score);
  // Two decimals unless they would round the score up to the threshold.
  if (std::round(c.score * 100) / 100 >= c.rule.value) std::snprintf(score, sizeof score, "%.4f", c.score);
  const std::string filter = c.metric.substr(c.metric.find(',') + 1);
  std::string source = c.rule.source;
  if (source.rfind("models.", 0) == 0) {
    source = source.substr(7);
  } else if (source == "default" && !prefix.empty() && prefix != "unknown") {
    source = "default, " + prefix + " has no override";
  }
  return c.task + (filter == "strict-match" ? "" : " " + filter) + " " + score + " < " + threshold + " (" + source +
         ")";
}

}  // namespace infermark::eval
