// `infermark results process` beside InferenceX's process_result.py (the newest script form, which
// runs the single-node power aggregation itself) on a client result with GPU telemetry: both run
// in their own copy of each case and must agree on the exit status, the agg record (key order and
// values) and the
// power_validation_<name>.json sidecar byte for byte. The scripts are utils/process_result.py and
// the utils/aggregate_power.py beside it, from ../shared/reference/inferencex/ (tests/reference.hpp:
// skipped without them, failed under CI=true).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/subprocess.hpp"
#include "reference.hpp"
#include "test_paths.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;

constexpr double kStart = 1785585600.0;  // the synthetic client result's window
constexpr double kEnd = 1785586000.0;

// An epoch-seconds telemetry stream for `gpus` GPUs, 1 Hz over [from, to).
std::string Csv(int gpus, double from, double to) {
  std::string out = "timestamp,gpu,socket_power\n";
  char line[128];
  for (double t = from; t < to; t += 1.0) {
    for (int g = 0; g < gpus; ++g) {
      std::snprintf(line, sizeof line, "%.3f,%d,%.3f\n", t + 0.011 * g, g, 410 + 35 * std::sin(t * 0.29 + g));
      out += line;
    }
  }
  return out;
}

struct Case {
  std::string name;
  std::map<std::string, std::string> env;    // beyond the deployment settings
  std::map<std::string, std::string> files;  // beside the client result
  int exit_code = 0;                         // expected of both
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  cases.push_back({"valid_tp2", {{"TP", "2"}}, {{"gpu_metrics.csv", Csv(2, kStart - 2, kEnd + 2)}}});
  cases.push_back(
      {"valid_tp1_pp2", {{"TP", "1"}, {"PP_SIZE", "2"}}, {{"gpu_metrics.csv", Csv(2, kStart - 2, kEnd + 2)}}});
  cases.push_back(
      {"pcp2_counts_gpus", {{"TP", "2"}, {"PCP_SIZE", "2"}}, {{"gpu_metrics.csv", Csv(4, kStart - 2, kEnd + 2)}}});
  cases.push_back({"gpu_count_mismatch", {{"TP", "4"}}, {{"gpu_metrics.csv", Csv(2, kStart - 2, kEnd + 2)}}});
  cases.push_back({"not_bracketed", {{"TP", "2"}}, {{"gpu_metrics.csv", Csv(2, kStart + 5, kEnd + 2)}}});
  cases.push_back({"no_telemetry", {{"TP", "2"}}, {}});
  cases.push_back({"no_telemetry_required", {{"TP", "2"}, {"REQUIRE_POWER", "1"}}, {}, 1});
  cases.push_back({"invalid_required_yes",
                   {{"TP", "4"}, {"REQUIRE_POWER", "yes"}},
                   {{"gpu_metrics.csv", Csv(2, kStart - 2, kEnd + 2)}},
                   1});
  cases.push_back({"valid_required",
                   {{"TP", "2"}, {"REQUIRE_POWER", "true"}},
                   {{"gpu_metrics.csv", Csv(2, kStart - 2, kEnd + 2)}}});
  // $GPU_METRICS_CSV wins over ./gpu_metrics.csv; a named file that is missing falls back to it.
  cases.push_back(
      {"env_csv_wins",
       {{"TP", "2"}, {"GPU_METRICS_CSV", "telemetry/run.csv"}},
       {{"telemetry/run.csv", Csv(2, kStart - 2, kEnd + 2)}, {"gpu_metrics.csv", Csv(1, kStart - 2, kEnd + 2)}}});
  cases.push_back({"env_csv_missing_falls_back",
                   {{"TP", "2"}, {"GPU_METRICS_CSV", "nowhere.csv"}},
                   {{"gpu_metrics.csv", Csv(2, kStart - 2, kEnd + 2)}}});
  cases.push_back({"env_csv_missing_named", {{"TP", "2"}, {"GPU_METRICS_CSV", "nowhere.csv"}}, {}});
  return cases;
}

const std::map<std::string, std::string> kDeployment = {
    {"RUNNER_TYPE", "h200"}, {"FRAMEWORK", "vllm"}, {"PRECISION", "fp8"},      {"SPEC_DECODING", "none"},
    {"ISL", "8192"},         {"OSL", "1024"},       {"DISAGG", "false"},       {"MODEL_PREFIX", "minimaxm3"},
    {"IMAGE", "vllm/x:1"},   {"EP_SIZE", "1"},      {"DP_ATTENTION", "false"}, {"RESULT_FILENAME", "bench"}};

TEST(ProcessPowerParity, SingleNodeTelemetryMatchesTheReference) {
  INFERMARK_REQUIRE_REFERENCE({"utils/process_result.py", "utils/aggregate_power.py"});
  const std::string script = test::ReferencePath("utils/process_result.py");
  const fs::path root = fs::temp_directory_path() / ("infermark_process_power_" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string bench = ReadFile(test::Fixture("golden-matrix/example_benchmark_result_synthetic.json"));
  int compared = 0;
  int valid = 0;
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> env{"env",          "-u", "REQUIRE_POWER",      "-u",    "GPU_METRICS_CSV", "-u",
                                 "IS_MULTINODE", "-u", "RECIPE_FINGERPRINT", "TZ=UTC"};
    for (const auto& [k, v] : kDeployment) env.push_back(k + "=" + v);
    for (const auto& [k, v] : c.env) env.push_back(k + "=" + v);
    const fs::path ref_dir = root / c.name / "ref";
    const fs::path our_dir = root / c.name / "ours";
    for (const fs::path& dir : {ref_dir, our_dir}) {
      fs::create_directories(dir);
      std::ofstream(dir / "bench.json") << bench;
      for (const auto& [name, text] : c.files) {
        fs::create_directories((dir / name).parent_path());
        std::ofstream(dir / name) << text;
      }
    }
    std::vector<std::string> ref_argv = env;
    ref_argv.insert(ref_argv.end(), {"python3", script});
    std::vector<std::string> our_argv = env;
    our_argv.insert(our_argv.end(), {test::Binary(), "results", "process", "-q"});
    const ProcessResult ref = RunCapture(ref_argv, ref_dir.string());
    const ProcessResult ours = RunCapture(our_argv, our_dir.string());
    ASSERT_EQ(ref.err.find("Traceback"), std::string::npos) << ref.err;
    EXPECT_EQ(ref.exit_code, c.exit_code) << ref.err;
    EXPECT_EQ(ours.exit_code, c.exit_code) << ours.err;

    Json ref_agg = Json::parse(ReadFile((ref_dir / "agg_bench.json").string()));
    const Json our_agg = Json::parse(ReadFile((our_dir / "agg_bench.json").string()));
    EXPECT_EQ(DumpJson(ref_agg), DumpJson(our_agg));
    if (ref_agg.value("power_valid", 0) == 1) ++valid;
    const std::string sidecar = "power_validation_bench.json";
    ASSERT_TRUE(fs::exists(ref_dir / sidecar));
    ASSERT_TRUE(fs::exists(our_dir / sidecar));
    EXPECT_EQ(ReadFile((ref_dir / sidecar).string()), ReadFile((our_dir / sidecar).string()));
    ++compared;
  }
  std::printf("process power parity: %d cases (%d with valid power), agg records and sidecars identical\n", compared,
              valid);
  EXPECT_GE(valid, 5);
  fs::remove_all(root);
}

}  // namespace
}  // namespace infermark
