#include "results/evaluation.hpp"

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
  eval.passed = *eval.score >= *eval.threshold;
  if (*eval.passed) return;
  char text[160];
  std::snprintf(text, sizeof text, "%s %.4g < %.4g (%s)", eval.task.c_str(), *eval.score, *eval.threshold,
                eval.threshold_source.c_str());
  const std::string reason = text;
  for (const std::string& r : eval.reasons) {
    if (r == reason) return;
  }
  eval.reasons.push_back(reason);
}

}  // namespace infermark::results
