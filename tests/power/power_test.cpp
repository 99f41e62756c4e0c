// Power integration without the reference: energies computed by hand, timestamp and cell parsing,
// the CSV reader's Python quirks, and every reason code the reference can emit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/file_io.hpp"
#include "power/power_aggregation.hpp"
#include "power/power_integration.hpp"
#include "power/power_telemetry.hpp"
#include "power/python_csv.hpp"
#include "power/python_path.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

class PowerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "America/New_York", 1);
    tzset();
    dir_ = fs::temp_directory_path() / ("infermark_power_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // Epoch-second rows "t,gpu,watts" under the amd-smi header.
  std::string Csv(const std::string& rows) { return Write("gpu_metrics.csv", "timestamp,gpu,socket_power\n" + rows); }
  std::string Bench(double start, double end, double duration, const std::string& extra = "") {
    return Write("bench.json", "{\"benchmark_start_time_unix\": " + std::to_string(start) +
                                   ", \"benchmark_end_time_unix\": " + std::to_string(end) +
                                   ", \"duration\": " + std::to_string(duration) +
                                   (extra.empty() ? ", \"completed\": 10, \"total_input_tokens\": 1000, "
                                                    "\"total_output_tokens\": 500"
                                                  : extra) +
                                   "}");
  }
  PowerRunOutcome Run(long long gpus = 1) {
    PowerRunOptions options;
    options.csv = (dir_ / "gpu_metrics.csv").string();
    options.bench_result = (dir_ / "bench.json").string();
    options.agg_result = Write("agg_bench.json", "{\"hw\": \"h200\", \"power_valid\": 0}");
    options.expected_num_gpus = gpus;
    return RunPowerAggregation(options);
  }
  fs::path dir_;
};

using Reasons = std::vector<std::string>;

TEST(PowerIntegrationMath, LinearPowerIntegratesToItsMeanTimesDuration) {
  // 100 W at t=-1 rising 20 W/s: the edges at 0 and 10 are interpolated (120 W, 320 W), 2200 J.
  const std::vector<PowerSample> samples{{-1, 100}, {1, 140}, {3.5, 190}, {6, 240}, {8.5, 290}, {11, 340}};
  EXPECT_DOUBLE_EQ(IntegrateDeviceEnergy(samples, 0, 10), 2200.0);
  // Edges exactly on samples take those samples' power: 2 s at 100 W then 2 s rising to 300 W.
  const std::vector<PowerSample> on_edges{{0, 100}, {2, 100}, {4, 300}};
  EXPECT_DOUBLE_EQ(IntegrateDeviceEnergy(on_edges, 0, 4), 200.0 + 400.0);
  // A sample within 1e-9 s of an edge stands for the edge.
  const std::vector<PowerSample> near{{-1, 0}, {5e-10, 500}, {10, 500}};
  EXPECT_DOUBLE_EQ(IntegrateDeviceEnergy(near, 0, 10), (10 - 5e-10) * 500 + 5e-10 * 500);
}

TEST(PowerIntegrationMath, DuplicateReadingsAverageAsPythonStatisticsMean) {
  EXPECT_EQ(ExactMean({412.34, 412.35, 412.37}), 412.35333333333335);  // naive: 412.3533333333333
  EXPECT_EQ(ExactMean({400.1, 400.3}), 400.20000000000005);
  EXPECT_EQ(ExactMean({-0.0}), 0.0);
  EXPECT_FALSE(std::signbit(ExactMean({-0.0})));
}

TEST(PowerIntegrationMath, PythonRoundTiesToEvenOnTheExactBinaryValue) {
  EXPECT_EQ(PythonRound(0.125, 2), 0.12);
  EXPECT_EQ(PythonRound(0.375, 2), 0.38);
  EXPECT_EQ(PythonRound(2.675, 2), 2.67);  // 2.675 is 2.67499999… in binary
  EXPECT_EQ(PythonRound(1234.56789, 3), 1234.568);
}

TEST_F(PowerTest, TimestampsReadAsTheReferenceReadsThem) {
  EXPECT_EQ(ParseTelemetryTimestamp("1700000000.5"), 1700000000.5);
  EXPECT_EQ(ParseTelemetryTimestamp("1700000000500"), 1700000000.5);  // milliseconds above 1e12
  // nvidia-smi local time: 2023-11-14 17:13:20 in New York (EST) is 22:13:20 UTC.
  EXPECT_EQ(ParseTelemetryTimestamp("2023/11/14 17:13:20.500"), 1700000000.5);
  EXPECT_EQ(ParseTelemetryTimestamp(" 2023/11/14 17:13:20 "), 1700000000.0);
  EXPECT_EQ(ParseTelemetryTimestamp("2023/11/14 17:13:20.5000000"), std::nullopt);  // %f: at most 6 digits
  EXPECT_EQ(ParseTelemetryTimestamp("2023-11-14T17:13:20.5"), 1700000000.5);        // naive ISO is local
  EXPECT_EQ(ParseTelemetryTimestamp("2023-11-14 22:13:20Z"), 1700000000.0);
  EXPECT_EQ(ParseTelemetryTimestamp("2023-11-14T23:13:20+01:00"), 1700000000.0);
  EXPECT_EQ(ParseTelemetryTimestamp("2023/02/30 00:00:00"), std::nullopt);
  EXPECT_EQ(ParseTelemetryTimestamp("not-a-date"), std::nullopt);
  EXPECT_EQ(ParseTelemetryTimestamp(""), std::nullopt);
  // The repeated hour of 2023-11-05 reads as its first pass (EDT, UTC-4).
  EXPECT_EQ(ParseTelemetryTimestamp("2023/11/05 01:30:00"), 1699162200.0);
}

