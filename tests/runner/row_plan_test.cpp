// Row plans: the environment contract, the built-in engine's and the client's command lines,
// launcher-script lookup, container argv (no container engine runs here: the argv is the test).
#include "runner/row_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/catalog_loader.hpp"
#include "matrix/generator.hpp"
#include "plan_error.hpp"
#include "runner/site_config.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

using test::FoundingRow;

SiteConfig PlanSite(const std::string& text) {
  std::vector<Diagnostic> problems;
  SiteConfig site = ReadSiteConfig(ParseYaml(text, "/site/infermark.yaml"), problems);
  EXPECT_TRUE(problems.empty());
  return site;
}

bool PlanArgvHas(const std::vector<std::string>& argv, const std::string& flag, const std::string& value) {
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag && argv[i + 1] == value) return true;
  }
  return false;
}

TEST(LaunchEnvironment, CarriesTheInferenceXContract) {
  const Json row = FoundingRow(64);
  ASSERT_TRUE(row.is_object());
  LaunchContext c;
  c.runner_name = "mi355x-amds_03";
  c.result_filename = "rf";
  c.result_dir = "/w";
  c.port = 8891;
  const EnvList env = LaunchEnvironment(row, c);
  EXPECT_EQ(EnvValue(env, "MODEL"), "amd/MiniMax-M3-MXFP4");
  EXPECT_EQ(EnvValue(env, "TP"), "4");
  EXPECT_EQ(EnvValue(env, "EP_SIZE"), "1");
  EXPECT_EQ(EnvValue(env, "DP_ATTENTION"), "false");
  EXPECT_EQ(EnvValue(env, "CONC"), "64");
  EXPECT_EQ(EnvValue(env, "ISL"), "8192");
  EXPECT_EQ(EnvValue(env, "OSL"), "1024");
  EXPECT_EQ(EnvValue(env, "MAX_MODEL_LEN"), "9472");
  EXPECT_EQ(EnvValue(env, "RANDOM_RANGE_RATIO"), "0.8");
  EXPECT_EQ(EnvValue(env, "RESULT_FILENAME"), "rf");
  EXPECT_EQ(EnvValue(env, "PORT"), "8891");
  EXPECT_EQ(EnvValue(env, "PRECISION"), "fp4");
  EXPECT_EQ(EnvValue(env, "FRAMEWORK"), "vllm");
  EXPECT_EQ(EnvValue(env, "EXP_NAME"), "minimaxm3_8k1k");
  EXPECT_EQ(EnvValue(env, "SCENARIO_SUBDIR"), "fixed_seq_len/");
  EXPECT_EQ(EnvValue(env, "GPU_COUNT"), "4");
  EXPECT_EQ(EnvValue(env, "RUNNER_TYPE"), "mi355x");
  EXPECT_EQ(EnvValue(env, "RUNNER_NAME"), "mi355x-amds_03");
}

TEST(LaunchEnvironment, ExpandsVariablesWithoutAShell) {
  const EnvList env = {{"MODEL", "m; rm -rf /"}, {"PORT", "1"}};
  EXPECT_EQ(ExpandVariables("${MODEL}", env), "m; rm -rf /");
  EXPECT_EQ(ExpandVariables("--port=${PORT}${NOPE}", env), "--port=1");
  EXPECT_EQ(ExpandVariables("${unterminated", env), "${unterminated");
}

// A site whose mi355x label runs the built-in engine, and options of 2 prompts per concurrency.
SiteConfig EngineSite() {
  return PlanSite(
      "defaults: {port: 9100, time-scale: 8, runner-name: r_00}\nrunners:\n  mi355x: {engine: {hardware: mi355x}}\n"
      "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4}\n");
}

PlanOptions TwoPromptsPerConc() {
  PlanOptions po;
  po.infermark = "/bin/infermark";
  po.prompts_per_conc = 2;
  return po;
}

