// Kernel counts and classes: the fixed costs follow the architecture, and predict names what no
// calibration point exercised.
#include "perfmodel/kernel_classes.hpp"

#include <gtest/gtest.h>

#include "perfmodel/project_engine_data.hpp"
#include "perfmodel/step_time.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

Deployment Make(const std::string& model, const std::string& hw, const std::string& precision, int tp,
                bool calibrated = true) {
  DeploymentOptions o;
  o.model = model;
  o.hardware = hw;
  o.precision = precision;
  o.tp = tp;
  o.use_calibration = calibrated;
  return ResolveDeployment(test::ProjectEngineData(), o);
}

TEST(KernelClasses, CountsFollowTheDecoderLayers) {
  // docs/engine-model.md, "Fixed costs": the per-step counts at TP 8.
  EXPECT_EQ(CountKernels(test::ProjectEngineData().FindModel("llama-3.3-70b"), 8, false, false).per_step, 1044);
  EXPECT_EQ(CountKernels(test::ProjectEngineData().FindModel("gpt-oss-120b"), 8, false, false).per_step, 508);
  EXPECT_EQ(CountKernels(test::ProjectEngineData().FindModel("deepseek-r1"), 8, false, false).per_step, 1511);
  // No collectives on one GPU.
  const KernelCounts one = CountKernels(test::ProjectEngineData().FindModel("llama-3.3-70b"), 1, false, false);
  EXPECT_EQ(one.collectives, 0);
  EXPECT_EQ(one.per_step, 80 * (7 + 4) + 4);
  // MLA's block launches more kernels than GQA's.
  EXPECT_GT(CountKernels(test::ProjectEngineData().FindModel("deepseek-r1"), 8, false, false).attention,
            CountKernels(test::ProjectEngineData().FindModel("llama-3.3-70b"), 8, false, false).attention);
}

TEST(KernelClasses, FixedCostsArePerKernel) {
  // Doubling the per-kernel time moves an idle-context, one-sequence step by exactly the kernel
  // count times the increment.
  Deployment d = Make("deepseek-r1", "h200", "fp8", 8);
  d.efficiency.expert_overhead_us = 0;
  StepTimeModel m(d);
  BatchShape s;
  AddDecode(s, 1, 1, m.caps());
  const double base = m.Seconds(s);
  EfficiencyFactors e = d.efficiency;
  e.kernel_overhead_us += 1.0;
  m.SetEfficiency(e);
  EXPECT_NEAR((m.Seconds(s) - base) * 1e6, CountKernels(d.model, 8, false, false).per_step, 1e-6);
}

TEST(KernelClasses, ClassesOfTheBuiltInModels) {
  const Deployment ds = Make("deepseek-r1", "h200", "fp8", 8);
  const std::vector<std::string> want = {"attention.mla", "ffn.dense", "gemm.fp8", "moe.fine_grained",
                                         "moe.shared_experts"};
  EXPECT_EQ(KernelClassesOf(ds), want);
  const Deployment gpt = Make("gpt-oss-120b", "b200", "fp4", 8);
  const std::vector<std::string> gpt_want = {"attention.gqa", "attention.sliding_window", "gemm.fp4_native",
                                             "moe.coarse"};
  EXPECT_EQ(KernelClassesOf(gpt), gpt_want);
  EXPECT_EQ(MissingClasses({"a", "b", "c"}, {"b"}), (std::vector<std::string>{"a", "c"}));
}

TEST(KernelClasses, PredictWarnsWhereNoCalibrationPointWent) {
  // The calibrated profiles were fitted on Llama (dense GQA) and gpt-oss (coarse MoE).
  const Deployment llama = Make("llama-3.3-70b", "h200", "fp8", 8);
  ASSERT_FALSE(llama.calibrated_classes.empty()) << llama.efficiency_source;
  EXPECT_TRUE(UnmeasuredKernelClasses(llama).empty());
  EXPECT_EQ(TransferWarning(llama), "");
  const Deployment ds = Make("deepseek-r1", "h200", "fp8", 8);
  const std::vector<std::string> missing = UnmeasuredKernelClasses(ds);
  EXPECT_NE(std::find(missing.begin(), missing.end(), "attention.mla"), missing.end());
  EXPECT_NE(std::find(missing.begin(), missing.end(), "moe.fine_grained"), missing.end());
  EXPECT_NE(TransferWarning(ds).find("multi-head latent attention (MLA) [attention.mla]"), std::string::npos);
  // On priors nothing was measured.
  const Deployment prior = Make("llama-3.3-70b", "h200", "fp8", 8, false);
  EXPECT_EQ(UnmeasuredKernelClasses(prior), KernelClassesOf(prior));
  EXPECT_NE(TransferWarning(prior).find("no calibrated profile"), std::string::npos);
}

}  // namespace
}  // namespace infermark::perfmodel
