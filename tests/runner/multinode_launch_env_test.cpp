// The multi-node launcher contract: a multi-node row of the founding model's disaggregated recipe
// gets what InferenceX's multi-node template exports (IS_MULTINODE, CONC_LIST, PREFILL_*/DECODE_*,
// the worker blocks' additional settings, ROUTER_METADATA, KV_P2P_TRANSFER), the GPUs of each pool,
// and the launcher script InferenceX's MI355X launcher would run; its results, processed with the
// row's settings, are multi-node records.
#include <gtest/gtest.h>

#include "catalog/catalog_loader.hpp"
#include "core/diagnostic.hpp"
#include "matrix/generator.hpp"
#include "results/process_result.hpp"
#include "results/process_settings.hpp"
#include "runner/launch_env.hpp"
#include "runner/row_plan.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

// The recipe's row with `prefill_workers` prefill workers.
Json DisaggRow(int prefill_workers) {
  const auto catalog = catalog::LoadMasterConfigs({test::SourcePath("recipes/configs/infermark-master.yaml")});
  const auto runners = catalog::LoadRunnerConfig(test::SourcePath("recipes/configs/runners.yaml"));
  matrix::TestConfigOptions o;
  o.config_keys = {"minimaxm3-fp4-mi355x-vllm-disagg"};
  o.common.evals.no_evals = true;
  for (const auto& row : matrix::GenerateTestConfig(catalog, runners, o)) {
    if (row["prefill"]["num-worker"] == prefill_workers) return row;
  }
  return Json();
}

TEST(MultiNodeLaunchEnvironment, CarriesTheMultiNodeTemplate) {
  const Json row = DisaggRow(2);
  ASSERT_TRUE(row.is_object());
  LaunchContext c;
  c.runner_name = "mi355x-disagg-local_00";
  c.result_filename = "rf";
  c.result_dir = "/w";
  const EnvList env = LaunchEnvironment(row, c);
  EXPECT_EQ(EnvValue(env, "IS_MULTINODE"), "true");
  EXPECT_EQ(EnvValue(env, "DISAGG"), "true");
  EXPECT_EQ(EnvValue(env, "CONC_LIST"), "1 4 16 64 256");
  EXPECT_EQ(EnvValue(env, "CONC"), "");
  EXPECT_EQ(EnvValue(env, "PREFILL_NUM_WORKERS"), "2");
  EXPECT_EQ(EnvValue(env, "PREFILL_TP"), "4");
  EXPECT_EQ(EnvValue(env, "PREFILL_PP_SIZE"), "1");
  EXPECT_EQ(EnvValue(env, "PREFILL_EP"), "1");
  EXPECT_EQ(EnvValue(env, "PREFILL_DP_ATTN"), "false");
  EXPECT_EQ(EnvValue(env, "DECODE_NUM_WORKERS"), "1");
  EXPECT_EQ(EnvValue(env, "DECODE_TP"), "4");
  EXPECT_EQ(EnvValue(env, "PREFILL_NODES"), "1");
  EXPECT_EQ(EnvValue(env, "DECODE_NODES"), "1");
  EXPECT_EQ(EnvValue(env, "PREFILL_GPUS"), "8");
  EXPECT_EQ(EnvValue(env, "DECODE_GPUS"), "4");
  EXPECT_EQ(EnvValue(env, "GPU_COUNT"), "12");
  EXPECT_EQ(EnvValue(env, "KV_P2P_TRANSFER"), "moriio");
  EXPECT_EQ(Json::parse(EnvValue(env, "ROUTER_METADATA")), Json::parse(R"({"name":"vllm-router","version":"0.1.14"})"));
  EXPECT_EQ(EnvValue(env, "MAX_MODEL_LEN"), "9472");
  // The cluster label's GPU, so the points compare with single-node ones of the same hardware.
  EXPECT_EQ(EnvValue(env, "RUNNER_TYPE"), "mi355x");
  // A single-node row gets none of it.
  Json single = row;
  single.erase("prefill");
  single.erase("decode");
  single["conc"] = 8;
  single["tp"] = 8;
  const EnvList plain = LaunchEnvironment(single, c);
  EXPECT_EQ(EnvValue(plain, "IS_MULTINODE"), "");
  EXPECT_EQ(EnvValue(plain, "CONC"), "8");
  EXPECT_EQ(EnvValue(plain, "GPU_COUNT"), "8");
}

TEST(MultiNodeLaunchEnvironment, RefusesAdditionalSettingsThatAreNotAssignments) {
  Json row = DisaggRow(1);
  ASSERT_TRUE(row.is_object());
  for (const char* bad : {"PREFILL_NODES", "1X=2", "=3", "A-B=1", "rm -rf /=x"}) {
    row["prefill"]["additional-settings"] = Json::array({bad});
    try {
      (void)LaunchEnvironment(row, {});
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("prefill.additional-settings"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  row["prefill"]["additional-settings"] = Json::array({"PREFILL_NODES=1", "_X=a=b"});
  const EnvList env = LaunchEnvironment(row, {});
  EXPECT_EQ(EnvValue(env, "_X"), "a=b");
}

TEST(MultiNodeLaunchEnvironment, FindsTheLauncherAndProcessesItsResults) {
  const Json row = DisaggRow(1);
  ASSERT_TRUE(row.is_object());
  EXPECT_EQ(FindLauncherScript(test::SourcePath("recipes/benchmarks/multi_node"), test::Typed(row)),
            test::SourcePath("recipes/benchmarks/multi_node/minimaxm3_fp4_mi355x_vllm-disagg.sh"));
  // A result of the row's launcher, processed with the row's settings (the runner's way).
  Json result = Json::object();
  result["model_id"] = "amd/MiniMax-M3-MXFP4";
  result["max_concurrency"] = 16;
  result["total_token_throughput"] = 16000.0;
  result["output_throughput"] = 2000.0;
  result["median_tpot_ms"] = 20.0;
  const Json agg = results::ProcessClientResult(result, results::SettingsFromMatrixRow(row), "rf_conc16.json");
  EXPECT_EQ(agg["is_multinode"], true);
  EXPECT_EQ(agg["num_prefill_gpu"], 4);
  EXPECT_EQ(agg["num_decode_gpu"], 4);
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), 2000.0);
  EXPECT_EQ(agg["kv_p2p_transfer"], "moriio");
  EXPECT_EQ(agg["hw"], "mi355x");
}

}  // namespace
}  // namespace infermark::runner
