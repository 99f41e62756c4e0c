// Bands from held-out residuals and their coverage. On synthetic residuals whose quantiles are
// known, the bands take exactly them, groups too small take the pooled band, and coverage counts
// what lies inside. On the committed data (data/engine/bands/held_out.csv), the bands file is what
// the residuals give, and the coverage on points the bands never saw is computed and must lie in a
// sensible range around the 80 % a p10–p90 band aims at (docs/engine-model.md gives the figures).
#include "calibration/band_coverage.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "calibration/held_out.hpp"
#include "core/diagnostic.hpp"
#include "test_paths.hpp"

namespace infermark::calibration {
namespace {

// A held-out prediction of `protocol` whose three residuals are all `residual`.
HeldOutPrediction Prediction(const char* protocol, const char* framework, const char* vendor, const char* hw_key,
                             double residual) {
  HeldOutPrediction h;
  h.protocol = protocol;
  h.fold = "synthetic";
  h.model = "m";
  h.hw_key = hw_key;
  h.framework = framework;
  h.vendor = vendor;
  h.precision = "fp8";
  h.isl = h.osl = 1024;
  h.tp = 8;
  h.conc = 16;
  h.pred_tput = 100;
  h.meas_tput = 100 * std::exp(residual);
  h.pred_intvty = 50;
  h.meas_intvty = 50 * std::exp(residual);
  h.pred_e2el = 20;
  h.meas_e2el = 20 * std::exp(residual);
  return h;
}

// `n` residuals spread evenly over [-0.5, 0.5] (numpy's p10 and p90 of them are -0.4 and 0.4).
void AddEven(std::vector<HeldOutPrediction>& out, const char* protocol, const char* framework, const char* vendor,
             const char* hw_key, int n) {
  for (int i = 0; i < n; ++i)
    out.push_back(Prediction(protocol, framework, vendor, hw_key, -0.5 + static_cast<double>(i) / (n - 1)));
}

TEST(BandCoverage, BandsAreTheResidualsP10AndP90PerGroupWithEnoughOfThem) {
  std::vector<HeldOutPrediction> h;
  AddEven(h, "a", "vllm", "amd", "mi300x", 101);
  AddEven(h, "a", "trt", "nvidia", "h200_trt", 51);  // too few for a group of its own
  AddEven(h, "b", "vllm", "amd", "mi300x", 11);      // protocol (b) makes no band
  h.push_back(Prediction("c", "vllm", "amd", "mi355x", 3.0));
  const PredictionBands bands = BuildPredictionBands(h, 100);
  ASSERT_EQ(bands.groups.size(), 1u);
  const BandGroup& g = bands.groups[0];
  EXPECT_EQ(g.Scope(), "vllm/amd");
  EXPECT_EQ(g.residuals, 101u);
  EXPECT_NEAR(g.throughput.p10, -0.4, 1e-12);
  EXPECT_NEAR(g.throughput.p90, 0.4, 1e-12);
  EXPECT_NEAR(g.latency.p90, 0.4, 1e-12);
  EXPECT_EQ(bands.pooled.residuals, 152u);
  EXPECT_EQ(&bands.For("trt", "nvidia"), &bands.pooled);
  // By construction, about 80 % of the residuals a band was built from lie inside it.
  const std::vector<CoverageRow> own = BandCoverage(bands, h, "a");
  ASSERT_EQ(own.back().scope, "all");
  EXPECT_NEAR(own.back().throughput, 0.8, 0.02);
}

TEST(BandCoverage, CoverageCountsMeasurementsInsideTheirBandEdgesIncluded) {
  std::vector<HeldOutPrediction> h;
  AddEven(h, "a", "vllm", "amd", "mi300x", 101);
  const PredictionBands bands = BuildPredictionBands(h, 100);
  std::vector<HeldOutPrediction> unseen;
  for (const double r : {-0.4, 0.0, 0.4, 0.41, -0.6}) unseen.push_back(Prediction("c", "vllm", "amd", "mi355x", r));
  unseen.push_back(Prediction("c", "sglang", "amd", "mi355x", 0.1));  // pooled band
  const std::vector<CoverageRow> rows = BandCoverage(bands, unseen, "c");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].scope, "sglang/amd");
  EXPECT_EQ(rows[0].band, "pooled");
  EXPECT_DOUBLE_EQ(rows[0].throughput, 1.0);
  EXPECT_EQ(rows[1].scope, "vllm/amd");
  EXPECT_EQ(rows[1].points, 5u);
  EXPECT_DOUBLE_EQ(rows[1].throughput, 3.0 / 5.0);
  EXPECT_DOUBLE_EQ(rows[1].interactivity, 3.0 / 5.0);
  EXPECT_EQ(rows[2].scope, "all");
  EXPECT_DOUBLE_EQ(rows[2].latency, 4.0 / 6.0);
}

