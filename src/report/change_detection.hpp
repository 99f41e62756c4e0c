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

/// How strict change detection is.
struct ChangeRules {
  double min_effect = 0.05;  ///< The minimum effect worth reporting, relative (0.05 = 5 %).
  double alpha = 0.05;       ///< Significance level of the tests.
  int min_history = 3;       ///< Fewest values (baseline included) a lookback test reads.
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
  double change = 0;              ///< candidate / baseline − 1 of the figures shown.
  std::optional<double> low;      ///< Lower bound of the change's interval at 1 − alpha (with a test).
  std::optional<double> high;     ///< Upper bound.
  int baseline_repeats = 1;       ///< Measurements behind the baseline.
  int candidate_repeats = 1;      ///< Measurements behind the candidate.
  int history = 0;                ///< Values the lookback read (baseline included); 0 without one.

  /// One line: `welch-log p=0.003, -9.8% [-12.1%, -7.4%], repeats 3/3` (or `no noise estimate`).
  [[nodiscard]] std::string Describe() const;
};

/// Judges `candidate` against `baseline` for a figure where more is better or worse (see the file
/// comment for the test chosen). `history` is the series' values in the runs before the baseline,
/// oldest first (used only when neither side has repeats).
ChangeEvidence JudgeChange(const ChangeSample& baseline, const ChangeSample& candidate,
                           const std::vector<double>& history, bool higher_is_better, const ChangeRules& rules);

}  // namespace infermark::results
