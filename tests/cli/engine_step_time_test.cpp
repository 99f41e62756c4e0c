// `infermark engine step-time`: the printed prediction is the step-time model's for the same
// stack and batch, beside the decode loop's measurement.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "perfmodel/decode_loop.hpp"
#include "run_binary.hpp"

namespace infermark {
namespace {

using test::RunInfermark;

double Predicted(const std::string& model, int layers, int dense, int batch, double context) {
  static const perfmodel::EngineData data = perfmodel::LoadEngineData(test::SourcePath("data/engine"));
  perfmodel::DeploymentOptions o;
  o.model = model;
  o.hardware = "h200";
  o.precision = "fp8";
  o.kv_cache_dtype = "bf16";
  const perfmodel::StepTimeModel m(perfmodel::ResolveStackDeployment(data, o, perfmodel::StackShape{layers, dense, 0}));
  return perfmodel::DecodeStepSeconds(m, batch, context) * 1e3;
}

TEST(EngineStepTime, MeasuredRowsGetTheModelsPrediction) {
  const auto r = RunInfermark({"engine", "step-time", "--model", "deepseek-r1", "--hardware", "h200", "--measured",
                               test::Fixture("decode-loop/h200_fp8.csv"), "--json"},
                              test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["precision"], "fp8");  // from the rows
  EXPECT_EQ(j["kv_cache_dtype"], "bf16");
  ASSERT_EQ(j["rows"].size(), 3u);
  std::vector<double> errors;
  for (const auto& row : j["rows"]) {
    EXPECT_EQ(row["layers"], 10);
    EXPECT_EQ(row["dense_layers"], 1);
    const double want = Predicted("deepseek-r1", 10, 1, row["batch"].get<int>(), 1024);
    EXPECT_NEAR(row["predicted_ms"].get<double>(), want, 1e-9 * want) << row.dump();
    EXPECT_NEAR(row["ratio"].get<double>(), want / row["measured_ms"].get<double>(), 1e-9);
    errors.push_back(std::abs(row["ratio"].get<double>() - 1));
  }
  std::sort(errors.begin(), errors.end());
  EXPECT_NEAR(j["median_abs_error"].get<double>(), errors[1], 1e-12);
  EXPECT_EQ(j["rows"][0]["measured_ms"].get<double>(), 5.1678);
}

TEST(EngineStepTime, FlagsGiveTheShapeWithoutMeasurements) {
  const auto r =
      RunInfermark({"engine", "step-time", "--model", "llama-3.3-70b", "--hardware", "h200", "--precision", "fp8",
                    "--kv-cache-dtype", "bf16", "--layers", "20", "--batch", "1,64", "--context", "4096"},
                   test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  char want[32];
  std::snprintf(want, sizeof want, "%.3f", Predicted("llama-3.3-70b", 20, 20, 64, 4096));
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("measured_ms"), std::string::npos) << r.out;
}

TEST(EngineStepTime, BadInputIsOneClearMessage) {
  auto r = RunInfermark({"engine", "step-time", "--model", "qwen3-235b-a22b", "--hardware", "h200", "--measured",
                         test::Fixture("decode-loop/h200_fp8.csv")},
                        test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no row of qwen3-235b-a22b"), std::string::npos) << r.err;
  r = RunInfermark({"engine", "step-time", "--model", "deepseek-r1", "--hardware", "h200", "--measured",
                    test::Fixture("decode-loop/bad_number.csv")},
                   test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad_number.csv:2"), std::string::npos) << r.err;
  r = RunInfermark({"engine", "step-time", "--model", "llama-3.3-70b", "--hardware", "h200", "--layers", "90"},
                   test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("between 1 and 80"), std::string::npos) << r.err;
  // The other engine subcommands are still there beside this one.
  EXPECT_EQ(RunInfermark({"engine", "serve", "--help"}).exit_code, 0);
}

}  // namespace
}  // namespace infermark
