// The step-time model: monotonic where physics says so, and the parts behave as documented.
#include "perfmodel/step_time.hpp"

#include <gtest/gtest.h>

#include "perfmodel/deployment.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

Deployment Make(const std::string& model, const std::string& hw, const std::string& precision, int tp) {
  static const EngineData data = LoadEngineData(test::SourcePath("data/engine"));
  DeploymentOptions o;
  o.model = model;
  o.hardware = hw;
  o.precision = precision;
  o.tp = tp;
  return ResolveDeployment(data, o);
}

BatchShape Decode(const StepTimeModel& m, int seqs, double context) {
  BatchShape s;
  for (int i = 0; i < seqs; ++i) AddDecode(s, context, 1, m.caps());
  return s;
}

TEST(StepTime, GrowsWithBatchAndContext) {
  for (const auto& [model, hw, precision] :
       {std::tuple{"llama-3.3-70b", "h200", "fp8"}, std::tuple{"gpt-oss-120b", "b200", "fp4"},
        std::tuple{"minimax-m3", "mi355x", "fp4"}, std::tuple{"deepseek-r1", "h200", "fp8"}}) {
    const StepTimeModel m(Make(model, hw, precision, 8));
    double last = 0;
    for (int b = 1; b <= 512; b *= 2) {
      const double t = m.Seconds(Decode(m, b, 2048));
      EXPECT_GT(t, last) << model << " batch " << b;
      last = t;
    }
    last = 0;
    for (double ctx = 128; ctx <= 131072; ctx *= 2) {
      const double t = m.Seconds(Decode(m, 32, ctx));
      EXPECT_GE(t, last) << model << " context " << ctx;
      last = t;
    }
    last = 0;
    for (double chunk = 256; chunk <= 16384; chunk *= 2) {
      BatchShape s;
      AddPrefill(s, 0, chunk, m.caps());
      const double t = m.Seconds(s);
      EXPECT_GT(t, last) << model << " chunk " << chunk;
      last = t;
    }
  }
}

TEST(StepTime, DecodeIsAffineInContext) {
  // What the scheduler's spans rely on: for a fixed batch the step time is affine in the context.
  const StepTimeModel m(Make("llama-3.3-70b", "h100", "fp8", 4));
  const double a = m.Seconds(Decode(m, 16, 1000)), b = m.Seconds(Decode(m, 16, 2000)),
               c = m.Seconds(Decode(m, 16, 3000));
  EXPECT_NEAR(c - b, b - a, 1e-12);
}

TEST(StepTime, MoreGpusMakeSmallBatchesFaster) {
  const StepTimeModel tp1(Make("llama-3.3-70b", "h200", "fp8", 1));
  const StepTimeModel tp8(Make("llama-3.3-70b", "h200", "fp8", 8));
  EXPECT_LT(tp8.Seconds(Decode(tp8, 4, 1024)), tp1.Seconds(Decode(tp1, 4, 1024)));
}

TEST(StepTime, ExpertReadsGrowWithDistinctExperts) {
  // Batch 1 touches k experts, batch 64 nearly all of them: the weight-bound decode step grows
  // much less than 64x, and more for a MoE model than the overheads alone explain.
  const StepTimeModel m(Make("deepseek-r1", "h200", "fp8", 8));
  const double one = m.Seconds(Decode(m, 1, 1024)), many = m.Seconds(Decode(m, 64, 1024));
  EXPECT_GT(many, 1.3 * one);
  EXPECT_LT(many, 10 * one);
}

TEST(StepTime, CausalPairsMatchTheSum) {
  for (double cached : {0.0, 5.0, 300.0})
    for (double chunk : {1.0, 7.0, 500.0})
      for (double cap : {0.0, 128.0, 1000.0}) {
        double sum = 0;
        for (double i = 0; i < chunk; ++i) {
          const double keys = cached + i + 1;
          sum += cap > 0 ? std::min(keys, cap) : keys;
        }
        EXPECT_DOUBLE_EQ(CausalPairs(cached, chunk, cap), sum) << cached << " " << chunk << " " << cap;
      }
}

}  // namespace
}  // namespace infermark::perfmodel
