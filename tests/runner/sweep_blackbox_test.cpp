// `infermark run` end to end with launcher scripts: failed rows recorded and the sweep goes on;
// a second run skips complete rows; a sweep killed with SIGKILL resumes without re-running
// finished rows or losing their results; Ctrl-C stops the row's processes and exits 130.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/file_io.hpp"
#include "run_binary.hpp"
#include "runner/process_group.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

namespace fs = std::filesystem;

struct SweepFixture {
  test::ScratchDir dir;
  std::string results = dir / "results";
  std::string site = dir / "site.yaml";
  std::string matrix = dir / "rows.json";

  explicit SweepFixture(const std::vector<Json>& rows) {
    WriteFileAtomic(site, test::ScriptSite(results, test::FreePort()));
    Json list = Json::array();
    for (const auto& r : rows) list.push_back(r);
    WriteFileAtomic(matrix, list.dump());
  }
  [[nodiscard]] std::vector<std::string> Args() const {
    return {"run", "--matrix", matrix, "--site", site, "--no-store"};
  }
  [[nodiscard]] std::map<std::string, int> Runs() const {
    std::map<std::string, int> runs;
    std::ifstream in(results + "/runs.log");
    for (std::string line; std::getline(in, line);) ++runs[line];
    return runs;
  }
  [[nodiscard]] int StatesWith(const std::string& status) const {
    int n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(results, ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() > 9 && name.compare(name.size() - 9, 9, ".row.json") == 0) {
        try {
          if (Json::parse(ReadFile(e.path().string()))["status"] == status) ++n;
        } catch (const std::exception&) {
        }
      }
    }
    return n;
  }
  void ExpectNoSurvivors() const {
    for (pid_t pid : test::RecordedPids(results)) EXPECT_FALSE(test::Alive(pid)) << "pid " << pid << " survived";
  }
};

std::vector<Json> GoodRows(int n) {
  std::vector<Json> rows;
  for (int i = 0; i < n; ++i) rows.push_back(test::ScriptRow("good", 1 << i));
  return rows;
}

// A child `infermark` whose signals the test controls (its own process group).
ProcessGroup StartInfermark(const SweepFixture& f, const std::string& row_sleep) {
  SpawnSpec spec;
  spec.argv = f.Args();
  spec.argv.insert(spec.argv.begin(), test::Binary());
  spec.env = {{"ROW_SLEEP", row_sleep}};
  spec.log_path = f.dir / "infermark.log";
  return ProcessGroup(spec);
}

TEST(SweepBlackBox, AFailedRowIsRecordedAndTheSweepGoesOn) {
  std::vector<Json> rows = GoodRows(2);
  rows.insert(rows.begin() + 1, test::ScriptRow("fails", 2));
  SweepFixture f(rows);
  const ProcessResult r = test::RunInfermark(f.Args());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--bogus-flag"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: fp8 KV cache without calibrated scales"), std::string::npos) << r.out;
  EXPECT_EQ(f.StatesWith("done"), 2);
  EXPECT_EQ(f.StatesWith("failed"), 1);
  EXPECT_EQ(f.Runs().size(), 2U);

  // Again: the two complete rows are skipped, the failed one runs again.
  const ProcessResult again = test::RunInfermark(f.Args());
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  EXPECT_NE(again.out.find("2 skipped"), std::string::npos) << again.out;
  for (const auto& [name, count] : f.Runs()) EXPECT_EQ(count, 1) << name;
  f.ExpectNoSurvivors();
}

