// The step-time model: monotonic where physics says so, and the parts behave as documented.
#include "perfmodel/step_time.hpp"

#include <gtest/gtest.h>

#include "perfmodel/deployment.hpp"
#include "perfmodel/project_engine_data.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

Deployment StepDeployment(const std::string& model, const std::string& hw, const std::string& precision, int tp,
                          int ep = 1, bool dp_attention = false) {
  DeploymentOptions o;
  o.model = model;
  o.hardware = hw;
  o.precision = precision;
  o.tp = tp;
  o.ep = ep;
  o.dp_attention = dp_attention;
  return ResolveDeployment(test::ProjectEngineData(), o);
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
    const StepTimeModel m(StepDeployment(model, hw, precision, 8));
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
  const StepTimeModel m(StepDeployment("llama-3.3-70b", "h100", "fp8", 4));
  const double a = m.Seconds(Decode(m, 16, 1000)), b = m.Seconds(Decode(m, 16, 2000)),
               c = m.Seconds(Decode(m, 16, 3000));
  EXPECT_NEAR(c - b, b - a, 1e-12);
}

TEST(StepTime, MoreGpusMakeSmallBatchesFaster) {
  const StepTimeModel tp1(StepDeployment("llama-3.3-70b", "h200", "fp8", 1));
  const StepTimeModel tp8(StepDeployment("llama-3.3-70b", "h200", "fp8", 8));
  EXPECT_LT(tp8.Seconds(Decode(tp8, 4, 1024)), tp1.Seconds(Decode(tp1, 4, 1024)));
}

