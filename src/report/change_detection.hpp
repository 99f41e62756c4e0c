// Whether a figure changed between a baseline and a candidate beyond its noise. A fixed percentage
// cannot tell a change from noise (it fires on a noisy configuration and misses a real change on a
// quiet one), so a change is flagged only when a test says it lies outside the noise, and only when
// it is at least the minimum effect worth reporting:
// - repeats on both sides: Welch's t-test on the logarithms of the repeats (the ratio's interval);
// - repeats on one side: whether the other side's single value belongs with them (prediction test);
// - no repeats: the series' own history, the candidate against the baseline and the runs before it
//   (a lookback z-score that knows its history is short, as conbench flags against a lookback);
// - neither: nothing can be said of a change beyond the minimum effect: "inconclusive", never a
//   regression.
// The numerics are core/repeat_stats.hpp's.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace infermark::results {

/// What a change is.
enum class ChangeStatus {
  kRegression,   ///< Worse, significantly and by at least the minimum effect.
  kImprovement,  ///< Better, significantly and by at least the minimum effect.
  kUnchanged,    ///< No change worth reporting: within the minimum effect, or tested and inside it.
  kInconclusive  ///< A change beyond the minimum effect can neither be shown nor ruled out.
};

/// `regression`, `improvement`, `unchanged`, `inconclusive`.
const char* ChangeStatusName(ChangeStatus status);

/// How the tests of one comparison (every metric of every point, every frontier sample) share
/// alpha. With no real change anywhere (an A/A pair), both corrections keep the chance that the
/// comparison flags anything at alpha; each test on its own flags some figure of a large comparison
/// by chance.
enum class MultipleTests {
  kBenjaminiHochberg,  ///< False discovery rate at alpha: a change seen in many figures is found sooner.
  kHolm,               ///< Holm's step-down: any false flag at alpha, whatever else changed.
  kNone                ///< Each test at alpha on its own.
};

/// How strict change detection is.
struct ChangeRules {
  double min_effect = 0.05;  ///< The minimum effect worth reporting, relative (0.05 = 5 %).
  double alpha = 0.05;       ///< Significance level of the tests.
  int min_history = 3;       ///< Fewest values (baseline included) a lookback test reads.
  MultipleTests multiple = MultipleTests::kBenjaminiHochberg;  ///< How a comparison's tests share alpha.
};

/// One side of a comparison: its figure and, when measured several times, every repeat's value.
struct ChangeSample {
  double value = 0;             ///< The figure shown (a repeated point's median).
  std::vector<double> repeats;  ///< Every repeat's value (empty, or one, for a point measured once).
};

/// A change with the evidence behind it.
struct ChangeEvidence {
  ChangeStatus status = ChangeStatus::kInconclusive;  ///< What the change is.
  /// The test: `welch-log` (repeats on both sides), `prediction-log` (repeats on one side),
  /// `lookback-log` (the series' history), their raw-value forms without `-log` when a value is not
  /// positive, or `none`.
  std::string test = "none";
  std::optional<double> p_value;  ///< Two-sided p-value of "no change" (none without a test).
  /// The p-value held against alpha: adjusted among the comparison's `family` tests (rules.multiple),
  /// else p_value.
  std::optional<double> p_adjusted;
  int family = 1;                ///< Tests in the comparison this one was adjusted among.
  double change = 0;             ///< candidate / baseline − 1 of the figures shown.
  double estimate = 0;           ///< The test's estimate of the change (a ratio − 1).
  bool higher_is_better = true;  ///< Direction of "better" for this figure.
  std::optional<double> low;     ///< Lower bound of the change's interval at 1 − alpha (with a test).
  std::optional<double> high;    ///< Upper bound.
  int baseline_repeats = 1;      ///< Measurements behind the baseline.
  int candidate_repeats = 1;     ///< Measurements behind the candidate.
  int history = 0;               ///< Values the lookback read (baseline included); 0 without one.

  /// One line: `welch-log p=0.003, -9.8% [-12.1%, -7.4%], repeats 3/3` (or `no noise estimate`).
  [[nodiscard]] std::string Describe() const;
};

/// Judges `candidate` against `baseline` for a figure where more is better or worse (see the file
/// comment for the test chosen). `history` is the series' values in the runs before the baseline,
/// oldest first (used only when neither side has repeats).
ChangeEvidence JudgeChange(const ChangeSample& baseline, const ChangeSample& candidate,
                           const std::vector<double>& history, bool higher_is_better, const ChangeRules& rules);

/// Holds the tested changes of one comparison to alpha together (rules.multiple) and judges each
/// again on its adjusted p-value; changes without a test keep their status. Of m p-values sorted
/// ascending, the i-th (from 1) is adjusted to min over j >= i of m·p(j)/j (Benjamini–Hochberg) or
/// max over j <= i of (m − j + 1)·p(j) (Holm), capped at 1.
void AdjustForMultipleTests(const std::vector<ChangeEvidence*>& family, const ChangeRules& rules);

}  // namespace infermark::results