TEST(SweepBlackBox, ARowTheHostSpoiledRunsAgainAndItsSpoiledAttemptIsKept) {
  // Conc 1: INVALID for the host's reasons once, then VALID. Conc 2: INVALID with a reason of
  // the server's among the host's, which no repetition may hide.
  SweepFixture f({test::ScriptRow("hostnoise", 1), test::ScriptRow("hostnoise", 2)});
  std::vector<std::string> args = f.Args();
  args.insert(args.end(), {"--host-retries", "2"});
  const ProcessResult r = test::RunInfermark(args);
  EXPECT_NE(r.err.find("invalid on attempt 1"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(f.StatesWith("done"), 1) << r.out << r.err;
  EXPECT_EQ(f.StatesWith("invalid"), 1) << r.out << r.err;
  std::map<std::string, int> runs = f.Runs();
  ASSERT_EQ(runs.size(), 2U);
  for (const auto& [name, count] : runs) {
    const bool host = name.find("conc1") != std::string::npos;
    EXPECT_EQ(count, host ? 2 : 1) << name;
    const Json state = Json::parse(ReadFile(f.results + "/" + name + ".row.json"));
    if (!host) {
      EXPECT_FALSE(state.contains("earlier_attempts")) << state.dump();
      continue;
    }
    ASSERT_EQ(state["earlier_attempts"].size(), 1U) << state.dump();
    const std::string earlier = state["earlier_attempts"][0];
    EXPECT_NE(earlier.find("launcher exit"), std::string::npos) << earlier;
    const std::string kept =
        earlier.substr(earlier.find("kept as ") + 8, earlier.size() - earlier.find("kept as ") - 9);
    EXPECT_EQ(Json::parse(ReadFile(kept))["verdict"], "INVALID") << kept;
    EXPECT_EQ(Json::parse(ReadFile(f.results + "/" + name + ".json"))["verdict"], "VALID");
  }

  // Without --host-retries nothing runs twice.
  SweepFixture once(std::vector<Json>{test::ScriptRow("hostnoise", 1)});
  const ProcessResult plain = test::RunInfermark(once.Args());
  EXPECT_EQ(once.StatesWith("invalid"), 1) << plain.out << plain.err;
  for (const auto& [name, count] : once.Runs()) EXPECT_EQ(count, 1) << name;
  f.ExpectNoSurvivors();
}

TEST(SweepBlackBox, ASweepKilledWithSigkillResumesWithoutRerunningFinishedRows) {
  SweepFixture f(GoodRows(4));
  {
    ProcessGroup sweep = StartInfermark(f, "1");
    // Wait for two finished rows, then kill the sweep itself (not its row's processes).
    while (f.StatesWith("done") < 2) {
      ASSERT_FALSE(sweep.Poll().has_value()) << ReadFile(f.dir / "infermark.log");
      usleep(50'000);
    }
    kill(sweep.pid(), SIGKILL);
    sweep.WaitFor(std::chrono::seconds(30));
    // The destructor would stop the group; leave the row's orphans for the resumed sweep to end.
    ASSERT_EQ(sweep.Poll(), 128 + SIGKILL);
  }
  std::map<std::string, struct stat> finished;
  for (const auto& e : fs::directory_iterator(f.results)) {
    const std::string p = e.path().string();
    if (p.size() > 9 && p.compare(p.size() - 9, 9, ".row.json") == 0) {
      const std::string result = p.substr(0, p.size() - 9) + ".json";
      struct stat st {};
      ASSERT_EQ(stat(result.c_str(), &st), 0) << result;
      finished[result] = st;
    }
  }
  ASSERT_GE(finished.size(), 2U);
  const auto runs_before = f.Runs();

  const ProcessResult r = test::RunInfermark(f.Args());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(f.StatesWith("done"), 4) << r.out;
  // Finished rows kept their result files (same inode and modification time) and ran once.
  for (const auto& [path, st] : finished) {
    struct stat now {};
    ASSERT_EQ(stat(path.c_str(), &now), 0);
    EXPECT_EQ(now.st_ino, st.st_ino) << path;
    EXPECT_EQ(now.st_mtim.tv_nsec, st.st_mtim.tv_nsec) << path;
  }
  const auto runs = f.Runs();
  EXPECT_EQ(runs.size(), 4U);
  for (const auto& [name, count] : runs) {
    const bool was_running = runs_before.count(name) != 0 && count == 2;
    EXPECT_TRUE(count == 1 || was_running) << name << " ran " << count << " times";
  }
  f.ExpectNoSurvivors();
}

TEST(SweepBlackBox, CtrlCStopsTheRowsProcessesAndExits130) {
  SweepFixture f(GoodRows(2));
  ProcessGroup sweep = StartInfermark(f, "600");
  while (f.Runs().empty()) {
    ASSERT_FALSE(sweep.Poll().has_value()) << ReadFile(f.dir / "infermark.log");
    usleep(50'000);
  }
  kill(sweep.pid(), SIGINT);
  const auto status = sweep.WaitFor(std::chrono::seconds(60));
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 130) << ReadFile(f.dir / "infermark.log");
  EXPECT_EQ(f.StatesWith("interrupted"), 1);
  EXPECT_NE(ReadFile(f.dir / "infermark.log").find("resume"), std::string::npos) << ReadFile(f.dir / "infermark.log");
  f.ExpectNoSurvivors();
}

TEST(SweepBlackBox, BadInputIsExitTwoWithOneClearMessage) {
  SweepFixture f(GoodRows(1));
  WriteFileAtomic(f.site, "runners:\n  test: {script: {dir: /x}, colour: red}\n");
  const ProcessResult r = test::RunInfermark(f.Args());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("site.yaml:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("runners.test.colour"), std::string::npos) << r.err;

  WriteFileAtomic(f.site, "runners:\n  other: {script: {dir: /x}}\n");
  const ProcessResult r2 = test::RunInfermark(f.Args());
  EXPECT_EQ(r2.exit_code, 2);
  EXPECT_NE(r2.err.find("runner label 'test'"), std::string::npos) << r2.err;
}

TEST(SweepBlackBox, DryRunPrintsThePlanOfTheFoundingRecipe) {
  const ProcessResult r =
      test::RunInfermark({"sweep", "minimaxm3-fp4-mi355x-vllm", "--site", test::SourcePath("infermark.yaml"),
                          "--dry-run", "--seq-lens", "1k1k", "--conc", "4", "--tp", "8", "--runner-name", "x_00"},
                         test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("engine serve --model minimax-m3 --hardware mi355x --tp 8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bench serve --model amd/MiniMax-M3-MXFP4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("_conc4_x_00"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace infermark::runner
