// Hardware profiles: what FormatHardwareProfile writes LoadHardwareProfile reads back, bad files
// fail with file:line and field, and two profiles compare figure by figure.
#include "perfmodel/hardware_profile.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/diagnostic.hpp"
#include "perfmodel/hardware_profile_diff.hpp"

namespace infermark::perfmodel {
namespace {

std::string ProfileTempFile(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "infermark-profile-test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

HardwareProfile Sample() {
  HardwareProfile p;
  p.hardware = "h200";
  p.gpu_name = "NVIDIA H200";
  p.gpu_uuid = "GPU-0a1b2c3d-0000-1111-2222-333344445555";
  p.driver = "580.159.04";
  p.cuda_runtime = "13.0";
  p.compute_capability = "9.0";
  p.sm_count = 132;
  p.memory_bytes = 150.754e9;
  p.measured_at = "2026-11-20T10:11:12Z";
  p.host = "gpu-host-1";
  p.infermark_version = "0.1.0 (abc123)";
  p.command = "infermark gpu probe --out profile.yaml --quick";
  p.sm_clock_max_mhz = 1980;
  p.mem_clock_max_mhz = 3201;
  p.hbm_read_bytes_per_s = 4.41234e12;
  p.hbm_write_bytes_per_s = 4.2e12;
  p.hbm_copy_bytes_per_s = 4.31e12;
  p.gemm_peak_bf16 = 7.8812e14;
  p.gemm_peak_fp8 = 1.3e15;
  p.kernel_launch_s = 2.25e-6;
  p.graph_kernel_s = 6.5e-7;
  p.graph_launch_s = 3.1e-6;
  ProbedGemm g;
  g.model = "llama-3.3-70b";
  g.op = "qkv";
  g.phase = "decode";
  g.dtype = "bf16";
  g.tp = 8;
  g.m = 1;
  g.n = 1280;
  g.k = 8192;
  g.seconds = 1.234e-5;
  g.spread = 0.0123;
  g.avg_power_w = 412.5;
  g.sm_clock_mhz = 1980;
  g.algo = "66:18:34:1:0:0:0:0:2";
  p.gemms.push_back(g);
  g.algo = "";
  g.model = "deepseek-r1";
  g.op = "expert_gate_up";
  g.dtype = "bf16";
  g.tp = 1;
  g.m = 2;
  g.n = 4096;
  g.k = 7168;
  g.experts = 8;
  g.seconds = 2.5e-4;
  g.spread = 0;
  g.avg_power_w = 0;
  g.sm_clock_mhz = 0;
  p.gemms.push_back(g);
  g.model = "";
  g.op = "square";
  g.phase = "prefill";
  g.dtype = "fp8";
  g.experts = 0;
  p.gemms.push_back(g);
  p.power.push_back({"hbm_read", 610.25, 1980, 3201});
  p.power.push_back({"gemm_bf16_peak", 690, 1755, 3201});
  return p;
}

TEST(HardwareProfile, RoundTripsEveryField) {
  const HardwareProfile p = Sample();
  const std::string text = FormatHardwareProfile(p);
  const HardwareProfile q = LoadHardwareProfile(ProfileTempFile("round.yaml", text));
  EXPECT_EQ(q.version, 1);
  EXPECT_EQ(q.hardware, p.hardware);
  EXPECT_EQ(q.gpu_name, p.gpu_name);
  EXPECT_EQ(q.gpu_uuid, p.gpu_uuid);
  EXPECT_EQ(q.driver, p.driver);
  EXPECT_EQ(q.cuda_runtime, "13.0");
  EXPECT_EQ(q.compute_capability, "9.0");
  EXPECT_EQ(q.sm_count, 132);
  EXPECT_DOUBLE_EQ(q.memory_bytes, p.memory_bytes);
  EXPECT_EQ(q.measured_at, p.measured_at);
  EXPECT_EQ(q.host, p.host);
  EXPECT_EQ(q.infermark_version, p.infermark_version);
  EXPECT_EQ(q.command, p.command);
  EXPECT_DOUBLE_EQ(q.sm_clock_max_mhz, 1980);
  EXPECT_DOUBLE_EQ(q.mem_clock_max_mhz, 3201);
  EXPECT_DOUBLE_EQ(q.hbm_read_bytes_per_s, p.hbm_read_bytes_per_s);
  EXPECT_DOUBLE_EQ(q.hbm_write_bytes_per_s, p.hbm_write_bytes_per_s);
  EXPECT_DOUBLE_EQ(q.hbm_copy_bytes_per_s, p.hbm_copy_bytes_per_s);
  EXPECT_DOUBLE_EQ(q.gemm_peak_bf16, p.gemm_peak_bf16);
  EXPECT_DOUBLE_EQ(q.gemm_peak_fp8, p.gemm_peak_fp8);
  EXPECT_DOUBLE_EQ(q.kernel_launch_s, p.kernel_launch_s);
  EXPECT_DOUBLE_EQ(q.graph_kernel_s, p.graph_kernel_s);
  EXPECT_DOUBLE_EQ(q.graph_launch_s, p.graph_launch_s);
  ASSERT_EQ(q.gemms.size(), 3u);
  for (std::size_t i = 0; i < q.gemms.size(); ++i) {
    const ProbedGemm &x = p.gemms[i], &y = q.gemms[i];
    EXPECT_EQ(y.model, x.model);
    EXPECT_EQ(y.op, x.op);
    EXPECT_EQ(y.phase, x.phase);
    EXPECT_EQ(y.dtype, x.dtype);
    EXPECT_EQ(y.tp, x.tp);
    EXPECT_EQ(y.m, x.m);
    EXPECT_EQ(y.n, x.n);
    EXPECT_EQ(y.k, x.k);
    EXPECT_EQ(y.experts, x.experts);
    EXPECT_DOUBLE_EQ(y.seconds, x.seconds);
    EXPECT_DOUBLE_EQ(y.spread, x.spread);
    EXPECT_DOUBLE_EQ(y.avg_power_w, x.avg_power_w);
    EXPECT_DOUBLE_EQ(y.sm_clock_mhz, x.sm_clock_mhz);
    EXPECT_EQ(y.algo, x.algo);
  }
  EXPECT_EQ(q.gemms[0].algo, "66:18:34:1:0:0:0:0:2");
  ASSERT_EQ(q.power.size(), 2u);
  EXPECT_EQ(q.power[1].test, "gemm_bf16_peak");
  EXPECT_DOUBLE_EQ(q.power[0].avg_power_w, 610.25);
  EXPECT_DOUBLE_EQ(q.power[1].sm_clock_mhz, 1755);
  EXPECT_DOUBLE_EQ(q.power[1].mem_clock_mhz, 3201);
  // Written again, the text is the same: six significant digits are a fixed point.
  EXPECT_EQ(FormatHardwareProfile(q), text);
}

TEST(HardwareProfile, WritesReadableUnitsAndAHeader) {
  const std::string text = FormatHardwareProfile(Sample());
  EXPECT_EQ(text.rfind("# infermark hardware profile", 0), 0u);
  EXPECT_NE(text.find("# GPU: NVIDIA H200 (GPU-0a1b2c3d"), std::string::npos);
  EXPECT_NE(text.find("# Command: infermark gpu probe --out profile.yaml --quick"), std::string::npos);
  EXPECT_NE(text.find("  read: 4412.34\n"), std::string::npos);
  EXPECT_NE(text.find("  bf16: 788.12\n"), std::string::npos);
  EXPECT_NE(text.find("  kernel: 2.25\n"), std::string::npos);
  EXPECT_NE(text.find("cuda_runtime: \"13.0\""), std::string::npos);
  EXPECT_NE(text.find("us: 12.34, spread: 0.0123, power_w: 412.5"), std::string::npos);
  EXPECT_NE(text.find("{model: \"\", op: square"), std::string::npos);
}

TEST(HardwareProfile, TinyAndHugeFiguresStayNumbers) {
  HardwareProfile p = Sample();
  p.gemms[0].spread = 1e-5;
  p.gemms[0].seconds = 2e3;
  const HardwareProfile q = LoadHardwareProfile(ProfileTempFile("exp.yaml", FormatHardwareProfile(p)));
  EXPECT_DOUBLE_EQ(q.gemms[0].spread, 1e-5);
  EXPECT_DOUBLE_EQ(q.gemms[0].seconds, 2e3);
}

std::string ErrorOf(const std::string& text) {
  try {
    LoadHardwareProfile(ProfileTempFile("bad.yaml", text));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(HardwareProfile, RejectsBadFilesWithLineAndField) {
  const std::string good = FormatHardwareProfile(Sample());
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  std::string e = ErrorOf(replace("version: 1", "version: 2"));
  EXPECT_NE(e.find("bad.yaml:7"), std::string::npos) << e;
  EXPECT_NE(e.find("unsupported profile version"), std::string::npos) << e;
  e = ErrorOf(replace("  read: 4412.34", "  read: -3"));
  EXPECT_NE(e.find("hbm_gb_s.read"), std::string::npos) << e;
  e = ErrorOf(replace("  read: 4412.34", "  reed: 4412.34"));
  EXPECT_NE(e.find("hbm_gb_s.reed"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown field"), std::string::npos) << e;
  e = ErrorOf(replace("phase: decode", "phase: decoding"));
  EXPECT_NE(e.find("gemms[0].phase"), std::string::npos) << e;
  e = ErrorOf(replace("us: 12.34,", "us: 0,"));
  EXPECT_NE(e.find("gemms[0].us"), std::string::npos) << e;
  e = ErrorOf(replace("m: 1,", "m: 0,"));
  EXPECT_NE(e.find("gemms[0].m"), std::string::npos) << e;
  e = ErrorOf(replace("  name: NVIDIA H200\n", ""));
  EXPECT_NE(e.find("gpu.name"), std::string::npos) << e;
  EXPECT_NE(e.find("field required"), std::string::npos) << e;
  e = ErrorOf("- just\n- a list\n");
  EXPECT_NE(e.find("expected a hardware profile"), std::string::npos) << e;
}

TEST(HardwareProfile, BytesAndFlopsCountEveryExpert) {
  ProbedGemm g;
  g.m = 4;
  g.n = 16;
  g.k = 32;
  g.dtype = "bf16";
  EXPECT_DOUBLE_EQ(g.Flops(), 2.0 * 4 * 16 * 32);
  EXPECT_DOUBLE_EQ(g.Bytes(), 2.0 * (4 * 32 + 16 * 32) + 2.0 * 4 * 16);
  g.dtype = "fp8";
  g.experts = 3;
  EXPECT_DOUBLE_EQ(g.Flops(), 3 * 2.0 * 4 * 16 * 32);
  EXPECT_DOUBLE_EQ(g.Bytes(), 3 * ((4 * 32 + 16 * 32) + 2.0 * 4 * 16));
}

TEST(HardwareProfileDiff, ReportsRelativeDifferencesAndUnmatchedFigures) {
  const HardwareProfile a = Sample();
  HardwareProfile b = Sample();
  b.hbm_read_bytes_per_s *= 1.02;
  b.gemms[0].seconds *= 0.97;
  b.gemms.pop_back();
  b.gemm_peak_fp8 = 0;
  const ProfileComparison c = CompareHardwareProfiles(a, b);
  ASSERT_FALSE(c.figures.empty());
  EXPECT_EQ(c.figures[0].figure, "hbm_read");
  EXPECT_EQ(c.figures[0].unit, "GB/s");
  EXPECT_NEAR(c.figures[0].relative, 0.02, 1e-12);
  bool found = false;
  for (const FigureDifference& f : c.figures) {
    if (f.figure == "gemm llama-3.3-70b qkv decode bf16 tp8 m1 n1280 k8192") {
      found = true;
      EXPECT_NEAR(f.relative, -0.03, 1e-12);
      EXPECT_EQ(f.unit, "us");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_NEAR(c.MaxAbsRelative(), 0.03, 1e-12);
  ASSERT_EQ(c.only_in_a.size(), 2u);
  EXPECT_EQ(c.only_in_a[0], "gemm_peak_fp8");
  EXPECT_EQ(c.only_in_a[1], "gemm - square prefill fp8 tp1 m2 n4096 k7168");
  EXPECT_TRUE(c.only_in_b.empty());
}

TEST(HardwareProfileDiff, SortsFiguresIntoCategoriesAndFlagsAnotherAlgorithm) {
  const HardwareProfile a = Sample();
  HardwareProfile b = Sample();
  b.gemms[0].algo = "21:15:20:1:0:0:0:0:2";
  const ProfileComparison c = CompareHardwareProfiles(a, b);
  std::map<std::string, std::string> category;
  std::map<std::string, bool> differs;
  for (const FigureDifference& f : c.figures) {
    category[f.figure] = f.category;
    differs[f.figure] = f.algo_differs;
  }
  EXPECT_EQ(category["hbm_read"], "headline");
  EXPECT_EQ(category["graph_launch"], "headline");
  EXPECT_EQ(category["gemm llama-3.3-70b qkv decode bf16 tp8 m1 n1280 k8192"], "decode GEMMs");
  EXPECT_EQ(category["gemm deepseek-r1 expert_gate_up decode bf16 tp1 m2 n4096 k7168 x8"], "grouped GEMMs");
  EXPECT_EQ(category["gemm - square prefill fp8 tp1 m2 n4096 k7168"], "prefill GEMMs");
  EXPECT_TRUE(differs["gemm llama-3.3-70b qkv decode bf16 tp8 m1 n1280 k8192"]);
  // Only one side recorded an algorithm (cuBLAS chose the grouped GEMM's): not a difference.
  b.gemms[1].algo = "1:1:1:1:0:0:0:0:0";
  for (const FigureDifference& f : CompareHardwareProfiles(a, b).figures) {
    if (f.figure.find("expert_gate_up") != std::string::npos) {
      EXPECT_FALSE(f.algo_differs);
    }
  }
}

HardwareProfile WithCollectives() {
  HardwareProfile p = Sample();
  p.scale_up.nccl_version = "2.27.7";
  p.scale_up.collectives.push_back({"all_reduce", 8, 14336, 1.83e-5, 1.37e9, 0.012, true});
  p.scale_up.collectives.push_back({"all_to_all", 8, 117440512, 4.1e-4, 2.5e11, 0.004, false});
  p.scale_up.collectives.push_back({"all_reduce", 1, 14336, 6.2e-6, 0, 0.03, true});
  return p;
}

TEST(HardwareProfile, RoundTripsTheScaleUpSection) {
  const HardwareProfile p = WithCollectives();
  const std::string text = FormatHardwareProfile(p);
  EXPECT_NE(text.find("scale_up:\n  nccl: 2.27.7\n  nvls: false\n  collectives:\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    - {op: all_reduce, gpus: 8, bytes: 14336, latency_us: 18.3, bus_bw_gb_s: 1.37, "
                      "spread: 0.012, graph: true}"),
            std::string::npos)
      << text;
  const HardwareProfile q = LoadHardwareProfile(ProfileTempFile("scale_up.yaml", text));
  EXPECT_EQ(q.scale_up.nccl_version, "2.27.7");
  EXPECT_FALSE(q.scale_up.nvls);
  ASSERT_EQ(q.scale_up.collectives.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const ProbedCollective &x = p.scale_up.collectives[i], &y = q.scale_up.collectives[i];
    EXPECT_EQ(y.op, x.op);
    EXPECT_EQ(y.gpus, x.gpus);
    EXPECT_EQ(y.bytes, x.bytes);
    EXPECT_DOUBLE_EQ(y.seconds, x.seconds);
    EXPECT_DOUBLE_EQ(y.bus_bytes_per_s, x.bus_bytes_per_s);
    EXPECT_DOUBLE_EQ(y.spread, x.spread);
    EXPECT_EQ(y.graph, x.graph);
  }
  EXPECT_EQ(FormatHardwareProfile(q), text);
  // Lookup by collective and GPU count, smallest message first.
  EXPECT_EQ(q.scale_up.Sizes("all_reduce", 8).size(), 1u);
  EXPECT_EQ(q.scale_up.Sizes("all_reduce", 1).front()->seconds, 6.2e-6);
  EXPECT_TRUE(q.scale_up.Sizes("all_gather", 8).empty());
}

TEST(HardwareProfile, AProfileWithoutCollectivesWritesNoScaleUpSection) {
  const std::string text = FormatHardwareProfile(Sample());
  EXPECT_EQ(text.find("scale_up"), std::string::npos);
  EXPECT_TRUE(LoadHardwareProfile(ProfileTempFile("no_scale_up.yaml", text)).scale_up.collectives.empty());
}

TEST(HardwareProfile, RejectsBadCollectivesWithTheirField) {
  const std::string good = FormatHardwareProfile(WithCollectives());
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  std::string e = ErrorOf(replace("op: all_to_all", "op: broadcast"));
  EXPECT_NE(e.find("scale_up.collectives[1].op"), std::string::npos) << e;
  e = ErrorOf(replace("gpus: 8, bytes: 14336", "gpus: 0, bytes: 14336"));
  EXPECT_NE(e.find("scale_up.collectives[0].gpus"), std::string::npos) << e;
  e = ErrorOf(replace("latency_us: 18.3", "latency_us: 0"));
  EXPECT_NE(e.find("scale_up.collectives[0].latency_us"), std::string::npos) << e;
  e = ErrorOf(replace("bus_bw_gb_s: 1.37", "bus_bw_gb_s: -1"));
  EXPECT_NE(e.find("scale_up.collectives[0].bus_bw_gb_s"), std::string::npos) << e;
  e = ErrorOf(replace("  nccl: 2.27.7\n", ""));
  EXPECT_NE(e.find("scale_up.nccl"), std::string::npos) << e;
  e = ErrorOf(replace("  nvls: false\n", "  nvls: false\n  multicast: true\n"));
  EXPECT_NE(e.find("scale_up.multicast"), std::string::npos) << e;
}

TEST(HardwareProfileDiff, ComparesCollectivesByOpGpuCountAndSize) {
  const HardwareProfile a = WithCollectives();
  HardwareProfile b = WithCollectives();
  b.scale_up.collectives[0].seconds *= 1.1;
  b.scale_up.collectives.pop_back();
  const ProfileComparison c = CompareHardwareProfiles(a, b);
  bool found = false;
  for (const FigureDifference& f : c.figures) {
    if (f.figure != "collective all_reduce gpus8 14336B") continue;
    found = true;
    EXPECT_EQ(f.category, "collectives");
    EXPECT_NEAR(f.relative, 0.1, 1e-12);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(c.only_in_a, std::vector<std::string>{"collective all_reduce gpus1 14336B"});
}

}  // namespace
}  // namespace infermark::perfmodel
