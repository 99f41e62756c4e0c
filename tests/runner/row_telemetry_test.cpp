// GPU power telemetry of rows, against the scripted NVML of tests/gpu/fake_nvml: on by default for
// launcher scripts, containers and commands when NVML sees a GPU, off for the built-in engine; a
// row's power failing never fails the row unless power is required.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "catalog/catalog_loader.hpp"
#include "core/file_io.hpp"
#include "matrix/generator.hpp"
#include "runner/row_plan.hpp"
#include "runner/row_runner.hpp"
#include "runner/site_config.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

class RowTelemetryTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("INFERMARK_NVML_LIBRARY", INFERMARK_FAKE_NVML, 1); }
  void TearDown() override { unsetenv("INFERMARK_NVML_LIBRARY"); }
};

SiteConfig TelemetrySite(const std::string& text) {
  std::vector<Diagnostic> problems;
  SiteConfig site = ReadSiteConfig(ParseYaml(text, "/site/infermark.yaml"), problems);
  EXPECT_TRUE(problems.empty());
  return site;
}

const char* kEngineSite =
    "runners:\n  test: {engine: {hardware: h100}}\nmodels:\n  test/model: {model: llama-3.1-8b, precision: fp8}\n";
const char* kCommandSite = "runners:\n  test: {command: [vllm, serve, '${MODEL}', --port, '${PORT}']}\n";

TEST_F(RowTelemetryTest, OnByDefaultForCommandsAndOffForTheBuiltinEngine) {
  Json row = test::ScriptRow("good", 4);
  row["tp"] = 4;
  row["pp"] = 2;
  EXPECT_FALSE(PlanRow(test::Typed(row), TelemetrySite(kEngineSite), {}).telemetry.has_value());
  const RowPlan command = PlanRow(test::Typed(row), TelemetrySite(kCommandSite), {});
  ASSERT_TRUE(command.telemetry.has_value());
  EXPECT_EQ(command.telemetry->expected_num_gpus, 8);  // TP·PP·PCP
  EXPECT_EQ(command.telemetry->csv, command.log_dir + "/gpu_metrics.runner.csv");
  EXPECT_EQ(EnvValue(command.env, "GPU_METRICS_CSV"), command.log_dir + "/gpu_metrics.csv");
  EXPECT_EQ(EnvValue(command.server.env, "GPU_METRICS_CSV"), command.log_dir + "/gpu_metrics.csv");

  PlanOptions off;
  off.gpu_telemetry = false;
  EXPECT_FALSE(PlanRow(test::Typed(row), TelemetrySite(kCommandSite), off).telemetry.has_value());
  PlanOptions on;
  on.gpu_telemetry = true;
  EXPECT_TRUE(PlanRow(test::Typed(row), TelemetrySite(kEngineSite), on).telemetry.has_value());

  // No GPU seen here: nothing is sampled unless asked.
  setenv("INFERMARK_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const RowPlan without = PlanRow(test::Typed(row), TelemetrySite(kCommandSite), {});
  EXPECT_FALSE(without.telemetry.has_value());
  EXPECT_EQ(EnvValue(without.env, "GPU_METRICS_CSV"), "");
}

TEST_F(RowTelemetryTest, ContainersWriteTheCsvUnderWorkspace) {
  const RowPlan plan = PlanRow(test::Typed(test::ScriptRow("good", 2)),
                               TelemetrySite("runners:\n  test: {container: {engine: docker, script-dir: '" +
                                             test::SourcePath("tests/runner/scripts") + "'}}\n"),
                               {});
  ASSERT_TRUE(plan.telemetry.has_value());
  const std::string inside =
      "GPU_METRICS_CSV=/workspace/logs/" + fs::path(plan.log_dir).filename().string() + "/gpu_metrics.csv";
  bool found = false;
  for (const auto& a : plan.server.argv) found = found || a == inside;
  EXPECT_TRUE(found) << inside;
}

// The test script's result has no benchmark window: power is invalid, the row is still done;
// with power required it ends INVALID.
TEST_F(RowTelemetryTest, InvalidPowerNeverFailsARowUnlessRequired) {
  for (const bool required : {false, true}) {
    test::ScratchDir dir;
    const std::string site_file = dir / "site.yaml";
    WriteFileAtomic(site_file, test::ScriptSite(dir / "results", test::FreePort(), 60));
    PlanOptions po;
    po.require_power = required;
    po.gpu_telemetry_interval_s = 0.1;
    const RowPlan plan = PlanRow(test::Typed(test::ScriptRow("good", 1)), LoadSiteConfig(site_file), po);
    ASSERT_TRUE(plan.telemetry.has_value());
    RowLimits limits;
    limits.stop_grace_s = 1;
    const RowOutcome out = RunRowLocally(plan, limits);
    EXPECT_EQ(out.status, required ? RowStatus::kInvalid : RowStatus::kDone) << out.reason;
    ASSERT_TRUE(out.power_valid.has_value());
    EXPECT_FALSE(*out.power_valid);
    EXPECT_FALSE(out.power_reasons.empty());
    if (required) {
      EXPECT_EQ(out.reason.rfind("power required but invalid: ", 0), 0u) << out.reason;
    }
    std::ifstream csv(plan.telemetry->csv);
    std::string header;
    std::getline(csv, header);
    EXPECT_EQ(header.rfind("timestamp, index, power.draw [W]", 0), 0u) << header;
    const auto result = nlohmann::json::parse(ReadFile(plan.result_path));
    EXPECT_EQ(result["power_valid"], 0);
    EXPECT_EQ(result["power_metric_schema_version"], 2);
  }
}

}  // namespace
}  // namespace infermark::runner
