// Process supervision: launcher scripts that fail at start, hang at start-up, die mid-run or
// ignore SIGTERM are reported with a reason, and no process they started survives the row.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_io.hpp"
#include "runner/process_group.hpp"
#include "runner/row_runner.hpp"
#include "runner/site_config.hpp"
#include "runner_test_util.hpp"

namespace infermark::runner {
namespace {

struct RowRun {
  RowPlan plan;
  RowOutcome outcome;
  std::vector<pid_t> pids;
};

RowRun RunScriptRow(const test::ScratchDir& dir, const std::string& kind, double startup_timeout_s,
                    double row_timeout_s = 60) {
  const std::string site_file = dir / "site.yaml";
  WriteFileAtomic(site_file, test::ScriptSite(dir / "results", test::FreePort(), startup_timeout_s));
  const SiteConfig site = LoadSiteConfig(site_file);
  RowRun run;
  run.plan = PlanRow(test::Typed(test::ScriptRow(kind, 4)), site, {});
  RowLimits limits;
  limits.startup_timeout_s = startup_timeout_s;
  limits.row_timeout_s = row_timeout_s;
  limits.stop_grace_s = 1;
  run.outcome = RunRowLocally(run.plan, limits);
  run.pids = test::RecordedPids(dir / "results");
  return run;
}

void ExpectNoSurvivors(const RowRun& run) {
  EXPECT_FALSE(run.pids.empty()) << "the script recorded no pids";
  for (pid_t pid : run.pids) EXPECT_FALSE(test::Alive(pid)) << "pid " << pid << " survived the row";
}

TEST(Supervision, AGoodScriptIsDoneWithItsResultAndWarnings) {
  test::ScratchDir dir;
  const RowRun run = RunScriptRow(dir, "good", 60);
  EXPECT_EQ(run.outcome.status, RowStatus::kDone) << run.outcome.reason;
  EXPECT_TRUE(std::filesystem::exists(run.plan.result_path));
  // The stand-in server may also log a dropped probe connection; the KV-scale warning must be there.
  bool kv_scale = false;
  for (const auto& w : run.outcome.warnings) kv_scale = kv_scale || w.what.find("fp8 KV cache") != std::string::npos;
  EXPECT_TRUE(kv_scale) << run.outcome.warnings.size() << " warnings";
  // The script's server log moved into the row's log folder.
  EXPECT_TRUE(std::filesystem::exists(run.plan.log_dir + "/server.log"));
  ExpectNoSurvivors(run);
}

TEST(Supervision, AScriptThatFailsAtStartIsReportedWithItsOutput) {
  test::ScratchDir dir;
  const RowRun run = RunScriptRow(dir, "fails", 60);
  EXPECT_EQ(run.outcome.status, RowStatus::kFailed);
  EXPECT_NE(run.outcome.reason.find("exited with status 3"), std::string::npos) << run.outcome.reason;
  EXPECT_NE(run.outcome.reason.find("--bogus-flag"), std::string::npos) << run.outcome.reason;
  EXPECT_FALSE(std::filesystem::exists(run.plan.result_path));
  ExpectNoSurvivors(run);
}

TEST(Supervision, AScriptThatHangsAtStartUpTimesOutAndIsStopped) {
  test::ScratchDir dir;
  const RowRun run = RunScriptRow(dir, "hangs", 1.5);
  EXPECT_EQ(run.outcome.status, RowStatus::kFailed);
  EXPECT_NE(run.outcome.reason.find("start-up timeout"), std::string::npos) << run.outcome.reason;
  EXPECT_NE(run.outcome.reason.find("Loading weights"), std::string::npos) << run.outcome.reason;
  ExpectNoSurvivors(run);
}

TEST(Supervision, AServerThatDiesMidRunFailsTheRowAndStrayProcessesAreKilled) {
  test::ScratchDir dir;
  const RowRun run = RunScriptRow(dir, "dies", 60);
  EXPECT_EQ(run.outcome.status, RowStatus::kFailed);
  EXPECT_NE(run.outcome.reason.find("exited with status 1 without writing"), std::string::npos) << run.outcome.reason;
  EXPECT_NE(run.outcome.reason.find("connection refused"), std::string::npos) << run.outcome.reason;
  ExpectNoSurvivors(run);
}

TEST(Supervision, AProcessIgnoringSigtermIsKilledAfterTheGrace) {
  test::ScratchDir dir;
  const RowRun run = RunScriptRow(dir, "stubborn", 1);
  EXPECT_EQ(run.outcome.status, RowStatus::kFailed);
  ExpectNoSurvivors(run);
}

TEST(Supervision, AMissingProgramIsAnErrorNamingIt) {
  SpawnSpec spec;
  spec.argv = {"/nonexistent/infermark-server"};
  EXPECT_THROW(
      {
        try {
          ProcessGroup group(spec);
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("/nonexistent/infermark-server"), std::string::npos);
          throw;
        }
      },
      std::runtime_error);
}

TEST(Supervision, StopEndsTheWholeGroupAndReportsTheSignal) {
  test::ScratchDir dir;
  SpawnSpec spec;
  spec.argv = {"bash", test::SourcePath("tests/runner/scripts/hangs_fp8_test_vllm.sh")};
  spec.env = {{"RESULT_DIR", dir.path.string()}, {"RESULT_FILENAME", "x"}};
  spec.log_path = dir / "log";
  ProcessGroup group(spec);
  // Wait for the script to have started both of its children.
  while (test::RecordedPids(dir.path.string()).size() < 3) {
    ASSERT_FALSE(group.Poll().has_value()) << "script ended early";
    usleep(20'000);
  }
  EXPECT_TRUE(group.GroupAlive());
  const int status = group.Stop(std::chrono::seconds(5));
  EXPECT_EQ(status, 128 + SIGTERM);
  EXPECT_FALSE(group.GroupAlive());
  for (pid_t pid : test::RecordedPids(dir.path.string())) EXPECT_FALSE(test::Alive(pid)) << pid;
}

}  // namespace
}  // namespace infermark::runner