TEST(PowerCells, PowerAndColumns) {
  EXPECT_EQ(ParseTelemetryPower("412.34 W"), 412.34);
  EXPECT_EQ(ParseTelemetryPower("[N/A]"), std::nullopt);
  EXPECT_EQ(ParseTelemetryPower("n/a"), std::nullopt);
  EXPECT_EQ(ParseTelemetryPower("about -5 W"), -5.0);
  EXPECT_EQ(ParseTelemetryPower("W"), std::nullopt);
  const TelemetryColumns c =
      DetectTelemetryColumns({"timestamp", "index", "power.limit [W]", "power.draw [W]", "power_management"});
  EXPECT_EQ(c.timestamp, "timestamp");
  EXPECT_EQ(c.power, "power.draw [W]");
  EXPECT_EQ(c.gpu, "index");
  EXPECT_FALSE(DetectTelemetryColumns({"timestamp", "device_id", "power"}).gpu);
  EXPECT_TRUE(GpuIdBefore("2", "10"));
  EXPECT_TRUE(GpuIdBefore("10", "card0"));
  EXPECT_EQ(ParsePythonFloat(" 1_000.5e1 "), 10005.0);
  EXPECT_EQ(ParsePythonFloat("1__0"), std::nullopt);
}

TEST(PythonCsv, DictReaderQuirks) {
  const CsvDict csv = ParseCsvDict("a, b,a\r\n1, \"x,\"\"y\", 3\n\n 4\n\"multi\nline\",5,6,7");
  EXPECT_EQ(csv.header, (std::vector<std::string>{"a", "b", "a"}));
  ASSERT_EQ(csv.rows.size(), 3U);  // the blank line is skipped
  EXPECT_EQ(csv.Get(0, "b"), "x,\"y");
  EXPECT_EQ(csv.Get(0, "a"), "3");           // the last column of a repeated name
  EXPECT_EQ(csv.Get(1, "b"), std::nullopt);  // a short row
  EXPECT_EQ(csv.Get(2, "a"), "6");
  EXPECT_EQ(csv.Get(2, "b"), "5");
  EXPECT_EQ(ParseCsvDict("h\n" + std::string(kCsvFieldLimit + 1, 'x') + "\n").read_error, true);
  EXPECT_EQ(ParseCsvDict("h\n" + std::string(kCsvFieldLimit, 'x') + "\n").read_error, false);
  EXPECT_EQ(PythonPathText("./a//b/"), "a/b");
  EXPECT_EQ(PythonPathWithName("runs/r1.json", "power_validation_r1.json"), "runs/power_validation_r1.json");
  EXPECT_EQ(PythonPathStem(".hidden"), ".hidden");
}

TEST_F(PowerTest, ValidRunPatchesTheAggregateAndWritesTheSidecar) {
  Csv("99,0,100\n100,0,100\n101,0,200\n102,0,200\n103,0,200\n");
  Bench(100, 102, 2.0);
  const PowerRunOutcome out = Run();
  EXPECT_TRUE(out.power_valid);
  EXPECT_EQ(out.exit_code, 0);
  // 1 s rising 100→200 W (150 J), 1 s at 200 W (200 J).
  EXPECT_DOUBLE_EQ(out.metrics["total_gpu_energy_j"].get<double>(), 350.0);
  EXPECT_DOUBLE_EQ(out.metrics["joules_per_output_token"].get<double>(), 0.7);
  const Json agg = Json::parse(ReadFile((dir_ / "agg_bench.json").string()));
  EXPECT_EQ(agg["power_metric_schema_version"], 2);
  EXPECT_EQ(agg["power_valid"], 1);
  EXPECT_EQ(agg["avg_power_w"], 175.0);
  EXPECT_EQ(agg["joules_per_total_token"], 0.233333);
  const Json sidecar = Json::parse(ReadFile((dir_ / "power_validation_bench.json").string()));
  EXPECT_EQ(sidecar["power_valid"], true);
  EXPECT_EQ(sidecar["observed_gpu_ids"], Json::array({"0"}));
  EXPECT_EQ(sidecar["accumulator_check"], nullptr);
}

