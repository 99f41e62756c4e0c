// Planning a multi-node row (its allocation, points, the roles' command lines) and reading a
// worker's /metrics for the idle wait between points.
#include "runner/multinode_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/diagnostic.hpp"
#include "core/yaml_node.hpp"
#include "plan_error.hpp"
#include "runner/row_plan.hpp"
#include "runner/worker_idle.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

SiteConfig Site(const std::string& text) {
  std::vector<Diagnostic> problems;
  SiteConfig site = ReadSiteConfig(ParseYaml(text, "site.yaml"), problems);
  EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems.front().ToString());
  return site;
}

Json Row2P1D() {
  Json row = test::ScriptRow("minimaxm3", 1);
  row["model"] = "amd/MiniMax-M3-MXFP4";
  row["precision"] = "fp4";
  row["runner"] = "disagg";
  row["disagg"] = true;
  row.erase("tp");
  row["prefill"] = Json{{"num-worker", 2}, {"tp", 2}, {"ep", 1}, {"dp-attn", false}};
  row["decode"] = Json{{"num-worker", 1}, {"tp", 4}, {"ep", 4}, {"dp-attn", true}};
  row["conc"] = Json::array({1, 8});
  row["kv-p2p-transfer"] = "mooncake";
  return row;
}

TEST(MultiNodePlan, AnEngineRowGetsItsAllocationPointsAndRoles) {
  const SiteConfig site = Site(
      "defaults: {port: 9000, time-scale: 50}\n"
      "runners:\n  disagg: {executor: slurm, engine: {hardware: mi355x, router-policy: least-loaded, args: [--seed, "
      "'7']}, slurm: {gpus-per-node: 4, partition: gpu}}\n"
      "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4}\n");
  PlanOptions options;
  options.result_dir = "/r";
  options.infermark = "/bin/infermark";
  const RowPlan plan = PlanRow(test::Typed(Row2P1D()), site, options);
  ASSERT_TRUE(plan.multinode.has_value());
  const MultiNodePlan& m = *plan.multinode;
  EXPECT_EQ(m.allocation.nodes, 2);  // two tp-2 prefill workers on n1, the tp-4 decode worker on n2
  EXPECT_EQ(m.allocation.partition, "gpu");
  EXPECT_EQ(m.prefill_gpus, 4);
  EXPECT_EQ(m.decode_gpus, 4);
  ASSERT_EQ(m.points.size(), 2U);
  EXPECT_EQ(m.points[1].result_filename, plan.result_filename + "_conc8_gpus_8_ctx_4_gen_4");
  EXPECT_EQ(m.points[1].result_path, "/r/" + plan.result_filename + "_conc8_gpus_8_ctx_4_gen_4.json");
  ASSERT_TRUE(m.points[1].client_config.has_value());
  EXPECT_EQ(m.points[1].client_config->max_concurrency, 8);
  EXPECT_EQ(m.points[1].client_config->base_url, "http://127.0.0.1:9000");
  ASSERT_TRUE(m.engine.has_value());
  EXPECT_EQ(m.engine->kv_transfer, "mooncake");

  const auto decode = WorkerArgv("/bin/infermark", *m.engine, "decode", "0.0.0.0", 9003);
  const std::string line = [&] {
    std::string out;
    for (const auto& a : decode) out += a + " ";
    return out;
  }();
  EXPECT_EQ(
      line.rfind("/bin/infermark engine serve --role decode --model minimax-m3 --hardware mi355x --tp 4 --ep 4", 0), 0U)
      << line;
  EXPECT_NE(line.find("--dp-attn"), std::string::npos) << line;
  EXPECT_NE(line.find("--time-scale 50 --host 0.0.0.0 --seed 7 "), std::string::npos) << line;
  EXPECT_EQ(line.find("--kv-transfer"), std::string::npos) << line;
  const auto prefill = WorkerArgv("/bin/infermark", *m.engine, "prefill", "0.0.0.0", 9001);
  EXPECT_NE(std::find(prefill.begin(), prefill.end(), "mooncake"), prefill.end());

  const auto router =
      RouterArgv("/bin/infermark", *m.engine, {"http://a:1", "http://a:2"}, {"http://b:3"}, "0.0.0.0", 9000);
  const std::vector<std::string> head(router.begin(), router.begin() + 9);
  EXPECT_EQ(head, (std::vector<std::string>{"/bin/infermark", "engine", "serve", "--role", "router", "--prefill",
                                            "http://a:1,http://a:2", "--decode", "http://b:3"}));
  EXPECT_NE(std::find(router.begin(), router.end(), "least-loaded"), router.end());
  EXPECT_EQ(VisibleDevices(2, 2), "2,3");
}

TEST(MultiNodePlan, AContainerTargetIsRefusedWithTheReason) {
  const SiteConfig site = Site(
      "runners:\n  disagg: {executor: slurm, command: [server, --port, '${PORT}']}\n"
      "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3}\n");
  const std::string error = test::PlanError(Row2P1D(), site);
  EXPECT_NE(error.find("a multi-node row runs the built-in engine per role or a launcher script"), std::string::npos)
      << error;
}

TEST(MultiNodePlan, ALauncherScriptTargetWithoutTheRowsScriptIsRefusedNamingWhatItLookedFor) {
  const std::string dir = ::testing::TempDir() + "multinode_plan_no_scripts";
  const SiteConfig site = Site("runners:\n  disagg: {executor: slurm, script: {dir: '" + dir + "'}}\n");
  const std::string error = test::PlanError(Row2P1D(), site);
  EXPECT_NE(error.find("no launcher script for this row in '" + dir + "' (looked for minimaxm3_fp4_<gpu>[_vllm].sh)"),
            std::string::npos)
      << error;
}

TEST(WorkerIdle, RequestsInFlightSumsRunningAndWaitingOfVllmAndSglang) {
  EXPECT_EQ(RequestsInFlight("# HELP x\nvllm:num_requests_running{model_name=\"m\"} 3\n"
                             "vllm:num_requests_waiting{model_name=\"m\"} 2.0\nvllm:other 9\n"),
            5.0);
  EXPECT_EQ(RequestsInFlight("sglang:num_running_reqs 0\nsglang:num_queue_reqs 0\n"), 0.0);
  EXPECT_EQ(RequestsInFlight("process_cpu_seconds_total 4\n"), std::nullopt);
}

}  // namespace
}  // namespace infermark::runner
