// The band arithmetic: a figure's band from the residual quantiles (reciprocal figures swap and
// invert the edges), which result keys take which residuals, the band block of a predicted result,
// a group's fallback to the pooled band, and the bands file read strictly and written back.
#include "calibration/prediction_band.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/diagnostic.hpp"

namespace infermark::calibration {
namespace {

namespace fs = std::filesystem;

TEST(PredictionBand, AFiguresBandIsItsValueTimesTheExponentialOfEachQuantile) {
  const ResidualQuantiles q{std::log(0.8), std::log(1.25)};
  const Band b = BandOf(100, q);
  EXPECT_NEAR(b.p10, 80, 1e-9);
  EXPECT_NEAR(b.p90, 125, 1e-9);
  // A measured throughput 20 % under the prediction is ln 0.8 below it: on the band's edge.
  EXPECT_NEAR(std::log(b.p10 / 100), q.p10, 1e-12);
}

TEST(PredictionBand, AReciprocalFigureTakesTheInverseEdgesSwapped) {
  // Interactivity measured 20 % under the prediction means a TPOT 25 % over it.
  const ResidualQuantiles q{std::log(0.8), std::log(1.25)};
  const Band tpot = BandOf(10, q, true);
  EXPECT_NEAR(tpot.p10, 10 / 1.25, 1e-9);
  EXPECT_NEAR(tpot.p90, 10 / 0.8, 1e-9);
  // The TPOT band is the interactivity band of 1/TPOT, inverted.
  const Band intvty = BandOf(1 / 10.0, q);
  EXPECT_NEAR(tpot.p10, 1 / intvty.p90, 1e-9);
  EXPECT_NEAR(tpot.p90, 1 / intvty.p10, 1e-9);
  EXPECT_LE(tpot.p10, tpot.p90);
}

TEST(PredictionBand, ResultKeysTakeTheirFamilysResiduals) {
  struct Case {
    const char* key;
    std::optional<BandFamily> family;
    bool reciprocal;
  };
  const Case cases[] = {
      {"total_token_throughput", BandFamily::kThroughput, false},
      {"output_throughput", BandFamily::kThroughput, false},
      {"request_throughput", BandFamily::kThroughput, false},
      {"median_ttft_ms", BandFamily::kLatency, false},
      {"p99.9_e2el_ms", BandFamily::kLatency, false},
      {"mean_tpot_ms", BandFamily::kInteractivity, true},
      {"p90_itl_ms", BandFamily::kInteractivity, true},
      {"median_intvty", BandFamily::kInteractivity, false},
      {"std_ttft_ms", std::nullopt, false},  // a spread, not a level
      {"request_goodput:", std::nullopt, false},
      {"completed", std::nullopt, false},
      {"duration", std::nullopt, false},
  };
  for (const Case& c : cases) {
    const std::optional<KeyFamily> f = FamilyOfResultKey(c.key);
    ASSERT_EQ(f.has_value(), c.family.has_value()) << c.key;
    if (!f) continue;
    EXPECT_EQ(f->family, *c.family) << c.key;
    EXPECT_EQ(f->reciprocal, c.reciprocal) << c.key;
  }
}

TEST(PredictionBand, TheResultsBandBlockHoldsEveryBandedFigureInItsUnit) {
  BandGroup g;
  g.framework = "vllm";
  g.vendor = "amd";
  g.residuals = 403;
  g.throughput = {-0.2, 0.1};
  g.interactivity = {-0.3, 0.2};
  g.latency = {-0.1, 0.25};
  const Json result = {{"total_token_throughput", 1000.0},
                       {"median_tpot_ms", 20.0},
                       {"median_ttft_ms", 50.0},
                       {"std_ttft_ms", 3.0},
                       {"median_itl_ms", 0.0},
                       {"completed", 40}};
  const Json block = ResultBandJson(result, g);
  EXPECT_EQ(block["scope"], "vllm/amd");
  EXPECT_EQ(block["residuals"], 403);
  EXPECT_NEAR(block["quantiles"]["interactivity"]["p10"].get<double>(), -0.3, 1e-12);
  const Json& f = block["figures"];
  EXPECT_NEAR(f["total_token_throughput"]["band_p10"].get<double>(), 1000 * std::exp(-0.2), 1e-9);
  EXPECT_NEAR(f["total_token_throughput"]["band_p90"].get<double>(), 1000 * std::exp(0.1), 1e-9);
  EXPECT_NEAR(f["median_tpot_ms"]["band_p10"].get<double>(), 20 * std::exp(-0.2), 1e-9);
  EXPECT_NEAR(f["median_tpot_ms"]["band_p90"].get<double>(), 20 * std::exp(0.3), 1e-9);
  EXPECT_NEAR(f["median_ttft_ms"]["band_p90"].get<double>(), 50 * std::exp(0.25), 1e-9);
  EXPECT_FALSE(f.contains("std_ttft_ms"));
  EXPECT_FALSE(f.contains("median_itl_ms")) << "a figure the run did not record (0) has no band";
  EXPECT_FALSE(f.contains("completed"));
}

TEST(PredictionBand, AGroupWithoutItsOwnBandTakesThePooledOne) {
  PredictionBands bands;
  bands.pooled.residuals = 1127;
  bands.pooled.throughput = {-0.2, 0.2};
  BandGroup vllm_amd;
  vllm_amd.framework = "vllm";
  vllm_amd.vendor = "amd";
  vllm_amd.residuals = 403;
  bands.groups.push_back(vllm_amd);
  EXPECT_EQ(bands.For("vllm", "amd").Scope(), "vllm/amd");
  EXPECT_EQ(bands.For("sglang", "amd").Scope(), "pooled");
  EXPECT_EQ(bands.For("vllm", "nvidia").Scope(), "pooled");
  EXPECT_FALSE(bands.Empty());
  EXPECT_TRUE(PredictionBands{}.Empty());
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / ("infermark_bands_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(PredictionBand, TheBandsFileReadsBackWhatWasWritten) {
  PredictionBands bands;
  bands.min_residuals = 100;
  bands.pooled.residuals = 1127;
  bands.pooled.throughput = {-0.186945, 0.166162};
  bands.pooled.interactivity = {-0.177216, 0.18352};
  bands.pooled.latency = {-0.170137, 0.186409};
  BandGroup trt;
  trt.framework = "trt";
  trt.vendor = "nvidia";
  trt.residuals = 335;
  trt.throughput = {-0.25, 0.25};
  trt.interactivity = {-0.25, 0.27};
  trt.latency = {-0.26, 0.26};
  bands.groups.push_back(trt);
  const std::string path = WriteTemp("ok.yaml", FormatPredictionBands(bands, {"a comment"}));
  const PredictionBands read = LoadPredictionBands(path);
  fs::remove(path);
  EXPECT_EQ(read.min_residuals, 100u);
  EXPECT_EQ(read.pooled.residuals, 1127u);
  EXPECT_NEAR(read.pooled.interactivity.p90, 0.18352, 1e-9);
  ASSERT_EQ(read.groups.size(), 1u);
  EXPECT_EQ(read.groups[0].Scope(), "trt/nvidia");
  EXPECT_NEAR(read.groups[0].latency.p10, -0.26, 1e-9);
}

TEST(PredictionBand, ABadBandsFileIsOneClearErrorPerProblem) {
  const std::string good_pooled =
      "pooled:\n  residuals: 10\n  throughput: {p10: -0.1, p90: 0.1}\n  interactivity: {p10: -0.1, p90: 0.1}\n"
      "  latency: {p10: -0.1, p90: 0.1}\n";
  struct Case {
    const char* name;
    std::string text;
    const char* says;
  };
  const Case cases[] = {
      {"swapped.yaml",
       "min_residuals: 100\npooled:\n  residuals: 10\n  throughput: {p10: 0.2, p90: -0.1}\n"
       "  interactivity: {p10: -0.1, p90: 0.1}\n  latency: {p10: -0.1, p90: 0.1}\n",
       "p10 <= p90"},
      {"unknown.yaml", "min_residuals: 100\n" + good_pooled + "colour: blue\n", "colour"},
      {"small.yaml",
       "min_residuals: 100\n" + good_pooled +
           "groups:\n  - framework: vllm\n    vendor: amd\n    residuals: 12\n"
           "    throughput: {p10: -0.1, p90: 0.1}\n    interactivity: {p10: -0.1, p90: 0.1}\n"
           "    latency: {p10: -0.1, p90: 0.1}\n",
       "fewer than min_residuals"},
      {"missing.yaml", "min_residuals: 100\n", "pooled"},
  };
  for (const Case& c : cases) {
    const std::string path = WriteTemp(c.name, c.text);
    try {
      LoadPredictionBands(path);
      ADD_FAILURE() << c.name << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << c.name << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.name), std::string::npos) << "names the file: " << e.what();
    }
    fs::remove(path);
  }
}

}  // namespace
}  // namespace infermark::calibration
