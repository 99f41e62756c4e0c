// The lent H100's transformers sweep (tests/fixtures/real-gpu/h100): the runner's processing of
// each raw result gives the committed agg record, byte for byte, and integrating the runner's NVML
// samples gives valid power with the figures of the record and of docs/gpu.md's table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "core/file_io.hpp"
#include "power/indented_json.hpp"
#include "power/power_aggregation.hpp"
#include "results/result_files.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

/// One row of docs/gpu.md's table: what the record must say, rounded as the table prints it.
struct TableRow {
  int conc;
  double output_tok_s;      // one decimal
  double median_ttft_ms;    // integer
  double avg_power_w;       // integer
  double joules_per_token;  // one decimal (J per output token)
};

constexpr TableRow kTable[] = {
    {1, 9.2, 1630, 145, 15.7},  {2, 18.3, 418, 156, 8.5},    {4, 42.6, 612, 180, 4.2},    {8, 68.1, 813, 200, 2.9},
    {16, 145.1, 803, 257, 1.8}, {32, 231.6, 2464, 323, 1.4}, {64, 277.1, 2908, 377, 1.4},
};

std::string Stem(int conc) {
  return "llama3_1k1k_bf16_transformers_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc" +
         std::to_string(conc) + "_vm";
}

// The sweep row's deployment, as the runner gives it to the processing (the matrix row).
ReadOptions RowSettings() {
  ReadOptions o;
  o.environment.values = {{"RUNNER_TYPE", "h100"},
                          {"FRAMEWORK", "transformers"},
                          {"PRECISION", "bf16"},
                          {"SPEC_DECODING", "none"},
                          {"ISL", "1024"},
                          {"OSL", "1024"},
                          {"DISAGG", "false"},
                          {"MODEL_PREFIX", "llama3"},
                          {"IMAGE", "infermark/lent-gpu:torch2.11-transformers5.17"},
                          {"TP", "1"},
                          {"EP_SIZE", "1"},
                          {"DP_ATTENTION", "false"}};
  return o;
}

double Round(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

class RealGpuFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    // The device's NVML timestamps are local time of a machine on UTC.
    setenv("TZ", "UTC", 1);
    tzset();
    dir_ = fs::temp_directory_path() / ("infermark_real_gpu_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    unsetenv("TZ");
    tzset();
  }
  fs::path dir_;
};

TEST_F(RealGpuFixture, ProcessingGivesTheCommittedRecords) {
  for (const TableRow& row : kTable) {
    SCOPED_TRACE(row.conc);
    const std::string raw = test::Fixture("real-gpu/h100/" + Stem(row.conc) + ".json");
    const std::vector<Point> points = ReadResultFile(raw, RowSettings());
    ASSERT_EQ(points.size(), 1u);
    const Json& agg = points[0].agg;
    EXPECT_EQ(DumpJsonIndented(agg, 2), ReadFile(test::Fixture("real-gpu/h100/agg_" + Stem(row.conc) + ".json")));
    EXPECT_EQ(agg["hw"], "h100");
    EXPECT_EQ(agg["framework"], "transformers");
    EXPECT_EQ(agg["conc"], row.conc);
    EXPECT_EQ(agg["power_valid"], 1);
    EXPECT_DOUBLE_EQ(Round(agg["output_tput_per_gpu"].get<double>(), 1), row.output_tok_s);
    EXPECT_DOUBLE_EQ(Round(agg["median_ttft"].get<double>() * 1000, 0), row.median_ttft_ms);
    EXPECT_DOUBLE_EQ(Round(agg["avg_power_w"].get<double>(), 0), row.avg_power_w);
    EXPECT_DOUBLE_EQ(Round(agg["joules_per_output_token"].get<double>(), 1), row.joules_per_token);
  }
}

// The runner patched each raw result with the power it integrated on the device; integrating the
// committed NVML samples here again must give the same valid power, window and energy.
TEST_F(RealGpuFixture, NvmlSamplesGiveTheRecordedPower) {
  for (const TableRow& row : kTable) {
    SCOPED_TRACE(row.conc);
    const std::string agg_path = (dir_ / ("agg_" + Stem(row.conc) + ".json")).string();
    fs::copy_file(test::Fixture("real-gpu/h100/agg_" + Stem(row.conc) + ".json"), agg_path,
                  fs::copy_options::overwrite_existing);
    PowerRunOptions o;
    o.csv = test::Fixture("real-gpu/h100/" + std::to_string(row.conc) + "_vm_gpu_metrics.csv");
    o.bench_result = test::Fixture("real-gpu/h100/" + Stem(row.conc) + ".json");
    o.agg_result = agg_path;
    o.expected_num_gpus = 1;
    o.validation_result = (dir_ / ("power_validation_" + Stem(row.conc) + ".json")).string();
    const PowerRunOutcome outcome = RunPowerAggregation(o);
    ASSERT_TRUE(outcome.power_valid) << (outcome.reasons.empty() ? "" : outcome.reasons.front());
    const Json recorded =
        Json::parse(ReadFile(test::Fixture("real-gpu/h100/power_validation_" + Stem(row.conc) + ".json")));
    for (const char* key : {"avg_power_w", "total_gpu_energy_j", "joules_per_output_token"}) {
      EXPECT_NEAR(outcome.metrics[key].get<double>(), recorded["metrics"][key].get<double>(), 1e-5) << key;
    }
    EXPECT_EQ(outcome.integration.observed_gpu_ids, std::vector<std::string>{"0"});
    EXPECT_DOUBLE_EQ(Round(outcome.metrics["avg_power_w"].get<double>(), 0), row.avg_power_w);
    const Json patched = Json::parse(ReadFile(agg_path));
    EXPECT_EQ(patched["power_valid"], 1);
    EXPECT_NEAR(patched["joules_per_output_token"].get<double>(),
                recorded["metrics"]["joules_per_output_token"].get<double>(), 1e-5);
  }
}

}  // namespace
}  // namespace infermark::results
