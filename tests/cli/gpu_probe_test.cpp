// `gpu probe` without its CUDA library or without a GPU says so and exits 1; `gpu profile-diff`
// prints each figure's relative difference and fails beyond its tolerance.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "run_binary.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;
using test::RunInfermark;

fs::path TempDir() {
  const fs::path dir = fs::temp_directory_path() / "infermark-gpu-probe-test";
  fs::create_directories(dir);
  return dir;
}

// Sets an environment variable for one test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

TEST(GpuProbe, MissingLibrarySaysBuiltWithoutCuda) {
  const ScopedEnv env("INFERMARK_GPU_PROBE_LIBRARY", "/nonexistent/libinfermark_gpu_probe.so");
  const auto r = RunInfermark({"gpu", "probe", "--out", (TempDir() / "never.yaml").string(), "--quick"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/libinfermark_gpu_probe.so not found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("built without the CUDA toolkit"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(TempDir() / "never.yaml"));
}

TEST(GpuProbe, NotALibraryIsRefused) {
  const fs::path fake = TempDir() / "libfake.so";
  std::ofstream(fake) << "not an ELF file\n";
  const ScopedEnv env("INFERMARK_GPU_PROBE_LIBRARY", fake.string());
  const auto r = RunInfermark({"gpu", "probe", "--out", (TempDir() / "never.yaml").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot be loaded"), std::string::npos) << r.err;
}

TEST(GpuProbe, BadFlagsExitTwo) {
  auto r = RunInfermark({"gpu", "probe", "--out", "x.yaml", "--models", "no-such-model"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown model 'no-such-model'"), std::string::npos) << r.err;
  r = RunInfermark({"gpu", "probe", "--out", "x.yaml", "--repeats", "5"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("at least 20"), std::string::npos) << r.err;
  r = RunInfermark({"gpu", "probe", "--out", "x.yaml", "--repeats", "20", "--rounds", "21"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--rounds"), std::string::npos) << r.err;
}

// With the library built and no GPU here, it loads and reports that no CUDA device is usable.
TEST(GpuProbe, BuiltLibraryReportsNoDeviceCleanly) {
  const fs::path library = fs::path(test::Binary()).parent_path() / "libinfermark_gpu_probe.so";
  if (!fs::exists(library)) GTEST_SKIP() << "built without the CUDA toolkit";
  if (fs::exists("/dev/nvidia0") || fs::exists("/dev/nvidiactl")) GTEST_SKIP() << "this host has an NVIDIA GPU";
  const auto r = RunInfermark(
      {"gpu", "probe", "--out", (TempDir() / "never.yaml").string(), "--quick", "--models", "llama-3.1-8b"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no usable CUDA device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(library.string()), std::string::npos) << r.err;
}

std::string Profile(double read_gb_s, double qkv_us) {
  return "version: 1\nhardware: h200\nmeasured_at: '2026-11-20T10:00:00Z'\ngpu:\n  name: NVIDIA H200\n"
         "hbm_gb_s:\n  read: " +
         std::to_string(read_gb_s) +
         "\n  copy: 4300.0\ngemms:\n"
         "  - {model: llama-3.3-70b, op: qkv, phase: decode, dtype: bf16, tp: 8, m: 1, n: 1280, k: 8192, us: " +
         std::to_string(qkv_us) + ", spread: 0.01}\n";
}

TEST(GpuProfileDiff, PrintsRelativeDifferences) {
  const fs::path a = TempDir() / "a.yaml", b = TempDir() / "b.yaml";
  std::ofstream(a) << Profile(4000, 10.0);
  std::ofstream(b) << Profile(4080, 9.9);
  auto r = RunInfermark({"gpu", "profile-diff", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("hbm_read [GB/s]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("+2.00%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-1.00%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3 figures compared"), std::string::npos) << r.out;
  // The summary by category: figures, median, p90 and largest |B/A-1|, how many beyond the tolerance.
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(headline +2 +1\.00% +1\.80% +2\.00% +0\n)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(decode GEMMs +1 +1\.00% +1\.00% +1\.00% +0\n)"))) << r.out;
  EXPECT_EQ(r.out.find("prefill GEMMs"), std::string::npos) << r.out;
  r = RunInfermark({"gpu", "profile-diff", a.string(), b.string(), "--tolerance", "0.015"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("1 beyond 1.5%"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(all +3 +1\.00% +1\.80% +2\.00% +1\n)"))) << r.out;
}

TEST(GpuProfileDiff, BadProfileNamesFileLineAndField) {
  const fs::path a = TempDir() / "good.yaml", b = TempDir() / "bad.yaml";
  std::ofstream(a) << Profile(4000, 10.0);
  std::ofstream(b) << Profile(4000, 10.0) << "surprise: 1\n";
  const auto r = RunInfermark({"gpu", "profile-diff", a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("bad.yaml:11"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("surprise"), std::string::npos) << r.err;
}

TEST(GpuProbe, CollectivesWithoutNcclSayWhereToGetIt) {
  const ScopedEnv env("NCCL_LIBRARY", "/nonexistent/libnccl.so.2");
  const auto r = RunInfermark({"gpu", "probe", "--collectives-only", "--out", (TempDir() / "never.yaml").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("NCCL_LIBRARY names /nonexistent/libnccl.so.2, which does not exist"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(TempDir() / "never.yaml"));
  const auto bad = RunInfermark({"gpu", "probe", "--collectives", "--gpus", "0", "--out", "x.yaml"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--gpus"), std::string::npos) << bad.err;
}

// The model's collectives beside the one-GPU H200 probe: sizes, the model's time, the measurement.
TEST(GpuProbe, CollectiveTablePutsTheModelBesideTheProbe) {
  const auto r = RunInfermark({"gpu", "collective-table", "--models", "deepseek-r1", "--quick", "--gpus", "1,8",
                               "--profile", "tests/fixtures/gpu/h200/collectives_1.yaml"},
                              test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("h200 priors (link 450 GB/s x fraction 0.60, all-reduce 8.0 us"), std::string::npos) << r.out;
  // Decode at batch 64: 64 x 7168 x 2 bytes summed twice per layer (122 calls); on one GPU the model
  // has no collective, the probe's 1-rank all-reduce took 1.23 us; over 8 GPUs the model's prior.
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(deepseek-r1 +tp_all_reduce +decode +64 +917504 +122 +0\.00 +1\.23 +13\.95 +- *\n)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(deepseek-r1 +ep_combine +prefill +8192 +939524096 +58 )")))
      << r.out;
  const auto unknown = RunInfermark({"gpu", "collective-table", "--hardware", "nope"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
}

}  // namespace
}  // namespace infermark
