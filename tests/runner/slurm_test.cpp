// The Slurm executor: generated job scripts (multi-node rows ask for their node count), and live
// sweeps on the one-node cluster scripts/start-slurm.sh brings up (skipped, saying why, when it
// cannot start here): rows as jobs, and an eval batch's rows as one job.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "core/file_io.hpp"
#include "core/subprocess.hpp"
#include "run_binary.hpp"
#include "runner/slurm_executor.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

SiteConfig SlurmSite(const std::string& results, int port) {
  std::vector<Diagnostic> problems;
  SiteConfig site = ReadSiteConfig(
      ParseYaml("defaults: {port: " + std::to_string(port) + ", result-dir: '" + results +
                    "', runner-name: test_00, stop-grace-s: 2}\nrunners:\n  test: {executor: slurm, script: {dir: '" +
                    test::SourcePath("tests/runner/scripts") +
                    "'}, slurm: {partition: debug, time-limit-min: 10}}\n  mi355x-disagg: {executor: slurm, engine: "
                    "{hardware: mi355x}, slurm: {gpus-per-node: 8, sbatch-args: [--account=perf]}}\n"
                    "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3}\n",
                "/tmp/site.yaml"),
      problems);
  EXPECT_TRUE(problems.empty());
  return site;
}

TEST(SlurmScript, MultiNodeRowsAskForTheirNodes) {
  const SiteConfig site = SlurmSite("/r", 9000);
  Json row = test::ScriptRow("good", 64);
  row["runner"] = "mi355x-disagg";
  row["model"] = "amd/MiniMax-M3-MXFP4";
  row["disagg"] = true;
  row.erase("tp");
  row["prefill"] = Json{{"num-worker", 1}, {"tp", 8}, {"ep", 8}, {"dp-attn", false}};
  row["decode"] = Json{{"num-worker", 2}, {"tp", 8}, {"ep", 8}, {"dp-attn", false}};
  row["conc"] = Json::array({64, 128});
  const RunnerSite& runner = *site.FindRunner("mi355x-disagg");
  EXPECT_EQ(RowNodes(test::Typed(row), runner), 3);
  RowPlan plan;
  plan.label = "mi355x-disagg";
  plan.result_filename = "rf";
  plan.result_dir = "/r";
  plan.log_dir = "/r/logs/rf";
  plan.port = 9000;
  SweepSettings settings;
  settings.plan.infermark = "/usr/bin/infermark";
  const std::string script = SlurmJobScript(plan, runner, RowNodes(test::Typed(row), runner), "/r/logs/rf/row.json",
                                            "/tmp/site.yaml", settings, SlurmSettings{});
  EXPECT_NE(script.find("#SBATCH --nodes=3\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --gres=gpu:8\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --account=perf\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --output=/r/logs/rf/slurm-%j.out\n"), std::string::npos) << script;
  EXPECT_NE(script.find("exec '/usr/bin/infermark' run --matrix '/r/logs/rf/row.json' --site '/tmp/site.yaml' "
                        "--executor local --result-dir '/r'"),
            std::string::npos)
      << script;
  EXPECT_EQ(script.find("--host-retries"), std::string::npos) << script;
  // The job's own sweep re-measures a point the host spoiled, as a local sweep would.
  settings.host_retries = 2;
  EXPECT_NE(SlurmJobScript(plan, runner, 3, "/r/logs/rf/row.json", "/tmp/site.yaml", settings, SlurmSettings{})
                .find(" --host-retries 2"),
            std::string::npos);
  EXPECT_EQ(RowNodes(test::Typed(test::ScriptRow("good", 1)), runner), 1);
  // Whole workers per node: five tp=3 workers take three 8-GPU nodes, not 15 / 8 rounded up.
  row["prefill"] = Json{{"num-worker", 3}, {"tp", 3}, {"ep", 1}, {"dp-attn", false}};
  row["decode"] = Json{{"num-worker", 2}, {"tp", 3}, {"ep", 1}, {"dp-attn", false}};
  EXPECT_EQ(RowNodes(test::Typed(row), runner), 3);
}