TEST(RowPlan, BuiltinEngineServesTheRowAndTheClientLoadsIt) {
  const RowPlan plan = PlanRow(test::Typed(FoundingRow(16)), EngineSite(), TwoPromptsPerConc());
  EXPECT_EQ(plan.kind, TargetKind::kEngine);
  const auto& s = plan.server.argv;
  ASSERT_GE(s.size(), 3U);
  EXPECT_EQ(s[0], "/bin/infermark");
  EXPECT_EQ(s[1], "engine");
  EXPECT_EQ(s[2], "serve");
  EXPECT_TRUE(PlanArgvHas(s, "--model", "minimax-m3"));
  EXPECT_TRUE(PlanArgvHas(s, "--hardware", "mi355x"));
  EXPECT_TRUE(PlanArgvHas(s, "--tp", "4"));
  EXPECT_TRUE(PlanArgvHas(s, "--precision", "fp4"));
  EXPECT_TRUE(PlanArgvHas(s, "--port", "9100"));
  EXPECT_TRUE(PlanArgvHas(s, "--time-scale", "8"));
  EXPECT_TRUE(PlanArgvHas(s, "--max-model-len", "9472"));
  ASSERT_TRUE(plan.client.has_value());
  const auto& c = plan.client->argv;
  EXPECT_TRUE(PlanArgvHas(c, "--base-url", "http://127.0.0.1:9100"));
  EXPECT_TRUE(PlanArgvHas(c, "--max-concurrency", "16"));
  EXPECT_TRUE(PlanArgvHas(c, "--num-prompts", "32"));
  EXPECT_TRUE(PlanArgvHas(c, "--num-warmups", "32"));
  EXPECT_TRUE(PlanArgvHas(c, "--random-input-len", "8192"));
  EXPECT_TRUE(PlanArgvHas(c, "--result-filename", plan.result_filename + ".json"));
  EXPECT_EQ(plan.result_dir, "/site/results");
  EXPECT_EQ(plan.result_path, "/site/results/" + plan.result_filename + ".json");
  EXPECT_NE(plan.result_filename.find("_conc16_r_00"), std::string::npos) << plan.result_filename;
}

TEST(RowPlan, AFloorOnPromptsRaisesAFewButLeavesMoreAlone) {
  const SiteConfig site = EngineSite();
  PlanOptions po = TwoPromptsPerConc();
  po.min_prompts = 10;
  // conc 1 × 2 = 2 prompts, raised to 10; conc 16 × 2 = 32, over the floor, unchanged.
  EXPECT_TRUE(PlanArgvHas(PlanRow(test::Typed(FoundingRow(1)), site, po).client->argv, "--num-prompts", "10"));
  EXPECT_TRUE(PlanArgvHas(PlanRow(test::Typed(FoundingRow(16)), site, po).client->argv, "--num-prompts", "32"));
  // A launcher script gets the floor in its contract.
  LaunchContext c;
  c.min_prompts = 10;
  EXPECT_EQ(EnvValue(LaunchEnvironment(FoundingRow(1), c), "INFERMARK_MIN_PROMPTS"), "10");
}

