// The NVML loader and the power sampler against the scripted NVML of tests/gpu/fake_nvml: the CSV is
// nvidia-smi's byte for byte, every tick has one row per GPU, the schedule keeps its interval, the
// end is bracketed and the energy counters agree with the sampled power.
#include "gpu/power_sampler.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "gpu/dynamic_library.hpp"
#include "gpu/nvml.hpp"

namespace infermark::gpu {
namespace {

namespace fs = std::filesystem;

// Every test runs in UTC with the fake NVML and its default script.
class FakeNvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
    setenv(Nvml::kLibraryVariable, INFERMARK_FAKE_NVML, 1);
    for (const char* name :
         {"INFERMARK_FAKE_NVML_GPUS", "INFERMARK_FAKE_NVML_NO_ENERGY", "INFERMARK_FAKE_NVML_FAIL_INIT"}) {
      unsetenv(name);
    }
    dir_ = fs::temp_directory_path() / ("infermark_gpu_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

struct Row {
  double unix = 0;
  unsigned index = 0;
  double power_w = 0;
};

std::vector<std::string> Lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Rows of a sampler CSV written in UTC; fails the test on a line nvidia-smi would not write.
std::vector<Row> Rows(const fs::path& path) {
  const std::regex row(
      R"(^(\d{4})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{3}), (\d+), (\d+\.\d{2}) W, \d+, \d+ MHz, \d+ MHz, \d+ %, \d+ %$)");
  std::vector<Row> out;
  const std::vector<std::string> lines = Lines(path);
  EXPECT_FALSE(lines.empty());
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::smatch m;
    if (!std::regex_match(lines[i], m, row)) {
      ADD_FAILURE() << "line " << i + 1 << " is not an nvidia-smi row: " << lines[i];
      continue;
    }
    std::tm t{};
    t.tm_year = std::stoi(m[1]) - 1900;
    t.tm_mon = std::stoi(m[2]) - 1;
    t.tm_mday = std::stoi(m[3]);
    t.tm_hour = std::stoi(m[4]);
    t.tm_min = std::stoi(m[5]);
    t.tm_sec = std::stoi(m[6]);
    out.push_back(Row{static_cast<double>(timegm(&t)) + std::stoi(m[7]) / 1000.0,
                      static_cast<unsigned>(std::stoul(m[8])), std::stod(m[9])});
  }
  return out;
}

TEST(DynamicLibrary, NamesThePathAndTheMissingSymbol) {
  try {
    DynamicLibrary lib("/nonexistent/libnothing.so");
    FAIL() << "opened a library that does not exist";
  } catch (const DynamicLibraryError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot load /nonexistent/libnothing.so: "), std::string::npos) << e.what();
  }
  DynamicLibrary fake(INFERMARK_FAKE_NVML);
  EXPECT_NE(fake.Symbol("nvmlInit_v2"), nullptr);
  try {
    (void)fake.Symbol("nvmlNoSuchFunction");
    FAIL() << "found a symbol the library lacks";
  } catch (const DynamicLibraryError& e) {
    EXPECT_NE(std::string(e.what()).find("does not export nvmlNoSuchFunction"), std::string::npos) << e.what();
  }
}

TEST(Nvml, WithoutTheDriverSaysSoInOneMessage) {
  unsetenv(Nvml::kLibraryVariable);
  try {
    DynamicLibrary real(Nvml::kDefaultLibrary);
    GTEST_SKIP() << "this host has an NVIDIA driver";
  } catch (const DynamicLibraryError&) {
  }
  try {
    (void)Nvml::Load();
    FAIL() << "NVML loaded without a driver";
  } catch (const NvmlUnavailable& e) {
    EXPECT_STREQ(e.what(), "NVML (libnvidia-ml.so.1) not found: no NVIDIA driver on this host");
  }
  EXPECT_FALSE(NvmlSeesGpu());
}

TEST_F(FakeNvmlTest, AnotherLibraryThatCannotBeLoadedIsNamed) {
  setenv(Nvml::kLibraryVariable, (dir_ / "libmissing.so").c_str(), 1);
  try {
    (void)Nvml::Load();
    FAIL() << "loaded a missing library";
  } catch (const NvmlUnavailable& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("INFERMARK_NVML_LIBRARY"), std::string::npos) << what;
    EXPECT_NE(what.find("libmissing.so"), std::string::npos) << what;
  }
}

TEST_F(FakeNvmlTest, InitFailureCarriesNvmlsErrorString) {
  setenv("INFERMARK_FAKE_NVML_FAIL_INIT", "1", 1);
  try {
    (void)Nvml::Load();
    FAIL() << "NVML initialized";
  } catch (const NvmlUnavailable& e) {
    EXPECT_STREQ(e.what(), "NVML failed to initialize: Driver Not Loaded");
  }
  EXPECT_FALSE(NvmlSeesGpu());
}

TEST_F(FakeNvmlTest, ReadsIdentityAndReadings) {
  setenv("INFERMARK_FAKE_NVML_GPUS", "3", 1);
  const auto nvml = Nvml::Load();
  EXPECT_TRUE(NvmlSeesGpu());
  EXPECT_EQ(nvml->DeviceCount(), 3u);
  EXPECT_EQ(nvml->DriverVersion(), "999.99.99");
  const GpuIdentity id = nvml->Identity(2);
  EXPECT_EQ(id.index, 2u);
  EXPECT_EQ(id.name, "Fake NVIDIA H200");
  EXPECT_EQ(id.uuid, "GPU-fa4e0000-0000-0000-0000-000000000002");
  const GpuReading r = nvml->Read(1);
  ASSERT_TRUE(r.power_w.has_value());
  EXPECT_GT(*r.power_w, 290.0);
  EXPECT_EQ(r.temperature_c, 41u);
  EXPECT_EQ(r.sm_clock_mhz, 1980u);
  EXPECT_EQ(r.memory_clock_mhz, 3201u);
  EXPECT_EQ(r.gpu_utilization, 87u);
  EXPECT_EQ(r.memory_utilization, 40u);
  ASSERT_TRUE(nvml->EnergyJ(0).has_value());
  EXPECT_GE(*nvml->EnergyJ(0), 1.0e6);
  EXPECT_THROW((void)nvml->Identity(3), NvmlUnavailable);
}

TEST_F(FakeNvmlTest, RowsAreNvidiaSmisFormat) {
  using namespace std::chrono;
  const system_clock::time_point when{milliseconds(1796396462345)};  // 2026-12-04 15:01:02.345 UTC
  GpuReading r{412.344, 45u, 1980u, 3201u, 87u, 40u};
  EXPECT_EQ(FormatGpuMetricsRow(when, 0, r),
            "2026/12/04 15:01:02.345, 0, 412.34 W, 45, 1980 MHz, 3201 MHz, 87 %, 40 %");
  EXPECT_EQ(FormatGpuMetricsRow(when + milliseconds(7), 7, GpuReading{}),
            "2026/12/04 15:01:02.352, 7, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A]");
  EXPECT_STREQ(kGpuMetricsCsvHeader,
               "timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], "
               "clocks.current.memory [MHz], utilization.gpu [%], utilization.memory [%]");
}

// Per tick: one row per GPU in index order; returns the tick times (first row of each tick).
std::vector<double> TickTimes(const std::vector<Row>& rows, const std::vector<unsigned>& gpus) {
  std::vector<double> ticks;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].index, gpus[i % gpus.size()]) << "row " << i;
    if (i % gpus.size() == 0) ticks.push_back(rows[i].unix);
  }
  return ticks;
}

