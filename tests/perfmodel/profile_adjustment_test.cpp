// A measured hardware profile: ceilings scale by the distance from the reference probe (or
// replace the datasheet without one), and a kernel costs at least a CUDA-graph node.
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

}  // namespace
}  // namespace infermark::perfmodel
