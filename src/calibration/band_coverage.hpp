// How often measurements fall inside their prediction bands, on points the bands never saw:
// protocol (c)'s points (an architecture no fit and no band used), and each hardware key's
// residuals checked against bands built without that key. A band of the p10 and p90 of held-out
// residuals should hold about 80 % of such measurements; less means the held-out residuals
// understate the error of that kind of prediction.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/held_out.hpp"

namespace infermark::calibration {

/// The coverage of one group of points.
struct CoverageRow {
  std::string scope;         ///< `framework/vendor` of the points, or `all`.
  std::string band;          ///< The band scope(s) they were checked against (`vllm/amd`, `pooled`, joined by `+`).
  std::size_t points = 0;    ///< Points checked.
  double throughput = 0;     ///< Share whose measured tok/s/GPU lies inside its band.
  double interactivity = 0;  ///< Share whose measured interactivity lies inside its band.
  double latency = 0;        ///< Share whose measured end-to-end latency lies inside its band.
};

/// True when the measurement of `family`'s figure lies inside the band `group` gives the
/// prediction (edges included).
bool InsideBand(const HeldOutPrediction& prediction, const BandGroup& group, BandFamily family);

/// Coverage of `bands` on the predictions of `protocols` (each checked against the band of its
/// framework and vendor): one row per framework × vendor in name order, then `all`.
std::vector<CoverageRow> BandCoverage(const PredictionBands& bands, const std::vector<HeldOutPrediction>& predictions,
                                      std::string_view protocols = "c");

/// Coverage of bands built without each hardware key on that key's residuals (kBandProtocols),
/// summed per framework × vendor and over all: whether the bands hold for a GPU and
/// framework whose points never entered them.
std::vector<CoverageRow> LeaveKeyOutCoverage(const std::vector<HeldOutPrediction>& predictions,
                                             std::size_t min_residuals = kMinBandResiduals);

/// A markdown table of `rows` (shares as percentages).
std::string CoverageTable(const std::vector<CoverageRow>& rows);

/// A markdown table of `bands`' groups, then the pooled one: each family's band as the
/// percentages it puts around a prediction (e^p10 − 1 to e^p90 − 1).
std::string BandsTable(const PredictionBands& bands);

/// Whether two sets of bands agree: the same groups with the same residual counts, and quantiles
/// within `tolerance` (a bands file keeps six decimals).
bool SameBands(const PredictionBands& a, const PredictionBands& b, double tolerance = 1e-6);

}  // namespace infermark::calibration
