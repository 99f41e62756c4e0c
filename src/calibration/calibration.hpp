// Calibration: fit the step-time model's efficiency factors to measured benchmark points, and
// measure how well the fitted model predicts points it was not fitted on — (a) a model left out
// (fit on one model, predict the other on the same GPU and framework) and (b) a GPU left out
// (fit on the other GPUs, predict this one from its datasheet). Every point is simulated once,
// exactly as `predict` runs it (the caller supplies that run: the client lives in src/loadgen and
// the virtual-time target in src/sim), and its closed-loop trace is re-timed per candidate.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "calibration/measured_points.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/trace.hpp"

namespace infermark::calibration {

/// How hard to search.
struct FitSettings {
  int max_evaluations = 400;   ///< Loss evaluations per fit.
  double prior_weight = 0.01;  ///< Pull towards the priors (keeps unidentifiable factors sane).
  unsigned threads = 1;        ///< Threads evaluating points.
};

/// The error of one prediction.
struct PointError {
  std::size_t index = 0;    ///< Point index in the calibrator.
  double pred_tput = 0;     ///< Predicted tok/s/GPU.
  double pred_intvty = 0;   ///< Predicted tok/s/user.
  double tput_error = 0;    ///< |pred − meas| / meas.
  double intvty_error = 0;  ///< |pred − meas| / meas.
  double pred_e2el = 0;     ///< Predicted median end-to-end latency, s (the prediction bands' latency).
};

/// Median and p90 of relative errors.
struct ErrorSummary {
  std::size_t points = 0;    ///< Points summarized.
  double tput_median = 0;    ///< Median |Δ|/meas of tok/s/GPU.
  double tput_p90 = 0;       ///< p90 of the same.
  double intvty_median = 0;  ///< Median |Δ|/meas of interactivity.
  double intvty_p90 = 0;     ///< p90 of the same.
};

/// Summarizes errors.
ErrorSummary SummarizeErrors(const std::vector<PointError>& errors);

/// Run-to-run noise of the measurements (two dates of the same points).
ErrorSummary NoiseFloor(const std::vector<RepeatedPoint>& repeats);

/// One held-out evaluation.
struct Fold {
  std::string description;               ///< What was fitted and what predicted.
  perfmodel::EfficiencyFactors factors;  ///< Factors fitted on the training points.
  std::vector<std::size_t> train;        ///< Training points.
  std::vector<PointError> errors;        ///< Errors on the held-out points.
};

/// Runs the reference client's closed loop for `point` (its concurrency, its prompts or 10 × conc,
/// lengths uniform in [0.8 L, L], seed 0) on `deployment` in virtual time and returns its trace.
/// Called from several threads at once.
using TraceRecorder =
    std::function<perfmodel::Trace(const perfmodel::Deployment& deployment, const MeasuredPoint& point)>;

/// Points prepared for fitting.
class Calibrator {
 public:
  /// Resolves each point's deployment and records its trace with `record` (the expensive part).
  /// `hardware_profiles` (paths of `gpu probe` profiles) apply to the points of the GPU each measured.
  Calibrator(const perfmodel::EngineData& data, std::vector<MeasuredPoint> points, unsigned threads,
             const TraceRecorder& record, const std::vector<std::string>& hardware_profiles = {});
  ~Calibrator();

  /// Points.
  [[nodiscard]] const std::vector<MeasuredPoint>& points() const { return points_; }
  /// The catalog the points were resolved against.
  [[nodiscard]] const perfmodel::EngineData& data() const { return data_; }
  /// The deployment of point `i`.
  [[nodiscard]] const perfmodel::Deployment& deployment(std::size_t i) const;
  /// Predicted figures of point `i` under `factors`.
  [[nodiscard]] perfmodel::TraceFigures Predict(std::size_t i, const perfmodel::EfficiencyFactors& factors) const;
  /// Errors on `points` under `factors`.
  [[nodiscard]] std::vector<PointError> Errors(const std::vector<std::size_t>& points,
                                               const perfmodel::EfficiencyFactors& factors, unsigned threads) const;
  /// Fits factors on `train`, starting from (and regularized towards) `prior`.
  [[nodiscard]] perfmodel::EfficiencyFactors Fit(const std::vector<std::size_t>& train,
                                                 const perfmodel::EfficiencyFactors& prior, const FitSettings& settings,
                                                 double* loss = nullptr) const;
  /// The prior for points of `framework` on `hardware` (framework priors, hardware latencies).
  [[nodiscard]] perfmodel::EfficiencyFactors Prior(const std::string& framework, const std::string& hardware) const;

 private:
  struct Prepared;
  const perfmodel::EngineData& data_;
  std::vector<MeasuredPoint> points_;
  std::vector<std::unique_ptr<Prepared>> prepared_;
};

/// Protocol (a): for every hardware key (GPU × framework) and model, fit on the other model's
/// points of that key and predict this model's.
std::vector<Fold> ModelLeftOut(const Calibrator& calibrator, const FitSettings& settings);

/// Protocol (b): for every GPU and framework, fit on that framework's points on the other GPUs
/// (of the same vendor when there are any) and predict this GPU's.
std::vector<Fold> GpuLeftOut(const Calibrator& calibrator, const FitSettings& settings);

/// Protocol (c): architectures held out. `holdout` holds points of models no calibration point
/// comes from (data/engine/holdout/); each is predicted with the factors `predict` would choose
/// among `profiles` (its framework on its GPU, else on its vendor, else the fallback framework's),
/// one fold per model and hardware key. Nothing is fitted to them.
std::vector<Fold> ArchitectureHeldOut(const Calibrator& holdout,
                                      const std::vector<perfmodel::CalibratedProfile>& profiles);

/// Concurrencies held out, for a sweep served on a real engine (`engine calibrate --served`): per
/// hardware key and model, fit on the points whose concurrency is in `fit_conc` and predict the
/// others (interpolation and extrapolation along the load axis of one deployment). A group with
/// no point on either side gives no fold.
std::vector<Fold> ConcurrencyHeldOut(const Calibrator& calibrator, const std::vector<int>& fit_conc,
                                     const FitSettings& settings);

/// The profiles the engine uses: per framework and GPU, fitted on all of its points, and per
/// framework and vendor, fitted on all of that vendor's points.
std::vector<std::pair<perfmodel::CalibratedProfile, ErrorSummary>> FitProfiles(const Calibrator& calibrator,
                                                                               const FitSettings& settings);

}  // namespace infermark::calibration
