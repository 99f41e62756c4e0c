// The rule every comparison flags changes by: the test the evidence allows (repeats on both
// sides, on one side, the series' history, nothing), the verdict at alpha and the minimum effect,
// the direction of "worse" per metric, and the evidence stated with the verdict.
#include "report/change_detection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace infermark::results {
namespace {

ChangeSample Repeats(double centre, std::vector<double> factors) {
  ChangeSample s;
  for (double& f : factors) f *= centre;
  s.repeats = factors;
  std::vector<double> sorted = factors;
  std::sort(sorted.begin(), sorted.end());
  s.value = sorted[sorted.size() / 2];
  return s;
}

TEST(ChangeDetection, RepeatsOnBothSidesAreComparedWithWelchsTest) {
  const ChangeRules rules;
  const ChangeEvidence loss =
      JudgeChange(Repeats(1000, {1.0, 0.99, 1.01}), Repeats(900, {1.0, 0.99, 1.01}), {}, true, rules);
  EXPECT_EQ(loss.status, ChangeStatus::kRegression);
  EXPECT_EQ(loss.test, "welch-log");
  EXPECT_NEAR(loss.change, -0.10, 1e-12);
  ASSERT_TRUE(loss.p_value && loss.low && loss.high);
  EXPECT_LT(*loss.p_value, 1e-3);  // t = ln 0.9 / (0.01 sqrt(2/3)) = -12.9 on 4 degrees of freedom
  EXPECT_LT(*loss.low, -0.10);
  EXPECT_GT(*loss.high, -0.10);
  EXPECT_EQ(loss.baseline_repeats, 3);
  EXPECT_EQ(loss.candidate_repeats, 3);
  EXPECT_EQ(loss.history, 0);
  EXPECT_NE(loss.Describe().find("welch-log p="), std::string::npos) << loss.Describe();
  EXPECT_NE(loss.Describe().find("-10.0%"), std::string::npos) << loss.Describe();
  EXPECT_NE(loss.Describe().find("repeats 3/3"), std::string::npos) << loss.Describe();
  // The same loss on a latency (lower is better) is an improvement, and a gain a regression.
  EXPECT_EQ(JudgeChange(Repeats(1000, {1.0, 0.99, 1.01}), Repeats(900, {1.0, 0.99, 1.01}), {}, false, rules).status,
            ChangeStatus::kImprovement);
  EXPECT_EQ(JudgeChange(Repeats(1000, {1.0, 0.99, 1.01}), Repeats(1100, {1.0, 0.99, 1.01}), {}, false, rules).status,
            ChangeStatus::kRegression);
}

TEST(ChangeDetection, SmallOrNoisyChangesAreNotRegressions) {
  const ChangeRules rules;
  // Real (significant) but 2 %: below the minimum effect worth reporting.
  const ChangeEvidence small =
      JudgeChange(Repeats(1000, {1.0, 0.999, 1.001}), Repeats(980, {1.0, 0.999, 1.001}), {}, true, rules);
  EXPECT_LT(*small.p_value, 0.05);
  EXPECT_EQ(small.status, ChangeStatus::kUnchanged);
  // Nothing changed and the interval rules out 5 %: unchanged.
  const ChangeEvidence same =
      JudgeChange(Repeats(1000, {1.0, 0.99, 1.01}), Repeats(1000, {1.01, 1.0, 0.99}), {}, true, rules);
  EXPECT_EQ(same.status, ChangeStatus::kUnchanged);
  EXPECT_GT(*same.low, -0.05);
  EXPECT_LT(*same.high, 0.05);
  // ±20 % between repeats: a 10 % loss is neither shown nor ruled out.
  const ChangeEvidence noisy =
      JudgeChange(Repeats(1000, {1.0, 0.8, 1.2}), Repeats(900, {1.0, 0.8, 1.2}), {}, true, rules);
  EXPECT_EQ(noisy.status, ChangeStatus::kInconclusive);
  EXPECT_GT(*noisy.p_value, 0.05);
  // A larger minimum effect leaves a real 10 % loss unreported.
  ChangeRules loose;
  loose.min_effect = 0.15;
  EXPECT_EQ(JudgeChange(Repeats(1000, {1.0, 0.99, 1.01}), Repeats(900, {1.0, 0.99, 1.01}), {}, true, loose).status,
            ChangeStatus::kUnchanged);
}

TEST(ChangeDetection, OneRepeatedSideJudgesTheOthersSingleValue) {
  const ChangeRules rules;
  ChangeSample once;
  once.value = 880;
  const ChangeEvidence base_repeated =
      JudgeChange(Repeats(1000, {1.0, 0.99, 1.01, 0.995, 1.005}), once, {}, true, rules);
  EXPECT_EQ(base_repeated.test, "prediction-log");
  EXPECT_EQ(base_repeated.status, ChangeStatus::kRegression);
  EXPECT_EQ(base_repeated.candidate_repeats, 1);
  EXPECT_EQ(base_repeated.baseline_repeats, 5);
  // The other way round: the candidate's repeats against the baseline's value, as a ratio cand / base.
  ChangeSample base_once;
  base_once.value = 1000;
  const ChangeEvidence cand_repeated =
      JudgeChange(base_once, Repeats(880, {1.0, 0.99, 1.01, 0.995, 1.005}), {}, true, rules);
  EXPECT_EQ(cand_repeated.test, "prediction-log");
  EXPECT_EQ(cand_repeated.status, ChangeStatus::kRegression);
  EXPECT_LT(*cand_repeated.low, -0.12 + 1e-9);
  EXPECT_GT(*cand_repeated.high, -0.12 - 1e-9);
  EXPECT_LT(*cand_repeated.high, 0);
}

TEST(ChangeDetection, WithoutRepeatsTheHistoryDecidesElseItIsInconclusive) {
  const ChangeRules rules;
  ChangeSample base;
  base.value = 1000;
  ChangeSample cand;
  cand.value = 900;
  // Nothing to judge the noise by: inconclusive, never a regression.
  const ChangeEvidence blind = JudgeChange(base, cand, {}, true, rules);
  EXPECT_EQ(blind.status, ChangeStatus::kInconclusive);
  EXPECT_EQ(blind.test, "none");
  EXPECT_FALSE(blind.p_value);
  EXPECT_NE(blind.Describe().find("no noise estimate"), std::string::npos);
  // One earlier run and the baseline: too short a history (3 values at least).
  EXPECT_EQ(JudgeChange(base, cand, {1005}, true, rules).test, "none");
  // A quiet history (±0.5 %): the 10 % loss is far outside it.
  const ChangeEvidence quiet = JudgeChange(base, cand, {995, 1005, 1000, 998, 1003}, true, rules);
  EXPECT_EQ(quiet.test, "lookback-log");
  EXPECT_EQ(quiet.history, 6);
  EXPECT_EQ(quiet.status, ChangeStatus::kRegression);
  // A history that swings by 20 %: the same loss is inside the series' own noise.
  const ChangeEvidence swinging = JudgeChange(base, cand, {800, 1200, 950, 1150, 850}, true, rules);
  EXPECT_NE(swinging.status, ChangeStatus::kRegression);
  // A change below the minimum effect is not worth reporting, noise estimate or not.
  ChangeSample close;
  close.value = 980;
  EXPECT_EQ(JudgeChange(base, close, {}, true, rules).status, ChangeStatus::kUnchanged);
}

TEST(ChangeDetection, StatusNames) {
  EXPECT_STREQ(ChangeStatusName(ChangeStatus::kRegression), "regression");
  EXPECT_STREQ(ChangeStatusName(ChangeStatus::kImprovement), "improvement");
  EXPECT_STREQ(ChangeStatusName(ChangeStatus::kUnchanged), "unchanged");
  EXPECT_STREQ(ChangeStatusName(ChangeStatus::kInconclusive), "inconclusive");
}

}  // namespace
}  // namespace infermark::results
