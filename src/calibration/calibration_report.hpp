// What `engine calibrate` reports: the held-out protocols, the noise floor of repeated
// measurements, the profiles fitted on every point and the prediction bands built from the
// held-out residuals with their coverage, as a markdown report and the comment block each written
// profile carries.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibration/calibration.hpp"
#include "calibration/held_out.hpp"
#include "calibration/prediction_band.hpp"

namespace infermark::calibration {

/// Everything one calibration computed.
struct CalibrationOutcome {
  std::vector<Fold> model_left_out;         ///< Protocol (a) (empty when skipped).
  std::vector<Fold> gpu_left_out;           ///< Protocol (b) (empty when skipped).
  const Calibrator* holdout = nullptr;      ///< Points of protocol (c) (null: none given).
  std::vector<Fold> architecture_held_out;  ///< Protocol (c): unseen architectures.
  std::optional<ErrorSummary> noise;        ///< Run-to-run noise, when a repeat file was read.
  std::vector<std::pair<perfmodel::CalibratedProfile, ErrorSummary>>
      profiles;                             ///< Fitted on all points, in-sample errors.
  std::vector<HeldOutPrediction> held_out;  ///< Every held-out prediction of (a), (b) and (c), in that order.
  PredictionBands bands;                    ///< From the residuals of (a) (empty when it was skipped).
};

/// Runs the held-out protocols (unless `skip_protocols`), fits the profiles and, when `holdout` is
/// given, predicts its points with them (protocol (c)); builds the prediction bands from the
/// held-out residuals; `progress` (may be empty) hears a line after each stage.
CalibrationOutcome Calibrate(const Calibrator& calibrator, const FitSettings& settings, bool skip_protocols,
                             const std::vector<RepeatedPoint>& repeats,
                             const std::function<void(const std::string&)>& progress,
                             const Calibrator* holdout = nullptr);

/// The markdown report: summary table, per-fold tables, profiles, prediction bands and their
/// coverage (on protocol (c)'s points and with each hardware key left out), wall time.
std::string CalibrationReport(const Calibrator& calibrator, const CalibrationOutcome& outcome,
                              const std::string& measured_path, double wall_seconds);

/// The report of `engine calibrate --served` (concurrencies held out, ConcurrencyHeldOut): per
/// fold, every point of the group, fitted or held out, with measured and predicted tok/s/GPU and
/// interactivity and the signed error; the held-out medians and worst errors; the fitted factors.
std::string ServedCalibrationReport(const Calibrator& calibrator, const std::vector<Fold>& folds,
                                    const std::string& served_dir);

/// The comment lines a written bands file opens with (where its residuals came from).
std::vector<std::string> BandsComment(const std::string& measured_path);

/// The comment lines a written profile opens with (where it came from and its in-sample error).
std::vector<std::string> ProfileComment(const perfmodel::CalibratedProfile& profile, const ErrorSummary& summary,
                                        const std::string& measured_path);

}  // namespace infermark::calibration
