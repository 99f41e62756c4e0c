// `engine calibrate --served` on the lent H100's transformers sweep (tests/fixtures/real-gpu/h100):
// fit the transformers framework on conc 1, 4, 16 and 64, predict 2, 8 and 32. The fit is
// deterministic (each point simulated once with the reference client's seed, Nelder–Mead from the
// priors), so the held-out errors and the factors are pinned here; docs/gpu.md reports them.
#include <gtest/gtest.h>

#include <set>

#include "calibration/calibration.hpp"
#include "calibration/served_points.hpp"
#include "perfmodel/engine_data.hpp"
#include "run_binary.hpp"
#include "sim/predict.hpp"
#include "test_paths.hpp"

namespace infermark::calibration {
namespace {

using perfmodel::DefaultEngineData;

TEST(ServedCalibration, ReadsTheSweepsAggRecords) {
  const std::vector<MeasuredPoint> points = LoadServedPoints(test::Fixture("real-gpu/h100"));
  ASSERT_EQ(points.size(), 7u);
  std::vector<int> concs;
  for (const MeasuredPoint& p : points) {
    concs.push_back(p.conc);
    EXPECT_EQ(p.framework, "transformers");
    EXPECT_EQ(p.hardware, "h100");
    EXPECT_EQ(p.hw_key, "h100_transformers");
    EXPECT_EQ(p.tp, 1);
    EXPECT_EQ(p.isl, 1024);
    EXPECT_EQ(p.prompts, p.conc);  // one prompt per unit of concurrency, from the raw results
  }
  EXPECT_EQ(concs, (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_NEAR(points[6].tput_per_gpu, 553.7246242287853, 1e-9);
  EXPECT_NEAR(points[6].intvty, 1000 / 213.8096242370882, 1e-9);
}

TEST(ServedCalibration, BadFolderIsOneClearError) {
  EXPECT_THROW(LoadServedPoints(test::Fixture("real-gpu/no-such-folder")), InputError);
  EXPECT_THROW(LoadServedPoints(test::Fixture("real-gpu/h100/peer")), InputError);  // no agg records
}

TEST(ServedCalibration, TransformersOnTheLentH100PredictsTheHeldOutConcurrencies) {
  const Calibrator c(DefaultEngineData(), LoadServedPoints(test::Fixture("real-gpu/h100")), 1, &sim::RecordTrace);
  const std::vector<Fold> folds = ConcurrencyHeldOut(c, {1, 4, 16, 64}, FitSettings{});
  ASSERT_EQ(folds.size(), 1u);
  const Fold& f = folds[0];
  std::set<int> fitted, held;
  for (std::size_t i : f.train) fitted.insert(c.points()[i].conc);
  for (const PointError& e : f.errors) held.insert(c.points()[e.index].conc);
  EXPECT_EQ(fitted, (std::set<int>{1, 4, 16, 64}));
  EXPECT_EQ(held, (std::set<int>{2, 8, 32}));
  const ErrorSummary s = SummarizeErrors(f.errors);
  // Pinned (docs/gpu.md, "The performance model on this engine"). tok/s/GPU meets the issue's
  // target (median <= 15 %); interactivity misses it by under a point: the fit sits on conc 4's
  // row, whose steps ran about 20 % faster than its neighbours' (the engine's run-to-run spread).
  EXPECT_LE(s.tput_median, 0.15);
  EXPECT_NEAR(s.tput_median, 157.36 / 138.16 - 1, 1e-3);  // conc 8
  EXPECT_NEAR(s.intvty_median, 10.78 / 9.32 - 1, 1e-3);   // conc 8
  EXPECT_NEAR(f.factors.step_overhead_us, 15175, 1);
  EXPECT_NEAR(f.factors.kernel_overhead_us, 168.0, 0.1);
  EXPECT_NEAR(f.factors.seq_overhead_us, 1277, 1);
  EXPECT_NEAR(f.factors.attention_flops_fraction, 0.0693, 1e-4);
}

// The command prints the same fold and refuses a bad folder or concurrencies with exit 2.
TEST(ServedCalibration, CommandReportsTheFoldAndRefusesBadInput) {
  const auto ok = test::RunInfermark(
      {"engine", "calibrate", "--served", test::Fixture("real-gpu/h100"), "--fit-conc", "1,4,16,64", "--no-write"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("fit on conc 1,4,16,64, predict conc 2,8,32"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("| 32 | held out | 461.37 |"), std::string::npos) << ok.out;
  const auto missing = test::RunInfermark({"engine", "calibrate", "--served", test::Fixture("real-gpu/none")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("not a folder of agg_*.json records"), std::string::npos) << missing.err;
  const auto conc = test::RunInfermark(
      {"engine", "calibrate", "--served", test::Fixture("real-gpu/h100"), "--fit-conc", "3", "--no-write"});
  EXPECT_EQ(conc.exit_code, 2);
  EXPECT_NE(conc.err.find("--fit-conc"), std::string::npos) << conc.err;
}

}  // namespace
}  // namespace infermark::calibration