// Brings the one-node cluster up (root only); the reason when it cannot.
std::string StartSlurm() {
  if (geteuid() != 0) return "not root: the test cluster's daemons need root (run scripts/start-slurm.sh as root)";
  try {
    const ProcessResult r = RunCapture({"bash", test::SourcePath("scripts/start-slurm.sh")});
    if (r.exit_code != 0) return "scripts/start-slurm.sh failed: " + r.out + r.err;
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

// A site whose label `test` runs the test launcher scripts as Slurm jobs.
std::string LiveSite(const std::string& results) {
  return "defaults: {port: " + std::to_string(test::FreePort()) + ", result-dir: '" + results +
         "', runner-name: test_00, stop-grace-s: 2}\nrunners:\n  test: {executor: slurm, script: {dir: '" +
         test::SourcePath("tests/runner/scripts") + "'}, slurm: {time-limit-min: 10}}\n";
}

TEST(SlurmLive, AFourRowSweepRunsAsJobsAndAFailingJobIsReported) {
  const std::string why = StartSlurm();
  if (!why.empty()) GTEST_SKIP() << "no local Slurm cluster: " << why;
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, LiveSite(results));
  Json rows = Json::array();
  for (int c : {1, 2, 4, 8}) rows.push_back(test::ScriptRow("good", c));
  rows.push_back(test::ScriptRow("fails", 1));
  WriteFileAtomic(dir / "rows.json", rows.dump());
  const ProcessResult r = test::RunInfermark({"run", "--matrix", dir / "rows.json", "--site", site, "--no-store"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("submitted as job"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("4 run, 0 skipped (complete), 1 failed (slurm executor)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--bogus-flag"), std::string::npos) << r.out;
  for (int c : {1, 2, 4, 8}) {
    const std::string stem = "good_1k1k_fp8_vllm_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc" +
                             std::to_string(c) + "_test_00";
    EXPECT_EQ(Json::parse(ReadFile(results + "/" + stem + ".row.json"))["status"], "done") << stem;
    EXPECT_TRUE(std::filesystem::exists(results + "/" + stem + ".json")) << stem;
  }
  // Resumed: complete rows are not submitted again.
  const ProcessResult again = test::RunInfermark({"run", "--matrix", dir / "rows.json", "--site", site, "--no-store"});
  EXPECT_NE(again.out.find("4 skipped"), std::string::npos) << again.out;
}

// The eval rows of one configuration are one batch on one server, on the Slurm executor too: both
// rows go to one job, whose sweep runs the conc 8 row's point, then the conc 16 row's point and both
// evals on that row's server (tests/runner/scripts/evals_fp8_test_vllm.sh: run_eval, batched).
TEST(SlurmLive, AnEvalBatchsRowsShareOneJobAndTheirEvalsOneServer) {
  const std::string why = StartSlurm();
  if (!why.empty()) GTEST_SKIP() << "no local Slurm cluster: " << why;
  test::ScratchDir dir;
  const std::string results = dir / "results";
  const std::string site = dir / "site.yaml";
  WriteFileAtomic(site, LiveSite(results));
  Json rows = Json::array();
  for (int c : {8, 16}) {
    Json row = test::ScriptRow("evals", c);
    row["run-eval"] = true;
    rows.push_back(row);
  }
  WriteFileAtomic(dir / "rows.json", rows.dump());
  const ProcessResult r =
      test::RunInfermark({"run", "--matrix", dir / "rows.json", "--site", site, "--no-store", "--eval-limit", "40"});
  // Every 4th answer is wrong: 0.75 fails the default 0.90, and the sweep says so.
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string stem = "evals_1k1k_fp8_vllm_tp1-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc";
  std::set<std::string> jobs;
  for (const char* c : {"8", "16"}) {
    const std::string line = "submitted as job ";
    const std::size_t at = r.err.find(": " + stem + c + "_test_00");
    ASSERT_NE(at, std::string::npos) << r.err;
    const std::size_t job = r.err.rfind(line, at);
    jobs.insert(r.err.substr(job + line.size(), at - job - line.size()));
    EXPECT_TRUE(std::filesystem::exists(results + "/" + stem + c + "_test_00.json")) << "its point: " << c;
  }
  EXPECT_EQ(jobs.size(), 1u) << r.err;
  // The conc 8 row's launcher ran no eval; the conc 16 row's ran both, batched.
  const std::string seen = ReadFile(results + "/eval_env.txt");
  EXPECT_NE(seen.find("RUN_EVAL=false"), std::string::npos) << seen;
  EXPECT_NE(seen.find("EVAL_CONC=8 16"), std::string::npos) << seen;
  const std::string folder = results + "/evals/" + stem + "8x16_test_00";
  const Json meta = Json::parse(ReadFile(folder + "/meta_env.json"));
  EXPECT_EQ(meta["completed_eval_concs"], Json::array({8, 16}));
  for (const char* c : {"8", "16"}) {
    const Json status = Json::parse(ReadFile(folder + "/eval_status_conc" + std::string(c) + ".json"));
    EXPECT_EQ(status["status"], "scored") << status.dump();
    EXPECT_DOUBLE_EQ(status["score"].get<double>(), 0.75);
  }
  EXPECT_EQ(Json::parse(ReadFile(results + "/" + stem + "8_test_00.row.json"))["status"], "done");
  EXPECT_EQ(Json::parse(ReadFile(results + "/" + stem + "16_test_00.row.json"))["status"], "eval-failed");
}

}  // namespace
}  // namespace infermark::runner
