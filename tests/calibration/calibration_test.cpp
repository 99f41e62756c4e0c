// Calibration through the library: each held-out error is measured on points the fit never saw,
// and the repeat file's noise floor is read as the report states it.
#include "calibration/calibration.hpp"

#include <gtest/gtest.h>

#include <set>

#include "perfmodel/engine_data.hpp"
#include "sim/predict.hpp"
#include "test_paths.hpp"

namespace infermark::calibration {
namespace {

using perfmodel::EngineData;
using perfmodel::LoadEngineData;

TEST(Calibration, ErrorsAreMeasuredOnPointsLeftOutOfTheFit) {
  const EngineData data = LoadEngineData(test::SourcePath("data/engine"));
  std::vector<MeasuredPoint> all = LoadMeasuredPoints(test::SourcePath("data/engine/measured/measured_points.csv"));
  ASSERT_EQ(all.size(), 1127u);
  // A small slice keeps the test fast: one GPU, both models, 1k/1k, conc <= 16.
  std::vector<MeasuredPoint> slice;
  for (const auto& p : all)
    if (p.hw_key == "h200" && p.isl == 1024 && p.osl == 1024 && p.conc <= 16) slice.push_back(p);
  const Calibrator c(data, slice, 1, &sim::RecordTrace);
  FitSettings s;
  s.max_evaluations = 40;
  const auto folds = ModelLeftOut(c, s);
  ASSERT_EQ(folds.size(), 2u);
  for (const auto& f : folds) {
    std::set<std::string> train_models, test_models;
    std::set<std::size_t> train(f.train.begin(), f.train.end());
    for (std::size_t i : f.train) train_models.insert(c.points()[i].model);
    for (const auto& e : f.errors) {
      EXPECT_EQ(train.count(e.index), 0u);
      test_models.insert(c.points()[e.index].model);
      EXPECT_GE(e.tput_error, 0);
      EXPECT_GT(e.pred_tput, 0);
    }
    ASSERT_EQ(train_models.size(), 1u);
    ASSERT_EQ(test_models.size(), 1u);
    EXPECT_NE(*train_models.begin(), *test_models.begin());
  }
  const ErrorSummary noise =
      NoiseFloor(LoadRepeatedPoints(test::SourcePath("data/engine/measured/repeat_2025-10-25_vs_2025-10-28.csv")));
  EXPECT_GT(noise.points, 1000u);
  EXPECT_LT(noise.tput_median, 0.01);
}

}  // namespace
}  // namespace infermark::calibration