TEST(BandCoverage, LeavingAKeyOutChecksItAgainstBandsOfTheOthersAlone) {
  // Two keys alike and one twice as wide: the wide key's residuals escape bands built without it.
  std::vector<HeldOutPrediction> h;
  AddEven(h, "a", "vllm", "nvidia", "h100", 101);
  AddEven(h, "a", "vllm", "nvidia", "h200", 101);
  for (int i = 0; i < 101; ++i) h.push_back(Prediction("a", "vllm", "nvidia", "b200", -1.0 + i / 50.0));
  const std::vector<CoverageRow> rows = LeaveKeyOutCoverage(h, 100);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].scope, "vllm/nvidia");
  EXPECT_EQ(rows[0].points, 303u);
  // h100 and h200 each against the other and b200 (p10 and p90 at -0.598 and 0.598): all 101
  // inside; b200 against h100 and h200 ([-0.4, 0.4]): 41 of its 101.
  EXPECT_DOUBLE_EQ(rows[0].throughput, (101 + 101 + 41) / 303.0);
  EXPECT_EQ(rows[0].band, "vllm/nvidia");
}

TEST(BandCoverage, TheHeldOutCsvReadsBackWhatWasWritten) {
  std::vector<HeldOutPrediction> h;
  h.push_back(Prediction("a", "vllm", "amd", "mi300x", 0.123456789));
  h.back().fold = "mi300x: fit on the other model, predict llama-3.3-70b";
  const std::string path =
      (std::filesystem::temp_directory_path() / ("infermark_held_out_" + std::to_string(::getpid()) + ".csv")).string();
  std::ofstream(path) << HeldOutCsv(h);
  const std::vector<HeldOutPrediction> read = LoadHeldOutCsv(path);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].fold, "mi300x: fit on the other model; predict llama-3.3-70b") << "no comma: no quoting";
  EXPECT_NEAR(read[0].Residual(BandFamily::kThroughput), 0.123456789, 1e-8);
  EXPECT_EQ(read[0].line, 2);
  std::ofstream(path) << HeldOutCsv(h) << "a,f,m,k,vllm,amd,fp8,1024,1024,8,16,0,1,1,1,1,1\n";
  try {
    LoadHeldOutCsv(path);
    ADD_FAILURE() << "a zero measurement was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("meas_tput"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(":3"), std::string::npos) << "names the line: " << e.what();
  }
  std::filesystem::remove(path);
}

// The committed data: the bands `predict` reads are what the committed residuals give, and their
// coverage on points they never saw is measured here, not assumed.
TEST(BandCoverage, TheCommittedBandsHoldAboutEightyPercentOfPointsTheyNeverSaw) {
  const std::vector<HeldOutPrediction> h = LoadHeldOutCsv(test::SourcePath("data/engine/bands/held_out.csv"));
  const PredictionBands rebuilt = BuildPredictionBands(h);
  const PredictionBands committed = LoadPredictionBands(test::SourcePath("data/engine/bands/prediction_bands.yaml"));
  EXPECT_TRUE(SameBands(rebuilt, committed)) << "rerun `infermark engine calibrate`";
  ASSERT_FALSE(rebuilt.groups.empty());
  for (const BandGroup& g : rebuilt.groups) {
    EXPECT_GE(g.residuals, kMinBandResiduals);
    for (const BandFamily f : {BandFamily::kThroughput, BandFamily::kInteractivity, BandFamily::kLatency}) {
      EXPECT_LT(g.Of(f).p10, 0) << g.Scope() << ": a band holds the prediction itself";
      EXPECT_GT(g.Of(f).p90, 0) << g.Scope();
    }
  }
  // Protocol (c): architectures no fit and no band saw.
  const std::vector<CoverageRow> unseen = BandCoverage(rebuilt, h, "c");
  ASSERT_EQ(unseen.back().scope, "all");
  EXPECT_GE(unseen.back().points, 150u);
  for (const double share : {unseen.back().throughput, unseen.back().interactivity, unseen.back().latency}) {
    EXPECT_GT(share, 0.6);
    EXPECT_LT(share, 0.95);
  }
  // Each hardware key against bands built without it.
  const CoverageRow cv = LeaveKeyOutCoverage(h).back();
  EXPECT_EQ(cv.points, 1127u);
  for (const double share : {cv.throughput, cv.interactivity, cv.latency}) {
    EXPECT_GT(share, 0.7);
    EXPECT_LT(share, 0.9);
  }
}

}  // namespace
}  // namespace infermark::calibration
