// The model beside a probe: each probed GEMM against the model's roofline plus one kernel.
#include "perfmodel/kernel_table.hpp"

#include <gtest/gtest.h>

#include "perfmodel/engine_data.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

TEST(KernelTable, EachGemmIsSetAgainstTheRooflinePlusOneKernel) {
  const EngineData data = LoadEngineData(test::SourcePath("data/engine"));
  const HardwareSpec& hw = data.FindHardware("h200");
  EfficiencyFactors e;
  e.hbm_bw_fraction = 0.5;
  e.kernel_overhead_us = 4;
  HardwareProfile p;
  p.hbm_read_bytes_per_s = 4.4e12;
  ProbedGemm g;
  g.op = "gate_up";
  g.phase = "decode";
  g.dtype = "fp8";
  g.m = 1;
  g.n = 8192;
  g.k = 8192;
  // The model: bytes over half the datasheet bandwidth, plus 4 us; the probe took twice that.
  const double model_s = g.Bytes() / (0.5 * hw.hbm_bytes_per_s) + 4e-6;
  g.seconds = 2 * model_s;
  p.gemms.push_back(g);
  const KernelTable t = CompareWithProbe(p, hw, e);
  ASSERT_EQ(t.classes.size(), 1u);
  EXPECT_EQ(t.classes[0].kernel_class, "decode, m <= 64, fp8, dense and shared FFN");
  EXPECT_NEAR(t.classes[0].ratio_median, 2.0, 1e-9);
  EXPECT_NEAR(t.classes[0].model_us, model_s * 1e6, 1e-6);
  EXPECT_NEAR(t.ceilings[0].model, 0.5 * hw.hbm_bytes_per_s / 1e12, 1e-9);
  EXPECT_NE(FormatKernelTable(t).find("| decode, m <= 64, fp8, dense and shared FFN | 1 |"), std::string::npos);
}

}  // namespace
}  // namespace infermark::perfmodel
