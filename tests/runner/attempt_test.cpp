// Every attempt at a row, as the store's reliability history keeps it: the failure class read from
// the runner's own reasons; a sweep of launcher scripts storing a VALID row, a row that fails to
// start, one that is never ready and one the host spoiled and that ran again (its spoiled result
// and logs kept with the attempt); the row states listing the same attempts, so that `results
// ingest` of the folder stores them again as the same rows.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "run_binary.hpp"
#include "runner/attempt_record.hpp"
#include "runner_test_util.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"

namespace infermark::runner {
namespace {

using results::AttemptOutcome;
using results::FailureClass;

TEST(Attempts, FailureClassesFollowTheRunnersOwnReasons) {
  struct Case {
    RowStatus status;
    const char* reason;
    bool ready;
    FailureClass expected;
  };
  const Case cases[] = {
      {RowStatus::kFailed, "server not ready after 900 s (start-up timeout); log ends: Loading", false,
       FailureClass::kReadiness},
      {RowStatus::kFailed, "server exited with status 1; log ends: error: unknown flag", false, FailureClass::kStartup},
      {RowStatus::kFailed, "server was killed by signal 9; log ends: oom", false, FailureClass::kKilled},
      {RowStatus::kFailed, "launcher exited with status 3 before the server was ready; log ends: x", false,
       FailureClass::kStartup},
      {RowStatus::kFailed, "cannot start /bin/nope: No such file or directory", false, FailureClass::kStartup},
      {RowStatus::kFailed, "client exited with status 2 without a result; log ends: bad flag", true,
       FailureClass::kClientError},
      {RowStatus::kFailed, "client was killed by signal 9 without a result", true, FailureClass::kKilled},
      {RowStatus::kFailed, "launcher exited with status 1 without writing r.json; log ends: refused", true,
       FailureClass::kClientError},
      {RowStatus::kFailed, "server exited with status 1 during the load; log ends: panic", true,
       FailureClass::kServerExit},
      {RowStatus::kFailed, "decode worker 0 on n2 was killed by signal 9 during the load", true, FailureClass::kKilled},
      {RowStatus::kFailed, "row timeout: load still running after 7200 s", true, FailureClass::kTimeout},
      {RowStatus::kFailed, "slurm job 12 ended TIMEOUT without a row state", false, FailureClass::kTimeout},
      {RowStatus::kFailed, "slurm job 12 ended CANCELLED without a row state", false, FailureClass::kKilled},
      {RowStatus::kFailed, "sbatch failed: invalid partition", false, FailureClass::kStartup},
      {RowStatus::kFailed, "storing the result failed: disk full; run judged INVALID", true, FailureClass::kStore},
      {RowStatus::kFailed, "decode worker 0 on n2 exited with status 1 before the deployment was ready; log ends: x",
       false, FailureClass::kStartup},
      {RowStatus::kFailed, "something nobody foresaw", true, FailureClass::kClientError},
      {RowStatus::kFailed, "something nobody foresaw", false, FailureClass::kStartup},
      {RowStatus::kInterrupted, "interrupted by signal 2", true, FailureClass::kKilled},
      {RowStatus::kInvalid, "run judged INVALID by the load generator: client saturated", true, FailureClass::kNone},
      {RowStatus::kDone, "", true, FailureClass::kNone},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ClassifyFailure(c.status, c.reason, c.ready), c.expected) << c.reason;
  }
}

// A sweep of launcher scripts with a results store: rows that go well, fail, never get ready and
// are spoiled by the host once (`stored` writes a whole client result the store takes).
struct AttemptSweep {
  test::ScratchDir dir;
  std::string results = dir / "results";
  std::string site = dir / "site.yaml";
  std::string matrix = dir / "rows.json";
  std::string db = dir / "store.db";

