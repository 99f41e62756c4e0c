// A prediction's model-error band: a calibrated deployment takes its framework × vendor group (or
// the pooled one), every banded figure of the result document and of the processed figures gets
// value × e^quantile (times per token the reciprocal), and a deployment on uncalibrated priors gets
// none. `predict` prints the bands in JSON and in its table.
#include "calibration/prediction_band.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "perfmodel/engine_data.hpp"
#include "run_binary.hpp"
#include "sim/prediction_band.hpp"
#include "test_paths.hpp"

namespace infermark::sim {
namespace {

perfmodel::Deployment BandedDeployment(const std::string& framework, const std::string& hardware, bool calibration) {
  static const perfmodel::EngineData data = perfmodel::LoadEngineData(test::SourcePath("data/engine"));
  perfmodel::DeploymentOptions o;
  o.model = "llama-3.3-70b";
  o.hardware = hardware;
  o.framework = framework;
  o.precision = "fp8";
  o.tp = 8;
  o.use_calibration = calibration;
  return perfmodel::ResolveDeployment(data, o);
}

calibration::PredictionBands KnownBands() {
  calibration::PredictionBands bands;
  bands.pooled.residuals = 1000;
  bands.pooled.throughput = {-0.3, 0.3};
  bands.pooled.interactivity = {-0.3, 0.3};
  bands.pooled.latency = {-0.3, 0.3};
  calibration::BandGroup g;
  g.framework = "vllm";
  g.vendor = "nvidia";
  g.residuals = 389;
  g.throughput = {std::log(0.9), std::log(1.2)};
  g.interactivity = {std::log(0.8), std::log(1.25)};
  g.latency = {std::log(0.95), std::log(1.1)};
  bands.groups.push_back(g);
  return bands;
}

TEST(PredictionBand, ACalibratedPredictionCarriesItsGroupsBandOnEveryFigure) {
  const perfmodel::Deployment d = BandedDeployment("vllm", "h200", true);
  ASSERT_TRUE(d.calibrated) << d.efficiency_source;
  Prediction p = Predict(d, ReferenceClient(d.model.name, 1024, 256, 8, 40, 0));
  ASSERT_TRUE(AddPredictionBand(p.result.result, p.figures, d, KnownBands()));
  const Json& block = p.result.result["infermark"]["prediction_band"];
  EXPECT_EQ(block["scope"], "vllm/nvidia");
  EXPECT_EQ(block["residuals"], 389);
  const Json& f = block["figures"];
  const double total = p.result.result["total_token_throughput"].get<double>();
  EXPECT_NEAR(f["total_token_throughput"]["band_p10"].get<double>(), 0.9 * total, 1e-9 * total);
  EXPECT_NEAR(f["total_token_throughput"]["band_p90"].get<double>(), 1.2 * total, 1e-9 * total);
  const double tpot = p.result.result["median_tpot_ms"].get<double>();
  EXPECT_NEAR(f["median_tpot_ms"]["band_p10"].get<double>(), tpot / 1.25, 1e-9 * tpot);
  EXPECT_NEAR(f["median_tpot_ms"]["band_p90"].get<double>(), tpot / 0.8, 1e-9 * tpot);
  EXPECT_NEAR(f["median_e2el_ms"]["band_p90"].get<double>(), 1.1 * p.result.result["median_e2el_ms"].get<double>(),
              1e-6);
  // The processed figures carry the same bands in InferenceX's units.
  ASSERT_TRUE(p.figures.band);
  const FigureBands& b = *p.figures.band;
  EXPECT_EQ(b.scope, "vllm/nvidia");
  EXPECT_NEAR(b.tput_per_gpu.p90, 1.2 * p.figures.tput_per_gpu, 1e-9 * p.figures.tput_per_gpu);
  EXPECT_NEAR(b.median_intvty.p10, 0.8 * p.figures.median_intvty, 1e-9 * p.figures.median_intvty);
  EXPECT_NEAR(b.median_tpot.p90 * b.median_intvty.p10, 1.0, 1e-9);
  EXPECT_NEAR(b.median_ttft.p10, 0.95 * p.figures.median_ttft, 1e-12);
}

TEST(PredictionBand, AnotherFrameworkTakesThePooledBandAndPriorsTakeNone) {
  const perfmodel::Deployment trt = BandedDeployment("trt", "h200", true);
  Prediction p = Predict(trt, ReferenceClient(trt.model.name, 1024, 128, 4, 16, 0));
  ASSERT_TRUE(AddPredictionBand(p.result.result, p.figures, trt, KnownBands()));
  EXPECT_EQ(p.figures.band->scope, "pooled");
  // No held-out residual measures the framework's priors: no band, and nothing written.
  const perfmodel::Deployment priors = BandedDeployment("vllm", "h200", false);
  EXPECT_FALSE(priors.calibrated);
  Prediction q = Predict(priors, ReferenceClient(priors.model.name, 1024, 128, 4, 16, 0));
  EXPECT_FALSE(AddPredictionBand(q.result.result, q.figures, priors, KnownBands()));
  EXPECT_FALSE(q.figures.band);
  EXPECT_FALSE(q.result.result["infermark"].contains("prediction_band"));
  // Nor do empty bands (an engine data folder without a bands file).
  EXPECT_FALSE(AddPredictionBand(q.result.result, q.figures, BandedDeployment("vllm", "h200", true), {}));
}

TEST(PredictCli, PrintsEachFiguresBandAndItsGroup) {
  auto r = test::RunInfermark({"predict", "--model", "llama-3.3-70b", "--hardware", "h200", "--precision", "fp8",
                               "--tp", "8", "--conc", "4,16", "--format", "json"},
                              test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  for (const auto& point : j) {
    const auto& band = point["prediction_band"];
    EXPECT_EQ(band["scope"], "vllm/nvidia");
    for (const char* key : {"tput_per_gpu", "median_intvty", "median_e2el", "median_ttft", "median_tpot"}) {
      const double v = point[key].get<double>();
      EXPECT_LT(band["figures"][key]["band_p10"].get<double>(), v) << key;
      EXPECT_GT(band["figures"][key]["band_p90"].get<double>(), v) << key;
    }
  }
  r = test::RunInfermark({"predict", "--model", "llama-3.3-70b", "--hardware", "h200", "--precision", "fp8", "--tp",
                          "8", "--conc", "4", "--format", "json", "--no-calibration"},
                         test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(r.out)[0].contains("prediction_band"));
  r = test::RunInfermark({"predict", "--model", "llama-3.3-70b", "--hardware", "h200", "--precision", "fp8", "--tp",
                          "8", "--conc", "4", "--format", "table"},
                         test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("p10–p90"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("group vllm/nvidia"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace infermark::sim
