#include "results/evaluation.hpp"

#include <algorithm>
#include <cstdio>

namespace infermark::results {

const char* EvalStatusName(EvalStatus status) {
  switch (status) {
    case EvalStatus::kScored:
      return "scored";
    case EvalStatus::kNotRun:
      return "not_run";
    case EvalStatus::kInvalid:
      return "invalid";
    case EvalStatus::kIncomplete:
      return "incomplete";
  }
  return "scored";
}

std::optional<EvalStatus> ParseEvalStatus(const std::string& text) {
  for (EvalStatus s : {EvalStatus::kScored, EvalStatus::kNotRun, EvalStatus::kInvalid, EvalStatus::kIncomplete}) {
    if (text == EvalStatusName(s)) return s;
  }
  return std::nullopt;
}

std::string Evaluation::EvalKey() const {
  return key.Canonical() + " " + task + " evalconc" + std::to_string(eval_concurrency);
}

std::string Evaluation::Verdict() const {
  switch (status) {
    case EvalStatus::kNotRun:
      return "NOT RUN";
    case EvalStatus::kInvalid:
      return "INVALID";
    case EvalStatus::kIncomplete:
      return "INCOMPLETE";
    case EvalStatus::kScored:
      break;
  }
  if (!passed.has_value()) return "NO THRESHOLD";
  return *passed ? "PASS" : "FAIL";
}

bool SameConfiguration(const PointKey& eval, const PointKey& point) {
  const bool lengths = (eval.isl == 0 && eval.osl == 0) || (eval.isl == point.isl && eval.osl == point.osl);
  return !point.Agentic() && lengths && eval.model == point.model && eval.hw == point.hw &&
         eval.framework == point.framework && eval.precision == point.precision &&
         eval.spec_decoding == point.spec_decoding && eval.disagg == point.disagg && eval.topology == point.topology &&
         eval.conc == point.conc;
}

void ApplyThreshold(Evaluation& eval) {
  if (!eval.Scored() || !eval.threshold.has_value()) return;
  // validate_scores.py checks every exact_match score of the file, the flexible filter's too.
  const auto check = [&](const std::optional<double>& score, const char* filter) {
    if (!score || *score >= *eval.threshold) return true;
    char text[192];
    std::snprintf(text, sizeof text, "%s%s %.4g < %.4g (%s)", eval.task.c_str(), filter, *score, *eval.threshold,
                  eval.threshold_source.c_str());
    const std::string reason = text;
    if (std::find(eval.reasons.begin(), eval.reasons.end(), reason) == eval.reasons.end())
      eval.reasons.push_back(reason);
    return false;
  };
  const bool strict = check(eval.score, "");
  const bool flexible = check(eval.flexible_score, " flexible-extract");
  eval.passed = strict && flexible;
}

void ApplyDefaultThreshold(Evaluation& eval, const EvalThresholds* thresholds) {
  if (!eval.threshold && thresholds != nullptr && !eval.task.empty()) {
    const ThresholdRule rule = thresholds->Resolve(eval.task, eval.model_prefix);
    eval.threshold = rule.value;
    eval.threshold_source = rule.SourceName();
  }
  ApplyThreshold(eval);
}

}  // namespace infermark::results
