// A measured hardware profile: ceilings scale by the distance from the reference probe (or
// replace the datasheet without one), and a kernel costs at least a CUDA-graph node.
#include "perfmodel/profile_adjustment.hpp"

#include <gtest/gtest.h>

#include "core/diagnostic.hpp"
#include "perfmodel/collective_shapes.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

Deployment Make() {
  static const EngineData data = LoadEngineData(test::SourcePath("data/engine"));
  DeploymentOptions o;
  o.model = "deepseek-r1";
  o.hardware = "h200";
  o.precision = "fp8";
  o.tp = 8;
  return ResolveDeployment(data, o);
}

TEST(ProfileAdjustment, WithoutAReferenceTheMeasurementReplacesTheDatasheet) {
  Deployment d = Make();
  HardwareProfile p;
  p.hardware = "h200";
  p.path = "h200-probe.yaml";
  p.hbm_read_bytes_per_s = 4.3e12;
  p.gemm_peak_bf16 = 780e12;
  const ProfileAdjustment a = ApplyHardwareProfile(d, p, nullptr);
  EXPECT_DOUBLE_EQ(d.hardware.hbm_bytes_per_s, 4.3e12);
  EXPECT_DOUBLE_EQ(d.hardware.flops_bf16, 780e12);
  EXPECT_EQ(a.changes.size(), 2u);
  EXPECT_NE(d.efficiency_source.find("h200-probe.yaml"), std::string::npos);
}

TEST(ProfileAdjustment, WithAReferenceTheRatesScaleByTheDistanceFromIt) {
  Deployment d = Make();
  const double datasheet = d.hardware.hbm_bytes_per_s;
  HardwareProfile ref, p;
  ref.hardware = p.hardware = "h200";
  ref.hbm_read_bytes_per_s = 4.4e12;
  p.hbm_read_bytes_per_s = 3.96e12;  // a card 10 % slower than the reference
  ApplyHardwareProfile(d, p, &ref);
  EXPECT_NEAR(d.hardware.hbm_bytes_per_s, datasheet * 0.9, datasheet * 1e-12);
  // A card like the reference changes nothing.
  Deployment same = Make();
  ApplyHardwareProfile(same, ref, &ref);
  EXPECT_DOUBLE_EQ(same.hardware.hbm_bytes_per_s, datasheet);
}

TEST(ProfileAdjustment, AKernelCostsAtLeastAGraphNode) {
  Deployment d = Make();
  d.efficiency.kernel_overhead_us = 0.2;
  HardwareProfile p;
  p.hardware = "h200";
  p.graph_kernel_s = 0.5e-6;
  ApplyHardwareProfile(d, p, nullptr);
  EXPECT_DOUBLE_EQ(d.efficiency.kernel_overhead_us, 0.5);
  Deployment fitted = Make();
  const double before = fitted.efficiency.kernel_overhead_us;
  ApplyHardwareProfile(fitted, p, nullptr);
  EXPECT_DOUBLE_EQ(fitted.efficiency.kernel_overhead_us, before);  // the fitted cost is above the floor
}

TEST(ProfileAdjustment, AProfileOfAnotherGpuIsRefused) {
  Deployment d = Make();
  HardwareProfile p;
  p.hardware = "b200";
  p.path = "b200.yaml";
  try {
    ApplyHardwareProfile(d, p, nullptr);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the profile measured a b200"), std::string::npos) << e.what();
  }
}

// A profile with NCCL figures over `gpus` GPUs: a small all-reduce of `latency_s`, a large one at
// `bus` bytes/s of bus bandwidth, and all-to-alls alike.
HardwareProfile Collectives(int gpus, double latency_s, double bus) {
  HardwareProfile p;
  p.hardware = "h200";
  p.path = "h200-nccl.yaml";
  p.scale_up.nccl_version = "2.27.7";
  for (const char* op : {"all_reduce", "all_to_all"}) {
    p.scale_up.collectives.push_back({op, gpus, 117440512, 117440512.0 / bus * BusFactor(op, gpus), bus, 0, true});
    p.scale_up.collectives.push_back({op, gpus, 14336, latency_s, 14336 / latency_s * BusFactor(op, gpus), 0, true});
  }
  return p;
}