TEST(StepTime, ExpertReadsGrowWithDistinctExperts) {
  // Batch 1 touches k experts, batch 64 nearly all of them: the weight-bound decode step grows
  // much less than 64x, and more for a MoE model than the overheads alone explain.
  const StepTimeModel m(StepDeployment("deepseek-r1", "h200", "fp8", 8));
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

TEST(StepTime, AttentionDataParallelWithExpertsOverTpPaysAGatherAndScatterPerFfnBlock) {
  // DeepSeek-R1 rows of disaggregated catalogs run dp-attn with ep 1: attention per rank, experts
  // split over TP. Around each of the 61 FFN blocks (3 dense, 58 MoE) every rank gathers all ranks'
  // tokens and scatters the reduced outputs back: an all-reduce's traffic of the whole batch.
  const Deployment d = StepDeployment("deepseek-r1", "b200", "fp8", 8, 1, true);
  const StepTimeModel dp(d);
  const StepTimeModel tp(StepDeployment("deepseek-r1", "b200", "fp8", 8));
  // Each rank's attention reads 1/8 of the batch's KV, where TP attention reads the replicated latent of all.
  EXPECT_LT(dp.Seconds(Decode(dp, 256, 4096)), tp.Seconds(Decode(tp, 256, 4096)));
  // The collectives' bandwidth term, exactly: remove it with a 1000× faster scale-up link.
  EngineData fast_link = test::ProjectEngineData();
  for (HardwareSpec& h : fast_link.hardware)
    if (h.name == "b200") h.link_bytes_per_s *= 1000;
  DeploymentOptions o;
  o.model = "deepseek-r1";
  o.hardware = "b200";
  o.precision = "fp8";
  o.tp = 8;
  o.dp_attention = true;
  const StepTimeModel dp_fast(ResolveDeployment(fast_link, o));
  const double bytes = 256 * 7168 * 2.0;
  const double ring = 2 * 7.0 / 8 * bytes / (d.efficiency.link_bw_fraction * d.hardware.link_bytes_per_s);
  EXPECT_NEAR(dp.Seconds(Decode(dp, 256, 4096)) - dp_fast.Seconds(Decode(dp_fast, 256, 4096)), 61 * ring * 0.999, 1e-7);
}

TEST(StepTime, ATensorParallelGroupBeyondOneDomainCrossesTheScaleOutNetwork) {
  // TP 16 on H100 spans two 8-GPU NVLink domains: its all-reduces cross the 400 Gb/s NICs, and a TP group
  // of 12 (not whole domains) is refused.
  const StepTimeModel tp16(StepDeployment("deepseek-r1", "h100", "fp8", 16));
  EngineData fast_nics = test::ProjectEngineData();
  for (HardwareSpec& h : fast_nics.hardware)
    if (h.name == "h100") h.scale_out_bytes_per_s *= 100;
  DeploymentOptions o;
  o.model = "deepseek-r1";
  o.hardware = "h100";
  o.precision = "fp8";
  o.tp = 16;
  const StepTimeModel tp16_fast(ResolveDeployment(fast_nics, o));
  BatchShape chunk;
  AddPrefill(chunk, 0, 8192, tp16.caps());
  // 61 layers × 2 all-reduces of 8,192 × 7,168 bf16 values: each GPU's 1/8 shard crosses its NIC
  // (50 GB/s at the link fraction): tens of milliseconds that 100× faster NICs nearly remove.
  EXPECT_GT(tp16.Seconds(chunk) - tp16_fast.Seconds(chunk), 0.02);
  try {
    StepDeployment("deepseek-r1", "h100", "fp8", 12);
    FAIL() << "tp 12 on 8-GPU domains was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("whole domains"), std::string::npos) << e.what();
  }
  // Wide EP across domains: 8/15 of each rank's dispatch crosses the NICs, the slower side.
  o.ep = 16;
  o.dp_attention = true;
  const StepTimeModel ep16(ResolveDeployment(test::ProjectEngineData(), o));
  const StepTimeModel ep16_fast(ResolveDeployment(fast_nics, o));
  EXPECT_GT(ep16.Seconds(Decode(ep16, 512, 2048)), ep16_fast.Seconds(Decode(ep16_fast, 512, 2048)));
}

// transformers' paged-sdpa path (frameworks.yaml `attention: whole_batch`) runs every query of the
// pass against every key it gathered: at a fixed context the attention work grows with the batch
// squared, where a per-sequence paged kernel's grows with the batch: doubling the batch doubles a
// paged kernel's attention time and more than doubles this one's.
TEST(StepTime, WholeBatchAttentionGrowsWithBatchSquared) {
  auto make = [](const std::string& framework) {
    DeploymentOptions o;
    o.model = "llama-3.1-8b";
    o.hardware = "h100";
    o.precision = "bf16";
    o.framework = framework;
    o.tp = 1;
    o.use_calibration = false;
    return ResolveDeployment(test::ProjectEngineData(), o);
  };
  const Deployment whole = make("transformers");
  ASSERT_EQ(whole.framework.attention, AttentionScope::kWholeBatch);
  const StepTimeModel batch(whole);
  const StepTimeModel paged(make("vllm"));
  // The context-dependent part of a decode step (the attention), at batch 32 and 64.
  auto attention = [](const StepTimeModel& m, int seqs) {
    return m.Seconds(Decode(m, seqs, 1500)) - m.Seconds(Decode(m, seqs, 0));
  };
  EXPECT_NEAR(attention(paged, 64) / attention(paged, 32), 2.0, 1e-9);
  EXPECT_GT(attention(batch, 64) / attention(batch, 32), 2.5);
  // Tokens × keys: batch 64 at context 1500 meets 64 · 64 · 1500 pairs per head and layer, 4·32·128
  // FLOPs each, over the attention's share of the bf16 peak.
  const EfficiencyFactors& e = batch.efficiency();
  const double pairs = 64.0 * 64 * 1500;
  const double flops = 32 * pairs * 4 * 32 * 128;
  const double kv_bytes = 32 * 3 * 64 * 1500 * 2.0 * 8 * 128 * 2;
  const double expected = std::max(flops / (e.attention_flops_fraction * whole.hardware.PeakFlops(ComputeDtype::kBf16)),
                                   kv_bytes / (e.attention_bw_fraction * whole.hardware.hbm_bytes_per_s));
  BatchShape no_attention = Decode(batch, 64, 0);
  EXPECT_NEAR(batch.Seconds(Decode(batch, 64, 1500)) - batch.Seconds(no_attention), expected, expected * 1e-9);
}

}  // namespace
}  // namespace infermark::perfmodel