TEST(RowPlan, TheBuiltinEngineAndItsClientGetDisjointHalvesOfTheHostsCpus) {
  const std::string models = "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4}\n";
  const SiteConfig site = PlanSite("runners:\n  mi355x: {engine: {hardware: mi355x}}\n" + models);
  PlanOptions po;
  po.host_cpus = {0, 1};
  RowPlan plan = PlanRow(test::Typed(FoundingRow(256)), site, po);
  EXPECT_TRUE(PlanArgvHas(plan.server.argv, "--cpus", "0"));
  ASSERT_TRUE(plan.client.has_value());
  EXPECT_TRUE(PlanArgvHas(plan.client->argv, "--cpus", "1"));

  po.host_cpus = {2, 3, 5, 7, 8};
  plan = PlanRow(test::Typed(FoundingRow(256)), site, po);
  EXPECT_TRUE(PlanArgvHas(plan.server.argv, "--cpus", "2,3,5"));
  EXPECT_TRUE(PlanArgvHas(plan.client->argv, "--cpus", "7,8"));

  // One CPU: nothing to split, nothing pinned.
  po.host_cpus = {0};
  plan = PlanRow(test::Typed(FoundingRow(256)), site, po);
  EXPECT_EQ(std::count(plan.server.argv.begin(), plan.server.argv.end(), "--cpus"), 0);
  EXPECT_EQ(std::count(plan.client->argv.begin(), plan.client->argv.end(), "--cpus"), 0);

  // The label's own --cpus for the engine wins; the client still gets its half.
  const SiteConfig own = PlanSite("runners:\n  mi355x: {engine: {hardware: mi355x, args: [--cpus, '1']}}\n" + models);
  po.host_cpus = {0, 1};
  plan = PlanRow(test::Typed(FoundingRow(256)), own, po);
  EXPECT_EQ(std::count(plan.server.argv.begin(), plan.server.argv.end(), "--cpus"), 1);
  EXPECT_TRUE(PlanArgvHas(plan.server.argv, "--cpus", "1"));

  // A command target is a real server: neither it nor its client is pinned.
  const SiteConfig command = PlanSite("runners:\n  mi355x: {command: [vllm, serve, '${MODEL}']}\n");
  plan = PlanRow(test::Typed(FoundingRow(256)), command, po);
  EXPECT_EQ(std::count(plan.client->argv.begin(), plan.client->argv.end(), "--cpus"), 0);
}

TEST(SiteConfig, PinCpusIsABooleanDefaultingToOn) {
  EXPECT_TRUE(PlanSite("runners: {}\n").defaults.pin_cpus);
  EXPECT_FALSE(PlanSite("defaults: {pin-cpus: false}\nrunners: {}\n").defaults.pin_cpus);
  std::vector<Diagnostic> problems;
  ReadSiteConfig(ParseYaml("defaults: {pin-cpus: sometimes}\nrunners: {}\n", "/site/infermark.yaml"), problems);
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_NE(problems[0].ToString().find("pin-cpus"), std::string::npos) << problems[0].ToString();
}

TEST(RowPlan, UnknownLabelsAndModelsAreInputErrors) {
  const SiteConfig site = PlanSite("runners:\n  h100: {engine: {hardware: h100}}\n");
  EXPECT_THROW(PlanRow(test::Typed(FoundingRow(1, "1k1k", 8)), site, {}), InputError);
  const SiteConfig no_model = PlanSite("runners:\n  mi355x: {engine: {hardware: mi355x}}\n");
  const std::string error = test::PlanError(FoundingRow(1, "1k1k", 8), no_model);
  EXPECT_NE(error.find("amd/MiniMax-M3-MXFP4"), std::string::npos) << error;
}

TEST(RowPlan, FindsTheFoundingRecipesLauncherScript) {
  const std::string dir = test::SourcePath("recipes/benchmarks/single_node");
  const std::string script = FindLauncherScript(dir, test::Typed(FoundingRow(4)));
  EXPECT_EQ(script, test::SourcePath("recipes/benchmarks/single_node/fixed_seq_len/minimaxm3_fp4_mi355x_vllm.sh"));
  Json other = FoundingRow(4);
  other["runner"] = "cluster:mi355x-amds";
  EXPECT_EQ(FindLauncherScript(dir, test::Typed(other)), script);
  other["precision"] = "fp8";
  EXPECT_EQ(FindLauncherScript(dir, test::Typed(other)), "");
}

TEST(RowPlan, AScriptTargetWithoutTheRowsScriptIsRefusedNamingWhatItLookedFor) {
  const std::string dir = ::testing::TempDir() + "row_plan_no_scripts";
  const SiteConfig site = PlanSite("runners:\n  mi355x: {script: {dir: '" + dir + "'}}\n");
  const std::string error = test::PlanError(FoundingRow(4), site);
  EXPECT_NE(error.find("no launcher script for this row in '" + dir + "' (looked for minimaxm3_fp4_<gpu>[_vllm].sh)"),
            std::string::npos)
      << error;
}

