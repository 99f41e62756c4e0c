// The decode loop's CSV, the stacks it builds and the step-time model's prediction for them.
#include "perfmodel/decode_loop.hpp"

#include <gtest/gtest.h>

#include "core/diagnostic.hpp"
#include "perfmodel/project_engine_data.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

TEST(DecodeLoop, ReadsTheMeasuredRows) {
  const auto rows = LoadDecodeLoopCsv(test::Fixture("decode-loop/h200_fp8.csv"));
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].model, "llama-3.3-70b");
  EXPECT_EQ(rows[0].dtype, "fp8");
  EXPECT_EQ(rows[0].kv_dtype, "bf16");
  EXPECT_EQ(rows[0].shape.layers, 57);
  EXPECT_EQ(rows[0].shape.dense_layers, 57);
  EXPECT_EQ(rows[0].line, 2);
  EXPECT_DOUBLE_EQ(rows[0].step_ms_median, 19.0581);
  EXPECT_EQ(rows[3].model, "deepseek-r1");
  EXPECT_EQ(rows[3].shape.dense_layers, 1);
  EXPECT_EQ(rows[5].batch, 64);
  EXPECT_DOUBLE_EQ(rows[5].context, 1024);
}

TEST(DecodeLoop, ABadCellNamesFileLineAndColumn) {
  const std::string path = test::Fixture("decode-loop/bad_number.csv");
  try {
    LoadDecodeLoopCsv(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path + ":2"), std::string::npos) << what;
    EXPECT_NE(what.find("step_ms_median"), std::string::npos) << what;
    EXPECT_NE(what.find("not a number: 'fast'"), std::string::npos) << what;
  }
}

TEST(DecodeLoop, DefaultStacksKeepTheModelsShares) {
  const ModelSpec dsr1 = test::ProjectEngineData().FindModel("deepseek-r1");
  // 3 of 61 dense: 10 layers round to 0 dense, kept at 1; one layer is MoE.
  EXPECT_EQ(DefaultStackShape(dsr1, 10).dense_layers, 1);
  EXPECT_EQ(DefaultStackShape(dsr1, 1).dense_layers, 0);
  EXPECT_EQ(DefaultStackShape(dsr1, 61).dense_layers, 3);
  EXPECT_EQ(DefaultStackShape(dsr1, 100).layers, 61);
  EXPECT_EQ(DefaultStackShape(test::ProjectEngineData().FindModel("llama-3.3-70b"), 57).dense_layers, 57);
  EXPECT_EQ(DefaultStackShape(test::ProjectEngineData().FindModel("qwen3-235b-a22b"), 37).dense_layers, 0);
  const StackShape oss =
      DefaultStackShape(test::ProjectEngineData().FindModel("gpt-oss-120b"), 30);  // 18 of 36 windowed
  EXPECT_EQ(oss.window_layers, 15);
  EXPECT_EQ(oss.dense_layers, 0);
}

TEST(DecodeLoop, CutModelsRefuseShapesTheModelCannotHave) {
  const ModelSpec llama = test::ProjectEngineData().FindModel("llama-3.3-70b");
  EXPECT_THROW(CutModel(llama, StackShape{81, 81, 0}, "--layers"), InputError);
  EXPECT_THROW(CutModel(llama, StackShape{8, 4, 0}, "--layers"), InputError);  // dense model
  EXPECT_THROW(CutModel(llama, StackShape{8, 8, 2}, "--layers"), InputError);  // no window
  const ModelSpec cut = CutModel(test::ProjectEngineData().FindModel("deepseek-r1"), StackShape{10, 1, 0}, "--layers");
  EXPECT_EQ(cut.layers, 10);
  EXPECT_EQ(cut.MoeLayers(), 9);
}

TEST(DecodeLoop, PredictionIsTheStepTimeModelsOnTheCutModel) {
  DeploymentOptions o;
  o.model = "deepseek-r1";
  o.hardware = "h200";
  o.precision = "fp8";
  o.kv_cache_dtype = "bf16";
  // The whole model does not fit one H200; a stack of ten layers does.
  EXPECT_THROW(ResolveDeployment(test::ProjectEngineData(), o), InputError);
  const Deployment d = ResolveStackDeployment(test::ProjectEngineData(), o, StackShape{10, 1, 0});
  EXPECT_EQ(d.model.layers, 10);
  EXPECT_EQ(d.model.dense_layers, 1);
  EXPECT_EQ(d.precision.kv_bytes, 2.0);
  const StepTimeModel m(d);
  BatchShape shape;
  for (int i = 0; i < 8; ++i) AddDecode(shape, 1024, 1, m.caps());
  EXPECT_DOUBLE_EQ(DecodeStepSeconds(m, 8, 1024), m.Seconds(shape));
  // Fewer layers, less time: the cut reaches the step-time model.
  const StepTimeModel shorter(ResolveStackDeployment(test::ProjectEngineData(), o, StackShape{5, 1, 0}));
  EXPECT_LT(DecodeStepSeconds(shorter, 8, 1024), DecodeStepSeconds(m, 8, 1024));
}

}  // namespace
}  // namespace infermark::perfmodel