TEST(ProfileAdjustment, MeasuredCollectivesReplaceTheLatencyPriorsAndTheLink) {
  Deployment d = Make();  // tp 8, TP all-reduce
  const HardwareProfile p = Collectives(8, 21e-6, 370e9);
  const ProfileAdjustment a = ApplyHardwareProfile(d, p, nullptr);
  EXPECT_DOUBLE_EQ(d.hardware.allreduce_latency_s, 21e-6);
  EXPECT_DOUBLE_EQ(d.hardware.alltoall_latency_s, 21e-6);
  EXPECT_DOUBLE_EQ(d.hardware.link_bytes_per_s, 370e9);  // the largest all-reduce's bus bandwidth
  bool named = false;
  for (const std::string& c : a.changes) named = named || c.find("all_reduce bus bandwidth") != std::string::npos;
  EXPECT_TRUE(named);
  // The model's all-reduce term now follows the measurement.
  EXPECT_NEAR(ModelCollectiveSeconds(d.hardware, EfficiencyFactors{.link_bw_fraction = 1.0}, "all_reduce", 8, 14336),
              21e-6 + 14336 * 1.75 / 370e9, 1e-12);
}

TEST(ProfileAdjustment, CollectivesOfAnotherGpuCountChangeNothing) {
  Deployment d = Make();
  const HardwareSpec before = d.hardware;
  const ProfileAdjustment a = ApplyHardwareProfile(d, Collectives(1, 6e-6, 0), nullptr);  // a one-GPU probe
  EXPECT_DOUBLE_EQ(d.hardware.allreduce_latency_s, before.allreduce_latency_s);
  EXPECT_DOUBLE_EQ(d.hardware.link_bytes_per_s, before.link_bytes_per_s);
  EXPECT_TRUE(a.changes.empty());
  Deployment four = Make();
  ApplyHardwareProfile(four, Collectives(4, 15e-6, 300e9), nullptr);
  EXPECT_DOUBLE_EQ(four.hardware.link_bytes_per_s, before.link_bytes_per_s);
}

TEST(ProfileAdjustment, WithAReferenceTheLinkScalesByTheDistanceFromIt) {
  Deployment d = Make();
  const double datasheet = d.hardware.link_bytes_per_s;
  const HardwareProfile ref = Collectives(8, 20e-6, 400e9);
  ApplyHardwareProfile(d, Collectives(8, 20e-6, 360e9), &ref);
  EXPECT_NEAR(d.hardware.link_bytes_per_s, datasheet * 0.9, datasheet * 1e-12);
}

TEST(ProfileAdjustment, ExpertParallelDeploymentsTakeTheLinkFromTheAllToAll) {
  static const EngineData data = LoadEngineData(test::SourcePath("data/engine"));
  DeploymentOptions o;
  o.model = "deepseek-r1";
  o.hardware = "h200";
  o.precision = "fp8";
  o.tp = 8;
  o.ep = 8;
  o.dp_attention = true;
  Deployment d = ResolveDeployment(data, o);
  HardwareProfile p = Collectives(8, 20e-6, 360e9);
  for (ProbedCollective& c : p.scale_up.collectives)
    if (c.op == "all_to_all" && c.bytes > 14336) c.bus_bytes_per_s = 250e9;
  ApplyHardwareProfile(d, p, nullptr);
  EXPECT_DOUBLE_EQ(d.hardware.link_bytes_per_s, 250e9);
}

TEST(ProfileAdjustment, TheOneGpuH200ProbeIsReadButChangesNoCollectiveTerm) {
  // `gpu probe --collectives-only` on one H200: 1-rank communicators only (no link crossed).
  const std::string path = test::SourcePath("tests/fixtures/gpu/h200/collectives_1.yaml");
  const HardwareProfile p = LoadHardwareProfile(path);
  EXPECT_EQ(p.scale_up.nccl_version, "2.28.9");
  EXPECT_FALSE(p.scale_up.nvls);
  ASSERT_EQ(p.scale_up.collectives.size(), 180u);
  for (const ProbedCollective& c : p.scale_up.collectives) {
    EXPECT_EQ(c.gpus, 1);
    EXPECT_EQ(c.bus_bytes_per_s, 0);
    EXPECT_GT(c.seconds, 0);
  }
  EXPECT_FALSE(p.scale_up.Sizes("all_to_all", 1).empty());
  Deployment d = Make();
  const HardwareSpec before = d.hardware;
  const ProfileAdjustment a = ApplyHardwareProfile(d, p, nullptr);
  EXPECT_TRUE(a.changes.empty());
  EXPECT_DOUBLE_EQ(d.hardware.allreduce_latency_s, before.allreduce_latency_s);
  EXPECT_DOUBLE_EQ(d.hardware.alltoall_latency_s, before.alltoall_latency_s);
  EXPECT_DOUBLE_EQ(d.hardware.link_bytes_per_s, before.link_bytes_per_s);
}

}  // namespace
}  // namespace infermark::perfmodel
