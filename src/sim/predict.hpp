// Prediction: the load generator's client, exactly as configured for a measured run, against the
// performance model on a virtual clock. `infermark predict --model` and `predict --config-keys`
// both come here, and calibration records its traces here, so a predicted figure is computed one
// way.
#pragma once

#include <optional>
#include <string>

#include "calibration/measured_points.hpp"
#include "calibration/prediction_band.hpp"
#include "loadgen/bench_config.hpp"
#include "loadgen/run_benchmark.hpp"
#include "metrics/benchmark_metrics.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/scheduler.hpp"
#include "perfmodel/trace.hpp"
#include "sim/virtual_target.hpp"

namespace infermark::sim {

/// The model-error bands of a point's figures (sim/prediction_band.hpp), each in its figure's unit.
struct FigureBands {
  std::string scope;                      ///< The band group: `framework/vendor`, or `pooled`.
  std::size_t residuals = 0;              ///< Held-out residuals behind it.
  calibration::Band tput_per_gpu;         ///< Of PredictedFigures::tput_per_gpu.
  calibration::Band output_tput_per_gpu;  ///< Of output_tput_per_gpu.
  calibration::Band input_tput_per_gpu;   ///< Of input_tput_per_gpu.
  calibration::Band median_intvty;        ///< Of median_intvty.
  calibration::Band median_ttft;          ///< Of median_ttft.
  calibration::Band median_tpot;          ///< Of median_tpot.
  calibration::Band median_e2el;          ///< Of median_e2el.
  calibration::Band p90_ttft;             ///< Of p90_ttft.
  calibration::Band p99_ttft;             ///< Of p99_ttft.
  calibration::Band p90_tpot;             ///< Of p90_tpot.
  calibration::Band p99_tpot;             ///< Of p99_tpot.
};

/// InferenceX's processed figures of one point (seconds, tokens/s/GPU, tokens/s/user).
struct PredictedFigures {
  double tput_per_gpu = 0;         ///< (input + output) tokens/s per GPU.
  double output_tput_per_gpu = 0;  ///< Output tokens/s per GPU.
  double input_tput_per_gpu = 0;   ///< Input tokens/s per GPU.
  double median_intvty = 0;        ///< 1 / median TPOT, tokens/s/user.
  double median_ttft = 0;          ///< Seconds.
  double median_tpot = 0;          ///< Seconds.
  double median_e2el = 0;          ///< Seconds.
  double p90_ttft = 0;             ///< Seconds (0 unless 90 is among the client's percentiles).
  double p99_ttft = 0;             ///< Seconds (0 unless 99 is among them).
  double p90_tpot = 0;             ///< Seconds.
  double p99_tpot = 0;             ///< Seconds.
  std::size_t completed = 0;       ///< Successful requests.
  double duration_s = 0;           ///< The measured window.
  /// Their p10–p90 model-error bands, when a band applies (AddPredictionBand).
  std::optional<FigureBands> band;
};

/// A predicted run.
struct Prediction {
  loadgen::BenchResult result;      ///< Records, metrics, verdict and the result document (marked predicted).
  PredictedFigures figures;         ///< Its processed figures.
  perfmodel::SchedulerStats stats;  ///< Scheduler counters.
  perfmodel::Trace trace;           ///< The measured window's trace (when asked for).
};

/// Runs the client `config` (its flags as `bench serve` takes them; the server's address is not
/// used) against `deployment` in virtual time. InputError for settings the client refuses.
Prediction Predict(const perfmodel::Deployment& deployment, const loadgen::BenchConfig& config,
                   const VirtualTargetOptions& options = {});

/// The processed figures of a run's metrics over `num_gpus` GPUs.
PredictedFigures FiguresOf(const metrics::BenchmarkMetrics& metrics, double duration_s, int num_gpus);

/// The client InferenceX runs for one point: a closed loop of `conc`, `prompts` random prompts
/// (lengths uniform in [int(ratio·L), L]) after `warmups` warm-ups, ignore_eos, seed 0.
loadgen::BenchConfig ReferenceClient(const std::string& model, int isl, int osl, int conc, int prompts, int warmups,
                                     double range_ratio = 0.8);

/// Calibration's trace of a measured point: InferenceX's client for it (the point's prompts, else
/// 10 × conc; no warm-ups: they leave the engine idle and change no figure) on `deployment`.
perfmodel::Trace RecordTrace(const perfmodel::Deployment& deployment, const calibration::MeasuredPoint& point);

}  // namespace infermark::sim
