#include "report/change_detection.hpp"

#include <algorithm>
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

// The status of a tested change whose p-value held against alpha is `p`.
ChangeStatus Classify(const ChangeEvidence& e, double p, const ChangeRules& rules) {
  const bool significant = p < rules.alpha;
  if (significant && std::fabs(e.estimate) >= rules.min_effect) {
    const bool worse = e.higher_is_better ? e.estimate < 0 : e.estimate > 0;
    return worse ? ChangeStatus::kRegression : ChangeStatus::kImprovement;
  }
  if (significant || (*e.low >= -rules.min_effect && *e.high <= rules.min_effect)) {
    // Real but smaller than worth reporting, or the interval rules out any change that large.
    return ChangeStatus::kUnchanged;
  }
  return ChangeStatus::kInconclusive;
}

std::string PValue(double p) {
  char text[32];
  std::snprintf(text, sizeof text, p < 0.001 ? "%.1e" : "%.3f", p);
  return text;
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
    out = test + " p=" + PValue(*p_value);
    if (family > 1 && p_adjusted) out += " (adjusted " + PValue(*p_adjusted) + " of " + std::to_string(family) + ")";
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
  out.higher_is_better = higher_is_better;
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
  out.p_adjusted = test->p_value;
  out.low = test->ratio_low - 1;
  out.high = test->ratio_high - 1;
  out.estimate = test->ratio - 1;
  out.status = Classify(out, test->p_value, rules);
  return out;
}

void AdjustForMultipleTests(const std::vector<ChangeEvidence*>& family, const ChangeRules& rules) {
  if (rules.multiple == MultipleTests::kNone) return;
  std::vector<ChangeEvidence*> tested;
  for (ChangeEvidence* e : family) {
    if (e != nullptr && e->p_value) tested.push_back(e);
  }
  std::stable_sort(tested.begin(), tested.end(),
                   [](const ChangeEvidence* a, const ChangeEvidence* b) { return *a->p_value < *b->p_value; });
  const std::size_t m = tested.size();
  std::vector<double> adjusted(m);
  if (rules.multiple == MultipleTests::kHolm) {
    double running = 0;
    for (std::size_t i = 0; i < m; ++i) {
      running = std::max(running, std::min(1.0, static_cast<double>(m - i) * *tested[i]->p_value));
      adjusted[i] = running;
    }
  } else {
    double running = 1;
    for (std::size_t i = m; i-- > 0;) {
      running = std::min(running, static_cast<double>(m) * *tested[i]->p_value / static_cast<double>(i + 1));
      adjusted[i] = running;
    }
  }
  for (std::size_t i = 0; i < m; ++i) {
    ChangeEvidence& e = *tested[i];
    e.p_adjusted = adjusted[i];
    e.family = static_cast<int>(m);
    e.status = Classify(e, adjusted[i], rules);
  }
}

}  // namespace infermark::results