TEST_F(FakeNvmlTest, TenHertzKeepsItsScheduleAndBracketsTheWindow) {
  const auto nvml = Nvml::Load();
  PowerSampler sampler(nvml, PowerSamplerOptions{dir_ / "gpu_metrics.csv", 0.1, {}});
  sampler.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(1550));
  const PowerSamplerReport report = sampler.Stop();
  EXPECT_EQ(report.error, "");
  EXPECT_EQ(Lines(report.csv).front(), kGpuMetricsCsvHeader);
  const std::vector<Row> rows = Rows(report.csv);
  ASSERT_EQ(rows.size(), report.rows);
  EXPECT_EQ(report.rows, report.ticks * 2);
  // Ticks at 0, 0.1, …, 1.5 s plus the bracketing one; a busy host may skip a few.
  EXPECT_EQ(report.ticks + report.skipped_ticks, 17u);
  EXPECT_GE(report.ticks, 14u);
  const std::vector<double> ticks = TickTimes(rows, {0, 1});
  // Absolute deadlines: the k-th scheduled tick lies near start + k·0.1 s, whatever each tick took.
  const double last_scheduled = ticks[ticks.size() - 2];
  EXPECT_NEAR(last_scheduled - ticks.front(), 1.5, 0.05);
  EXPECT_LE(rows.front().unix, report.start_time_unix + 0.001);
  EXPECT_GE(ticks.back(), report.end_time_unix - 0.001);
  // The counters agree with the sampled power: mean power × duration within 2 %.
  for (unsigned gpu : {0u, 1u}) {
    double sum = 0;
    int n = 0;
    for (const Row& r : rows) {
      if (r.index == gpu) {
        sum += r.power_w;
        ++n;
      }
    }
    const auto delta = report.energy[gpu].delta_j();
    ASSERT_TRUE(delta.has_value());
    EXPECT_NEAR(*delta, sum / n * (report.end_time_unix - report.start_time_unix), 0.02 * *delta) << gpu;
  }
}

