// Comparing a candidate run with a baseline: point by point on the natural key, and frontier
// against frontier (tok/s/GPU vs interactivity per hardware/framework/precision/spec group). A
// change is flagged only when it lies outside the noise (report/change_detection.hpp): the points'
// repeats, else the series' history in earlier runs, else it is inconclusive; the minimum effect
// is only the smallest change worth reporting.
#pragma once

#include <string>
#include <vector>

#include "report/change_detection.hpp"
#include "results/point.hpp"

namespace infermark::results {

/// How strict a comparison is and where it reads frontiers.
struct CompareOptions {
  ChangeRules rules;      ///< Minimum effect, significance level, shortest lookback.
  int history_runs = 10;  ///< Earlier runs a series' lookback reads at most (K), besides the baseline.
  /// Interactivities (tok/s/user) where the frontiers are read; empty: every frontier point of
  /// either run inside both frontiers' range.
  std::vector<double> interactivities;
};

/// One metric of one matched point.
struct MetricDelta {
  std::string metric;            ///< e.g. `tput_per_gpu`.
  std::string unit;              ///< e.g. `tok/s/GPU`.
  bool higher_is_better = true;  ///< Direction of "better".
  double baseline = 0;           ///< Baseline value (de-scaled; a repeated point's median).
  double candidate = 0;          ///< Candidate value (de-scaled).
  double change = 0;             ///< (candidate − baseline) / baseline; 0 when the baseline is 0.
  ChangeEvidence evidence;       ///< The test behind the verdict.
  bool regression = false;       ///< evidence.status is a regression.
};

/// A point present in both runs.
struct PointComparison {
  PointKey key;                     ///< The shared natural key.
  std::vector<MetricDelta> deltas;  ///< One per compared metric.
  bool regression = false;          ///< Any delta regressed.
};

/// The candidate's frontier read against the baseline's at one interactivity.
struct FrontierSample {
  std::string scenario;      ///< Model and ISL/OSL.
  std::string group;         ///< Hardware, framework, precision, spec decoding (offload mode for agentic; the
                             ///< deployment, e.g. `disagg 1P1D tp4/tp4`, for multi-node points).
  double interactivity = 0;  ///< tok/s/user where both frontiers were read (DefaultInteractivity).
  double baseline = 0;       ///< Baseline frontier tok/s/GPU there.
  double candidate = 0;      ///< Candidate frontier tok/s/GPU there.
  double change = 0;         ///< Relative change.
  ChangeEvidence evidence;   ///< The test behind the verdict (repeats: a frontier per repeat).
  bool regression = false;   ///< evidence.status is a regression.
  bool agentic = false;      ///< An agentic scenario: interactivity is the P50 E2E-normalized one.
};

/// Everything a comparison found.
struct Comparison {
  std::vector<PointComparison> points;      ///< Matched points, in natural-key order.
  std::vector<FrontierSample> frontier;     ///< Frontier samples where both frontiers overlap.
  std::vector<std::string> only_baseline;   ///< Point keys missing from the candidate.
  std::vector<std::string> only_candidate;  ///< Point keys new in the candidate.
  int point_regressions = 0;                ///< Matched points with a regression.
  int frontier_regressions = 0;             ///< Frontier samples with a regression.
  int improvements = 0;                     ///< Metrics and frontier samples significantly better.
  int inconclusive = 0;                     ///< Metrics and frontier samples whose change is inconclusive.
};

/// Compares `candidate` with `baseline` (both de-scaled by their time scales). Points match on their
/// natural key, so agentic points (keyed by scenario, offload mode and users) only ever meet agentic
/// points; they are compared on throughput, P50 E2E-normalized and full-response interactivity,
/// TTFT (P50, P90) and median E2E latency, and their frontiers on P50 E2E-normalized interactivity.
/// `history` holds the runs before the baseline, oldest first (the lookback of points without
/// repeats; the last `options.history_runs` are read).
Comparison CompareRuns(const std::vector<Point>& baseline, const std::vector<Point>& candidate,
                       const CompareOptions& options, const std::vector<std::vector<Point>>& history = {});

/// The comparison as text tables for a terminal; `verbose` lists every matched point, not only
/// those whose change is a regression, an improvement or inconclusive.
std::string FormatComparison(const Comparison& comparison, const CompareOptions& options, bool verbose);

/// Reads `--min-effect-percent`: a number of percent (`5`, `2.5`, `5%`). Throws InputError naming
/// the flag for anything else or a negative value.
double ParseMinEffectPercent(const std::string& text);

}  // namespace infermark::results