TEST(RowPlan, CommandTargetsExpandTheRowsVariables) {
  const SiteConfig site = PlanSite(
      "runners:\n  mi355x: {command: [vllm, serve, '${MODEL}', --port, '${PORT}', --tensor-parallel-size, '${TP}']}\n");
  const RowPlan plan = PlanRow(test::Typed(FoundingRow(2)), site, {});
  EXPECT_EQ(plan.server.argv, (std::vector<std::string>{"vllm", "serve", "amd/MiniMax-M3-MXFP4", "--port", "8888",
                                                        "--tensor-parallel-size", "4"}));
  EXPECT_TRUE(plan.client.has_value());
}

TEST(ContainerArgv, DockerRunsTheScriptWithTheContractAndCleansUp) {
  const SiteConfig site = PlanSite("runners:\n  mi355x: {container: {engine: docker, script-dir: '" +
                                   test::SourcePath("recipes/benchmarks/single_node") +
                                   "', mounts: ['/hf:/hf'], args: [--device=/dev/kfd]}}\n");
  PlanOptions po;
  po.infermark = "/opt/infermark";
  const RowPlan plan = PlanRow(test::Typed(FoundingRow(8)), site, po);
  const auto& a = plan.server.argv;
  ASSERT_GE(a.size(), 6U);
  EXPECT_EQ(a[0], "docker");
  EXPECT_EQ(a[1], "run");
  EXPECT_TRUE(PlanArgvHas(a, "--volume", "/site/results:/workspace"));
  EXPECT_TRUE(PlanArgvHas(a, "--volume", "/opt/infermark:/usr/local/bin/infermark:ro"));
  EXPECT_TRUE(PlanArgvHas(a, "--volume", "/hf:/hf"));
  EXPECT_TRUE(PlanArgvHas(a, "--env", "CONC=8"));
  EXPECT_TRUE(PlanArgvHas(a, "--env", "RESULT_DIR=/workspace"));
  EXPECT_TRUE(PlanArgvHas(a, "--env", "INFERMARK=/usr/local/bin/infermark"));
  EXPECT_NE(std::find(a.begin(), a.end(), "--device=/dev/kfd"), a.end());
  // The image is the row's, then bash and the script inside the container.
  EXPECT_EQ(a[a.size() - 3], "vllm/vllm-openai-rocm:nightly-69715823df89b11ee684b84066390cbb9092d5c1");
  EXPECT_EQ(a[a.size() - 2], "bash");
  EXPECT_EQ(a.back(), "/infermark/scripts/fixed_seq_len/minimaxm3_fp4_mi355x_vllm.sh");
  ASSERT_EQ(plan.cleanup.size(), 4U);
  EXPECT_EQ(plan.cleanup[1], "rm");
  EXPECT_TRUE(PlanArgvHas(a, "--name", plan.cleanup[3]));
  EXPECT_FALSE(plan.client.has_value());
}

TEST(ContainerArgv, EnrootAndPodman) {
  TargetSpec t;
  t.container_engine = "enroot";
  const EnvList env = {{"TP", "8"}};
  const auto e = ContainerArgv(t, "img.sqsh", "n", "/s", "x.sh", "/r", "/bin/im", env);
  EXPECT_EQ((std::vector<std::string>(e.begin(), e.begin() + 3)),
            (std::vector<std::string>{"enroot", "start", "--rw"}));
  EXPECT_TRUE(PlanArgvHas(e, "--mount", "/r:/workspace"));
  EXPECT_TRUE(PlanArgvHas(e, "--mount", "/s:/infermark/scripts"));
  EXPECT_TRUE(PlanArgvHas(e, "--env", "TP=8"));
  EXPECT_EQ(e[e.size() - 3], "img.sqsh");
  t.container_engine = "podman";
  const auto p = ContainerArgv(t, "img", "n", "/s", "x.sh", "/r", "/bin/im", env);
  EXPECT_EQ(p[0], "podman");
  EXPECT_TRUE(PlanArgvHas(p, "--name", "n"));
}

}  // namespace
}  // namespace infermark::runner