TEST_F(FakeNvmlTest, OneHertzSamplesSelectedGpus) {
  setenv("INFERMARK_FAKE_NVML_GPUS", "3", 1);
  const auto nvml = Nvml::Load();
  PowerSampler sampler(nvml, PowerSamplerOptions{dir_ / "sub" / "gpu.csv", 1.0, {2, 0}});
  sampler.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(2300));
  const PowerSamplerReport report = sampler.Stop();
  const std::vector<Row> rows = Rows(dir_ / "sub" / "gpu.csv");
  EXPECT_EQ(report.ticks, 4u);  // 0, 1, 2 s and the bracketing tick
  ASSERT_EQ(rows.size(), 8u);
  const std::vector<double> ticks = TickTimes(rows, {2, 0});
  EXPECT_NEAR(ticks[1] - ticks[0], 1.0, 0.03);
  EXPECT_NEAR(ticks[2] - ticks[0], 2.0, 0.03);
  ASSERT_EQ(report.energy.size(), 2u);
  EXPECT_EQ(report.energy[0].gpu, 2u);
  EXPECT_GT(report.energy[0].delta_j().value_or(0), 0.0);
  // Stop is idempotent.
  EXPECT_EQ(sampler.Stop().ticks, 4u);
}

TEST_F(FakeNvmlTest, WithoutAnEnergyCounterTheDeltaIsEmpty) {
  setenv("INFERMARK_FAKE_NVML_NO_ENERGY", "1", 1);
  PowerSampler sampler(Nvml::Load(), PowerSamplerOptions{dir_ / "gpu.csv", 0.1, {}});
  sampler.Start();
  const PowerSamplerReport report = sampler.Stop();
  EXPECT_EQ(report.ticks, 2u);
  EXPECT_FALSE(report.energy[0].start_j.has_value());
  EXPECT_FALSE(report.energy[1].delta_j().has_value());
}

TEST_F(FakeNvmlTest, BadOptionsAreRefused) {
  const auto nvml = Nvml::Load();
  EXPECT_THROW(PowerSampler(nvml, PowerSamplerOptions{dir_ / "a.csv", 0.0, {}}), std::invalid_argument);
  try {
    PowerSampler sampler(nvml, PowerSamplerOptions{dir_ / "a.csv", 1.0, {0, 5}});
    FAIL() << "sampled a GPU that does not exist";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "GPU 5 does not exist (NVML sees 2)");
  }
}

}  // namespace
}  // namespace infermark::gpu