  explicit AttemptSweep(const std::vector<Json>& rows) {
    WriteFileAtomic(site, test::ScriptSite(results, test::FreePort(), 3));
    Json list = Json::array();
    for (const auto& r : rows) list.push_back(r);
    WriteFileAtomic(matrix, list.dump());
  }
};

std::map<std::string, std::vector<results::RowAttempt>> ByRow(const std::vector<results::RowAttempt>& attempts) {
  std::map<std::string, std::vector<results::RowAttempt>> rows;
  for (const auto& a : attempts) {
    rows[a.result_filename.substr(0, a.result_filename.find('_')) + "/" + std::to_string(a.conc)].push_back(a);
  }
  return rows;
}

TEST(Attempts, ASweepStoresEveryAttemptAndItsRowStatesListThem) {
  AttemptSweep s({test::ScriptRow("stored", 2), test::ScriptRow("fails", 4), test::ScriptRow("hangs", 8),
                  test::ScriptRow("stored", 1)});
  const ProcessResult r =
      test::RunInfermark({"run", "--matrix", s.matrix, "--site", s.site, "--database", s.db, "--host-retries", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto store = results::OpenStoreUrl(s.db);
  const std::vector<results::RowAttempt> attempts = store->Attempts();
  ASSERT_EQ(attempts.size(), 5u) << r.out << r.err;
  const auto rows = ByRow(attempts);
  ASSERT_EQ(rows.size(), 4u);

  const results::RowAttempt& good = rows.at("stored/2").at(0);
  EXPECT_EQ(good.outcome, AttemptOutcome::kCompleted);
  EXPECT_EQ(good.failure, FailureClass::kNone);
  EXPECT_EQ(good.runner_label, "test");
  EXPECT_EQ(good.hw, "test");
  EXPECT_EQ(good.executor, "local");
  EXPECT_EQ(good.target, "script");
  EXPECT_EQ(good.host, "test_00");
  EXPECT_EQ(good.conc, 2);
  EXPECT_EQ(good.row_status, "done");
  ASSERT_TRUE(good.duration_s.has_value());
  EXPECT_GT(*good.duration_s, 0);

  const results::RowAttempt& fails = rows.at("fails/4").at(0);
  EXPECT_EQ(fails.outcome, AttemptOutcome::kFailed);
  EXPECT_EQ(fails.failure, FailureClass::kStartup);
  const std::optional<results::RowAttempt> fails_full = store->FindAttempt(fails.id);
  ASSERT_TRUE(fails_full.has_value());
  EXPECT_NE(fails_full->server_log_tail.find("--bogus-flag"), std::string::npos) << fails_full->server_log_tail;

  const results::RowAttempt& hangs = rows.at("hangs/8").at(0);
  EXPECT_EQ(hangs.outcome, AttemptOutcome::kFailed);
  EXPECT_EQ(hangs.failure, FailureClass::kReadiness) << hangs.reason;

  const std::vector<results::RowAttempt>& noise = rows.at("stored/1");
  ASSERT_EQ(noise.size(), 2u);
  EXPECT_EQ(noise[0].attempt, 1);
  EXPECT_EQ(noise[0].outcome, AttemptOutcome::kRetried);
  EXPECT_NE(noise[0].reason.find("after writing its result"), std::string::npos) << noise[0].reason;
  EXPECT_EQ(noise[1].attempt, 2);
  EXPECT_EQ(noise[1].outcome, AttemptOutcome::kCompleted);
  EXPECT_LE(noise[0].started_at, noise[1].started_at);
  // The spoiled attempt keeps its INVALID result with it.
  const std::optional<results::RowAttempt> spoiled = store->FindAttempt(noise[0].id);
  ASSERT_TRUE(spoiled.has_value());
  EXPECT_EQ(Json::parse(spoiled->result_json)["verdict"], "INVALID");

  // The row states list the same attempts: ingesting the folder into another store gives them again,
  // and into this one changes nothing but their texts.
  const std::vector<results::RowAttempt> from_states = AttemptsFromRowStates({s.results});
  ASSERT_EQ(from_states.size(), attempts.size());
  std::map<std::string, const results::RowAttempt*> by_key;
  for (const auto& a : attempts) by_key[a.AttemptKey()] = &a;
  for (const auto& a : from_states) {
    ASSERT_TRUE(by_key.count(a.AttemptKey())) << a.AttemptKey();
    EXPECT_EQ(a.outcome, by_key[a.AttemptKey()]->outcome) << a.AttemptKey();
    EXPECT_EQ(a.failure, by_key[a.AttemptKey()]->failure) << a.AttemptKey();
  }
  const std::string run_key = store->ListRuns().at(0).info.run_key;
  store.reset();
  const std::string other = s.dir / "other.db";
  const ProcessResult ingest = test::RunInfermark({"results", "ingest", "--db", other, "--run", "copied", s.results});
  EXPECT_EQ(ingest.exit_code, 0) << ingest.out << ingest.err;
  EXPECT_NE(ingest.out.find("5 added, 0 updated (5 row attempt(s))"), std::string::npos) << ingest.out;
  auto copy = results::OpenStoreUrl(other);
  const auto copied = ByRow(copy->Attempts());
  EXPECT_EQ(copied.at("stored/1").size(), 2u);
  EXPECT_EQ(copied.at("hangs/8").at(0).failure, FailureClass::kReadiness);
  const std::optional<results::RowAttempt> kept = copy->FindAttempt(copied.at("stored/1").at(0).id);
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(Json::parse(kept->result_json)["verdict"], "INVALID");
  const ProcessResult again = test::RunInfermark({"results", "ingest", "--db", s.db, "--run", run_key, s.results});
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("0 added, 5 updated"), std::string::npos) << again.out;
  EXPECT_EQ(results::OpenStoreUrl(s.db)->Attempts().size(), 5u);
}

TEST(Attempts, ARowOnTheBuiltinEngineKeepsItsTimelineLogsAndTelemetryWithItsPoint) {
  // The scripted NVML (two GPUs) stands in for a GPU: the runner samples it for the row.
  setenv("INFERMARK_NVML_LIBRARY", INFERMARK_FAKE_NVML, 1);
  test::ScratchDir dir;
  const std::string db = dir / "store.db";
  const ProcessResult r = test::RunInfermark({"sweep",
                                              "minimaxm3-fp4-mi355x-vllm",
                                              "--site",
                                              test::SourcePath("infermark.yaml"),
                                              "--seq-lens",
                                              "1k1k",
                                              "--tp",
                                              "8",
                                              "--conc",
                                              "2",
                                              "--time-scale",
                                              "200",
                                              "--prompts-per-conc",
                                              "2",
                                              "--warmups-per-conc",
                                              "1",
                                              "--result-dir",
                                              dir / "results",
                                              "--database",
                                              db,
                                              "--port",
                                              std::to_string(test::FreePort()),
                                              "--gpu-telemetry"},
                                             test::SourcePath(""));
  unsetenv("INFERMARK_NVML_LIBRARY");
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  auto store = results::OpenStoreUrl(db);
  const auto points = store->Points(store->ListRuns().at(0).id);
  ASSERT_EQ(points.size(), 1u);
  const results::PointDetails d = store->FindPointDetails(points[0].id);
  // The client's timeline: its 4 requests (2 per unit of concurrency).
  const Json header = Json::parse(d.timeline.substr(0, d.timeline.find('\n')));
  EXPECT_EQ(header["schema"], "infermark.request_timeline/1");
  EXPECT_EQ(header["requests"], 4);
  EXPECT_NE(d.client_log_tail.find("Serving Benchmark Result"), std::string::npos) << d.client_log_tail;
  EXPECT_FALSE(d.server_log_tail.empty());
  ASSERT_EQ(d.gpus.size(), 2u);
  EXPECT_EQ(d.gpus[1].gpu, "1");
  EXPECT_GT(d.gpus[0].t_s.size(), 1u);
  ASSERT_NE(d.gpus[0].Field("power_w"), nullptr);
  EXPECT_GT(d.gpus[0].Field("power_w")->front().value_or(0), 250);  // the scripted GPU draws 300 W and more
  const std::vector<results::RowAttempt> attempts = store->Attempts();
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].target, "engine");
  EXPECT_EQ(attempts[0].hw, "mi355x");
}

