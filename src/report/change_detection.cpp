#include "report/change_detection.hpp"

#include <cmath>
#include <cstdio>

#include "core/repeat_stats.hpp"

namespace infermark::results {
namespace {

std::string Percent(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", fraction * 100);
  return text;
}

// The test that fits the evidence, as a ratio candidate / baseline, and which one it was.
std::optional<RatioTest> ChooseTest(const ChangeSample& b, const ChangeSample& c, const std::vector<double>& history,
                                    const ChangeRules& rules, ChangeEvidence& out) {
  const double level = 1 - rules.alpha;
  const bool b_repeated = b.repeats.size() >= 2;
  const bool c_repeated = c.repeats.size() >= 2;
  if (b_repeated && c_repeated) return WelchRatioTest(b.repeats, c.repeats, level);
  if (b_repeated) return PredictionRatioTest(b.repeats, c.value, level);
  if (c_repeated) {
    // The baseline's single value against the candidate's repeats, turned around into cand / base.
    std::optional<RatioTest> t = PredictionRatioTest(c.repeats, b.value, level);
    if (t && t->ratio > 0 && t->ratio_low > 0) {
      const double low = 1 / t->ratio_high;
      t->ratio_high = 1 / t->ratio_low;
      t->ratio_low = low;
      t->ratio = 1 / t->ratio;
      return t;
    }
    return std::nullopt;
  }
  std::vector<double> reference = history;
  reference.push_back(b.value);
  if (static_cast<int>(reference.size()) < rules.min_history) return std::nullopt;
  std::optional<RatioTest> t = PredictionRatioTest(reference, c.value, level);
  if (t) {
    t->method = t->method == "prediction-log" ? "lookback-log" : "lookback";
    out.history = static_cast<int>(reference.size());
  }
  return t;
}

}  // namespace

const char* ChangeStatusName(ChangeStatus status) {
  switch (status) {
    case ChangeStatus::kRegression:
      return "regression";
    case ChangeStatus::kImprovement:
      return "improvement";
    case ChangeStatus::kUnchanged:
      return "unchanged";
    case ChangeStatus::kInconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

std::string ChangeEvidence::Describe() const {
  std::string out;
  if (!p_value) {
    out = "no noise estimate";
  } else {
    char p[32];
    std::snprintf(p, sizeof p, *p_value < 0.001 ? "%.1e" : "%.3f", *p_value);
    out = test + " p=" + p;
  }
  out += ", " + Percent(change);
  if (low && high) out += " [" + Percent(*low) + ", " + Percent(*high) + "]";
  out += ", repeats " + std::to_string(baseline_repeats) + "/" + std::to_string(candidate_repeats);
  if (history > 0) out += ", history " + std::to_string(history);
  return out;
}

ChangeEvidence JudgeChange(const ChangeSample& baseline, const ChangeSample& candidate,
                           const std::vector<double>& history, bool higher_is_better, const ChangeRules& rules) {
  ChangeEvidence out;
  out.baseline_repeats = std::max<int>(1, static_cast<int>(baseline.repeats.size()));
  out.candidate_repeats = std::max<int>(1, static_cast<int>(candidate.repeats.size()));
  out.change = baseline.value != 0 ? (candidate.value - baseline.value) / std::fabs(baseline.value) : 0.0;
  const std::optional<RatioTest> test = ChooseTest(baseline, candidate, history, rules, out);
  if (!test) {
    out.status = std::fabs(out.change) < rules.min_effect ? ChangeStatus::kUnchanged : ChangeStatus::kInconclusive;
    return out;
  }
  out.test = test->method;
  out.p_value = test->p_value;
  out.low = test->ratio_low - 1;
  out.high = test->ratio_high - 1;
  const double estimate = test->ratio - 1;
  const bool significant = test->p_value < rules.alpha;
  if (significant && std::fabs(estimate) >= rules.min_effect) {
    const bool worse = higher_is_better ? estimate < 0 : estimate > 0;
    out.status = worse ? ChangeStatus::kRegression : ChangeStatus::kImprovement;
  } else if (significant || (*out.low >= -rules.min_effect && *out.high <= rules.min_effect)) {
    // Real but smaller than worth reporting, or the interval rules out any change that large.
    out.status = ChangeStatus::kUnchanged;
  } else {
    out.status = ChangeStatus::kInconclusive;
  }
  return out;
}

}  // namespace infermark::results
