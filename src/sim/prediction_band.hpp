// The model-error band of a prediction: calibration's held-out residuals of the deployment's
// framework on its vendor's GPUs (else pooled) put around each predicted figure, in the result
// document (`infermark.prediction_band`) and in the processed figures. Predictions on a
// framework's uncalibrated priors get none: no held-out residual measures them.
#pragma once

#include "calibration/prediction_band.hpp"
#include "core/json_text.hpp"
#include "perfmodel/deployment.hpp"
#include "sim/predict.hpp"

namespace infermark::sim {

/// The band group a prediction on `deployment` takes from `bands`, or nullptr when none applies
/// (no bands, or factors that are the framework's priors).
const calibration::BandGroup* BandGroupFor(const perfmodel::Deployment& deployment,
                                           const calibration::PredictionBands& bands);

/// `figures`' bands under `group`.
FigureBands BandsOfFigures(const PredictedFigures& figures, const calibration::BandGroup& group);

/// Puts the bands of `deployment`'s group on a prediction: `result["infermark"]["prediction_band"]`
/// (every banded key of the client result) and `figures.band`. Returns false, changing nothing,
/// when no band applies (BandGroupFor).
bool AddPredictionBand(Json& result, PredictedFigures& figures, const perfmodel::Deployment& deployment,
                       const calibration::PredictionBands& bands);

}  // namespace infermark::sim