TEST(Attempts, AStateWrittenBeforeStatesListedAttemptsGivesItsEnd) {
  test::ScratchDir dir;
  const std::string state = dir / "row_x.row.json";
  Json row = {{"runner", "cluster:mi355x-local"},
              {"model", "m"},
              {"framework", "vllm"},
              {"precision", "fp4"},
              {"isl", 1024},
              {"osl", 1024},
              {"conc", 8},
              {"exp-name", "m_1k1k"}};
  const Json written = {{"status", "failed"},
                        {"reason", "server not ready after 60 s (start-up timeout)"},
                        {"result_filename", "row_x"},
                        {"target", "engine"},
                        {"executor", "local"},
                        {"finished_at", "2026-12-01T10:01:40Z"},
                        {"seconds", 100},
                        {"ready_seconds", 0},
                        {"row", row}};
  WriteFileAtomic(state, written.dump());
  const std::vector<results::RowAttempt> a = AttemptsFromRowState(state);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].outcome, AttemptOutcome::kFailed);
  EXPECT_EQ(a[0].failure, FailureClass::kReadiness);
  EXPECT_EQ(a[0].started_at, "2026-12-01T10:00:00Z");
  EXPECT_EQ(a[0].hw, "mi355x");
  EXPECT_EQ(a[0].runner_label, "cluster:mi355x-local");
  EXPECT_EQ(a[0].conc, 8);
  EXPECT_EQ(a[0].config_key, "m_1k1k");
  WriteFileAtomic(dir / "broken.row.json", "[]");
  EXPECT_THROW(AttemptsFromRowState(dir / "broken.row.json"), InputError);
}

}  // namespace
}  // namespace infermark::runner
