// Every held-out prediction of a calibration beside its measurement: what the report summarizes,
// what the prediction bands are built from (protocol (a)) and what their coverage is checked on
// (protocol (c), points no fit and no band ever saw). `engine calibrate` writes them
// as a CSV (data/engine/bands/held_out.csv), so that bands and coverage can be recomputed from
// the file alone.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "calibration/calibration.hpp"
#include "calibration/prediction_band.hpp"

namespace infermark::calibration {

/// The held-out CSV's name beside the bands file.
inline constexpr const char* kHeldOutFile = "held_out.csv";

/// One held-out prediction and the measurement it predicted.
struct HeldOutPrediction {
  std::string protocol;    ///< `a` (model left out), `b` (GPU left out) or `c` (architecture held out).
  std::string fold;        ///< The fold's description.
  std::string model;       ///< Catalog model.
  std::string hw_key;      ///< Hardware key of the measurement (`h200_trt`).
  std::string framework;   ///< Framework that served it (`trt`).
  std::string vendor;      ///< Vendor of its GPU (`nvidia`).
  std::string precision;   ///< `fp8`, `fp4`.
  int isl = 0;             ///< Input length.
  int osl = 0;             ///< Output length.
  int tp = 0;              ///< GPUs.
  int conc = 0;            ///< Concurrency.
  double meas_tput = 0;    ///< Measured tok/s/GPU.
  double pred_tput = 0;    ///< Predicted tok/s/GPU.
  double meas_intvty = 0;  ///< Measured median interactivity, tok/s/user.
  double pred_intvty = 0;  ///< Predicted median interactivity.
  double meas_e2el = 0;    ///< Measured median end-to-end latency, s.
  double pred_e2el = 0;    ///< Predicted median end-to-end latency.
  int line = 0;            ///< Line in the CSV it was read from (0 when computed).

  /// ln(measured / predicted) of `family`'s figure.
  [[nodiscard]] double Residual(BandFamily family) const;
};

/// Appends the held-out predictions of `folds` (over `calibrator`'s points), marked `protocol`.
void AppendHeldOut(std::vector<HeldOutPrediction>& out, const char* protocol, const Calibrator& calibrator,
                   const std::vector<Fold>& folds);

/// The CSV text of `predictions` (one header line, then one line each).
std::string HeldOutCsv(const std::vector<HeldOutPrediction>& predictions);

/// Reads a held-out CSV strictly; throws InputError (file:line, column, rule).
std::vector<HeldOutPrediction> LoadHeldOutCsv(const std::string& path);

/// The protocol whose residuals make the bands: a model left out. Nearly every prediction is of a
/// model no calibration point comes from (the calibration set holds two), and a fold of (a)
/// predicts exactly that: a model its fit never saw, on a GPU and framework it did. Protocol (b)'s
/// GPU-left-out residuals are narrower and would understate that error (measured: docs/engine-model.md).
inline constexpr const char* kBandProtocols = "a";

/// Bands from the residuals of kBandProtocols: one group per framework × vendor with at least
/// `min_residuals` of them, and the pooled group over all.
PredictionBands BuildPredictionBands(const std::vector<HeldOutPrediction>& predictions,
                                     std::size_t min_residuals = kMinBandResiduals);

}  // namespace infermark::calibration
