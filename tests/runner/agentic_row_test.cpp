// Agentic-coding rows at the runner: InferenceX's environment contract, the built-in engine with
// the row's prefix cache and host tier, and `bench agentic` as the client.
#include <gtest/gtest.h>

#include "catalog/catalog_loader.hpp"
#include "matrix/generator.hpp"
#include "runner/row_agentic_client.hpp"
#include "runner/row_plan.hpp"
#include "runner/site_config.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

Json AgenticRow(std::int64_t conc, const std::string& kv) {
  const auto catalog = catalog::LoadMasterConfigs({test::SourcePath("recipes/configs/infermark-master.yaml")});
  const auto runners = catalog::LoadRunnerConfig(test::SourcePath("recipes/configs/runners.yaml"));
  matrix::TestConfigOptions o;
  o.config_keys = {"minimaxm3-fp4-mi355x-vllm-agentic"};
  o.common.evals.no_evals = true;
  for (const auto& row : matrix::GenerateTestConfig(catalog, runners, o)) {
    if (row["conc"] == conc && row["kv-offloading"] == kv) return row;
  }
  return Json();
}

bool Has(const std::vector<std::string>& argv, const std::string& flag, const std::string& value) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag && argv[i + 1] == value) return true;
  }
  return false;
}

SiteConfig Site() {
  std::vector<Diagnostic> problems;
  SiteConfig site =
      ReadSiteConfig(ParseYaml("defaults: {port: 9200, agentic-traces: traces.jsonl, agentic-duration-s: 120}\n"
                               "runners:\n  \"cluster:mi355x-local\": {engine: {hardware: mi355x}}\n"
                               "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4}\n",
                               "/site/infermark.yaml"),
                     problems);
  EXPECT_TRUE(problems.empty());
  return site;
}

TEST(AgenticRow, TheEnvironmentCarriesInferenceXsAgenticContract) {
  const Json row = AgenticRow(16, "dram");
  ASSERT_TRUE(row.is_object());
  LaunchContext c;
  c.result_filename = "rf";
  const EnvList env = LaunchEnvironment(row, c);
  EXPECT_EQ(EnvValue(env, "SCENARIO_TYPE"), "agentic-coding");
  EXPECT_EQ(EnvValue(env, "IS_AGENTIC"), "1");
  EXPECT_EQ(EnvValue(env, "SCENARIO_SUBDIR"), "agentic/");
  EXPECT_EQ(EnvValue(env, "KV_OFFLOADING"), "dram");
  EXPECT_EQ(EnvValue(env, "KV_OFFLOAD_BACKEND"), "native");
  // floor(min(3,095,781, 2,861,022) MiB x 0.8 x 4 GPUs / 8 per node) in GB.
  EXPECT_EQ(EnvValue(env, "TOTAL_CPU_DRAM_GB"), "1199");
  EXPECT_EQ(EnvValue(env, "DURATION"), "3600");
  EXPECT_EQ(EnvValue(env, "ISL"), "0");
  EXPECT_EQ(EnvValue(env, "OSL"), "0");
  EXPECT_EQ(EnvValue(env, "MAX_MODEL_LEN"), "0");
  EXPECT_EQ(EnvValue(env, "CONC"), "16");
  const EnvList none = LaunchEnvironment(AgenticRow(16, "none"), c);
  EXPECT_EQ(EnvValue(none, "KV_OFFLOADING"), "none");
  EXPECT_EQ(EnvValue(none, "KV_OFFLOAD_BACKEND"), "");
  EXPECT_EQ(EnvValue(none, "TOTAL_CPU_DRAM_GB"), "0");
}

TEST(AgenticRow, TheEngineGetsTheRowsHostTierAndTheClientReplaysTheSitesCorpus) {
  PlanOptions po;
  po.infermark = "/bin/infermark";
  const RowPlan dram = PlanRow(test::Typed(AgenticRow(8, "dram")), Site(), po);
  EXPECT_TRUE(Has(dram.server.argv, "--kv-offloading-size", "1199"));
  EXPECT_TRUE(Has(dram.server.argv, "--kv-offloading-backend", "native"));
  EXPECT_NE(std::find(dram.server.argv.begin(), dram.server.argv.end(), "--enable-prefix-caching"),
            dram.server.argv.end());
  ASSERT_TRUE(dram.client.has_value());
  const auto& c = dram.client->argv;
  ASSERT_GE(c.size(), 3U);
  EXPECT_EQ(c[1], "bench");
  EXPECT_EQ(c[2], "agentic");
  EXPECT_TRUE(Has(c, "--concurrency", "8"));
  EXPECT_TRUE(Has(c, "--traces", "/site/traces.jsonl"));
  EXPECT_TRUE(Has(c, "--duration", "120.0"));
  EXPECT_TRUE(Has(c, "--warmup-requests-per-lane", "10"));
  EXPECT_TRUE(Has(c, "--result-filename", dram.result_filename));
  EXPECT_TRUE(Has(c, "--output-artifact-dir", dram.log_dir + "/aiperf_artifacts"));
  EXPECT_NE(std::find(c.begin(), c.end(), "--unsafe-override"), c.end());  // 120 s < 900 s
  EXPECT_EQ(EnvValue(dram.client->env, "KV_OFFLOADING"), "dram");
  EXPECT_FALSE(dram.client_config.has_value());

  const RowPlan none = PlanRow(test::Typed(AgenticRow(8, "none")), Site(), po);
  EXPECT_EQ(std::find(none.server.argv.begin(), none.server.argv.end(), "--kv-offloading-size"),
            none.server.argv.end());
  // The predicted row runs the same replay settings.
  const RowPlan predicted = PlanPredictedRow(test::Typed(AgenticRow(8, "dram")), Site(), po, "/tmp/p");
  ASSERT_TRUE(predicted.agentic_config.has_value());
  EXPECT_EQ(predicted.agentic_config->replay.concurrency, 8U);
  EXPECT_EQ(predicted.agentic_config->replay.duration_s, 120);
  EXPECT_EQ(predicted.deployment->kv_offloading_size_gib.value_or(0), 1199);
}

TEST(AgenticRow, WithoutASiteCorpusTheModelPicksInferenceXsDataset) {
  EXPECT_EQ(DefaultTraceSource("minimaxm3"), "semianalysisai/cc-traces-weka-062126");
  EXPECT_EQ(DefaultTraceSource("dsv4"), "semianalysisai/cc-traces-weka-062126");
  EXPECT_EQ(DefaultTraceSource("qwen3.5"), "semianalysisai/cc-traces-weka-062126-256k");
}

}  // namespace
}  // namespace infermark::runner