struct ReasonCase {
  const char* name;
  std::string csv;  // rows after the header; "<none>" for no file, "<empty>" for an empty file
  std::string header;
  long long gpus;
  Reasons reasons;
};

TEST_F(PowerTest, EveryIntegrationReasonCode) {
  const std::string ok = "98,0,100\n99,0,100\n100,0,100\n101,0,100\n102,0,100\n103,0,100\n";
  const std::vector<ReasonCase> cases{
      {"missing", "<none>", "", 1, {"telemetry_file_missing"}},
      {"empty", "<empty>", "", 1, {"telemetry_file_empty"}},
      {"columns", ok, "time_s,gpu_idx,watts", 1, {"power_column_missing", "gpu_identity_column_missing"}},
      {"no time", ok, "t,gpu,power", 1, {"timestamp_column_missing"}},
      {"bad time", "garbage,0,100\n" + ok, "", 1, {"invalid_timestamp_sample"}},
      {"bad power", ok + "100.5,0,[N/A]\n", "", 1, {"invalid_power_sample"}},
      {"negative power", ok + "100.5,0,-3\n", "", 1, {"invalid_power_sample"}},
      {"far bad power", "10,0,[N/A]\n" + ok, "", 1, {}},
      {"no gpu", ok + "100.5,,100\n", "", 1, {"gpu_identity_missing"}},
      {"no samples", "10,0,100\n", "", 1, {"no_usable_power_samples"}},
      {"count", ok, "", 2, {"expected_gpu_count_mismatch"}},
      {"bad count", ok, "", 0, {"invalid_expected_gpu_count"}},
      {"one sample", "100,0,100\n", "", 1, {"insufficient_power_samples"}},
      {"not bracketed", "100.5,0,100\n101,0,100\n102,0,100\n", "", 1, {"benchmark_window_not_bracketed"}},
      {"gap", "99,0,100\n103,0,100\n", "", 1, {"sampling_gap_exceeded"}},
      {"unreadable",
       ok + "101.5,0," + std::string(kCsvFieldLimit + 1, '1') + "\n",
       "",
       1,
       {"telemetry_file_unreadable"}},
  };
  for (const ReasonCase& c : cases) {
    SCOPED_TRACE(c.name);
    fs::remove(dir_ / "gpu_metrics.csv");
    if (c.csv == "<empty>") Write("gpu_metrics.csv", "");
    if (c.csv != "<none>" && c.csv != "<empty>") {
      Write("gpu_metrics.csv", (c.header.empty() ? "timestamp,gpu,socket_power" : c.header) + "\n" + c.csv);
    }
    const PowerIntegration r = IntegratePower((dir_ / "gpu_metrics.csv").string(), 100, 102, c.gpus);
    EXPECT_EQ(r.reasons, c.reasons);
    EXPECT_EQ(r.valid, c.reasons.empty());
  }
  EXPECT_EQ(IntegratePower("x.csv", 5, 5).reasons, Reasons{"invalid_benchmark_window"});
  EXPECT_EQ(IntegratePower("x.csv", 0, 5, 1, 0.0).reasons, Reasons{"invalid_max_sample_gap"});
}

TEST_F(PowerTest, BenchmarkAndAggregateReasonCodesAndExitStatus) {
  Csv("99,0,100\n100,0,100\n101,0,100\n102,0,100\n103,0,100\n");
  Write("bench.json", "not json");
  EXPECT_EQ(Run().reasons, Reasons{"invalid_benchmark_result"});
  Write("bench.json", "{\"benchmark_start_time_unix\": true, \"benchmark_end_time_unix\": 1, \"duration\": 1}");
  EXPECT_EQ(Run().reasons, Reasons{"invalid_benchmark_window"});
  Bench(100, 102, 5.0, ", \"completed\": 0, \"total_input_tokens\": 1.0");
  EXPECT_EQ(Run().reasons, (Reasons{"benchmark_duration_mismatch", "invalid_successful_query_count",
                                    "invalid_input_token_count", "invalid_output_token_count"}));
  Bench(100, 102, 2.0);
  PowerRunOptions options;
  options.csv = (dir_ / "gpu_metrics.csv").string();
  options.bench_result = (dir_ / "bench.json").string();
  options.agg_result = (dir_ / "absent.json").string();
  options.expected_num_gpus = 1;
  options.require_power = true;
  PowerRunOutcome out = RunPowerAggregation(options);
  EXPECT_EQ(out.reasons, Reasons{"aggregate_result_missing"});
  EXPECT_EQ(out.exit_code, 1);
  options.agg_result = Write("agg.json", "{broken");
  out = RunPowerAggregation(options);
  EXPECT_EQ(out.reasons, Reasons{"aggregate_result_unwritable"});
  EXPECT_EQ(ReadFile(options.agg_result), "{broken");  // left as it was
  options.require_power = false;
  EXPECT_EQ(RunPowerAggregation(options).exit_code, 0);
}

}  // namespace
}  // namespace infermark::results
