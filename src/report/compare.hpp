// Comparing a candidate run with a baseline: point by point on the natural key, and frontier
// against frontier (tok/s/GPU vs interactivity per hardware/framework/precision/spec group), with
// a noise threshold below which a change is not a regression.
#pragma once

#include <string>
#include <vector>

#include "results/point.hpp"

namespace infermark::results {

/// How strict a comparison is.
struct CompareOptions {
  double threshold = 0.05;  ///< Relative change (0.05 = 5 %) within which a difference counts as noise.
};

/// One metric of one matched point.
struct MetricDelta {
  std::string metric;            ///< e.g. `tput_per_gpu`.
  std::string unit;              ///< e.g. `tok/s/GPU`.
  bool higher_is_better = true;  ///< Direction of "better".
  double baseline = 0;           ///< Baseline value (de-scaled).
  double candidate = 0;          ///< Candidate value (de-scaled).
  double change = 0;             ///< (candidate − baseline) / baseline; 0 when the baseline is 0.
  bool regression = false;       ///< Worse by more than the threshold.
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
  bool regression = false;   ///< Worse by more than the threshold.
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
};

/// Compares `candidate` with `baseline` (both de-scaled by their time scales). Points match on their
/// natural key, so agentic points (keyed by scenario, offload mode and users) only ever meet agentic
/// points; they are compared on throughput, P50 E2E-normalized and full-response interactivity,
/// TTFT (P50, P90) and median E2E latency, and their frontiers on P50 E2E-normalized interactivity.
Comparison CompareRuns(const std::vector<Point>& baseline, const std::vector<Point>& candidate,
                       const CompareOptions& options);

/// The comparison as text tables for a terminal; `verbose` lists every matched point, not only
/// those that changed beyond the threshold.
std::string FormatComparison(const Comparison& comparison, const CompareOptions& options, bool verbose);

/// Reads a threshold: `5%` is 5 %, `0.05` a fraction; a bare number of 1 or more is taken as
/// percent. Throws InputError for anything else or a negative value.
double ParseThreshold(const std::string& text);

}  // namespace infermark::results
