// A measured hardware profile: ceilings scale by the distance from the reference probe (or
// replace the datasheet without one), and the grouped-GEMM efficiency comes from the probe.
#include "perfmodel/profile_adjustment.hpp"

#include <gtest/gtest.h>

#include "core/diagnostic.hpp"
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

ProbedGemm Gemm(const std::string& model, int experts, double m, double n, double k, double seconds) {
  ProbedGemm g;
  g.model = model;
  g.op = experts > 0 ? "expert_gate_up" : "gate_up";
  g.phase = "decode";
  g.dtype = "bf16";
  g.m = static_cast<std::int64_t>(m);
  g.n = static_cast<std::int64_t>(n);
  g.k = static_cast<std::int64_t>(k);
  g.experts = experts;
  g.seconds = seconds;
  return g;
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

TEST(ProfileAdjustment, GroupedGemmEfficiencyIsMeasuredAgainstPlainGemms) {
  HardwareProfile p;
  p.hardware = "h200";
  // Plain decode GEMM: 8192x8192 bf16 weights (134 MB) in 40 us; grouped: the same bytes over 8
  // experts in 80 us: half the bandwidth.
  p.gemms.push_back(Gemm("deepseek-r1", 0, 1, 8192, 8192, 40e-6));
  p.gemms.push_back(Gemm("deepseek-r1", 8, 1, 8192, 1024, 80e-6));
  EXPECT_NEAR(GroupedGemmEfficiency(p, "deepseek-r1"), 0.5, 0.01);
  Deployment d = Make();
  ApplyHardwareProfile(d, p, nullptr);
  EXPECT_NEAR(d.efficiency.grouped_bw_efficiency, 0.5, 0.01);
  // Prefill rows and large batches do not count.
  HardwareProfile none;
  none.gemms.push_back(Gemm("deepseek-r1", 8, 256, 8192, 1024, 80e-6));
  EXPECT_EQ(GroupedGemmEfficiency(none, "deepseek-r1"), 0);
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

}  // namespace
}  // namespace infermark::perfmodel
