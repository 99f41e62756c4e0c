#include "sim/prediction_band.hpp"

namespace infermark::sim {

const calibration::BandGroup* BandGroupFor(const perfmodel::Deployment& deployment,
                                           const calibration::PredictionBands& bands) {
  if (bands.Empty() || !deployment.calibrated) return nullptr;
  return &bands.For(deployment.framework.name, deployment.hardware.vendor);
}

FigureBands BandsOfFigures(const PredictedFigures& f, const calibration::BandGroup& g) {
  using calibration::BandOf;
  FigureBands b;
  b.scope = g.Scope();
  b.residuals = g.residuals;
  b.tput_per_gpu = BandOf(f.tput_per_gpu, g.throughput);
  b.output_tput_per_gpu = BandOf(f.output_tput_per_gpu, g.throughput);
  b.input_tput_per_gpu = BandOf(f.input_tput_per_gpu, g.throughput);
  b.median_intvty = BandOf(f.median_intvty, g.interactivity);
  b.median_ttft = BandOf(f.median_ttft, g.latency);
  b.median_tpot = BandOf(f.median_tpot, g.interactivity, true);
  b.median_e2el = BandOf(f.median_e2el, g.latency);
  b.p90_ttft = BandOf(f.p90_ttft, g.latency);
  b.p99_ttft = BandOf(f.p99_ttft, g.latency);
  b.p90_tpot = BandOf(f.p90_tpot, g.interactivity, true);
  b.p99_tpot = BandOf(f.p99_tpot, g.interactivity, true);
  return b;
}

bool AddPredictionBand(Json& result, PredictedFigures& figures, const perfmodel::Deployment& deployment,
                       const calibration::PredictionBands& bands) {
  const calibration::BandGroup* group = BandGroupFor(deployment, bands);
  if (group == nullptr) return false;
  result["infermark"]["prediction_band"] = calibration::ResultBandJson(result, *group);
  figures.band = BandsOfFigures(figures, *group);
  return true;
}

}  // namespace infermark::sim
