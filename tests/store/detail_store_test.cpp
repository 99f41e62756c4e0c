// Row attempts, point details (request timeline, logs' tails, GPU telemetry samples) and evaluation
// samples on both stores: stored and read back, idempotent on their keys, replaced whole, paged and
// filtered; a store written by the schema before them (today's main) opens, is upgraded and keeps
// its points and evaluations; and the read-only SQL an agent may run cannot write, stops at its
// time limit and cuts its rows.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/diagnostic.hpp"
#include "postgres_test_server.hpp"
#include "results/sample_points.hpp"
#include "store/read_only_sql.hpp"
#include "store/result_store.hpp"
#include "store/store_schema.hpp"
#include "store/store_url.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

std::string DetailStoreKindName(const ::testing::TestParamInfo<StoreKind>& info) {
  return info.param == StoreKind::kPostgres ? "postgres" : "sqlite";
}

RowAttempt Attempt(const std::string& stem, int n, AttemptOutcome outcome, const std::string& started,
                   FailureClass failure = FailureClass::kNone) {
  RowAttempt a;
  a.result_filename = stem;
  a.attempt = n;
  a.outcome = outcome;
  a.failure = failure;
  a.row_status = outcome == AttemptOutcome::kFailed ? "failed" : "done";
  a.reason = outcome == AttemptOutcome::kFailed ? "server not ready after 900 s (start-up timeout)" : "";
  a.runner_label = "mi355x";
  a.hw = "mi355x";
  a.executor = "local";
  a.target = "engine";
  a.host = "node-1";
  a.model = "amd/MiniMax-M3-MXFP4";
  a.framework = "vllm";
  a.precision = "fp4";
  a.isl = 1024;
  a.osl = 1024;
  a.conc = 4;
  a.started_at = started;
  a.duration_s = 12.5;
  return a;
}

class DetailStore : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) c = c == '/' ? '_' : c;
    if (GetParam() == StoreKind::kPostgres) {
      database_ = test::FreshPostgresDatabase("detail_" + name);
      if (!database_) GTEST_SKIP() << test::PostgresSkipReason();
      url_ = database_->url;
    } else {
      dir_ = fs::temp_directory_path() / ("infermark_detail_" + std::to_string(::getpid()) + "_" + name);
      fs::remove_all(dir_);
      url_ = "sqlite:" + (dir_ / "store.db").string();
    }
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::unique_ptr<ResultStore> Open(const StoreOptions& options = {}) { return OpenStoreUrl(url_, options); }

  static RunInfo Run(const std::string& key) { return RunInfo{key, "", "recipe", "host", "0.1.0", "sweep"}; }

  fs::path dir_;
  std::string url_;
  std::unique_ptr<test::PostgresDatabase> database_;
};

INSTANTIATE_TEST_SUITE_P(Stores, DetailStore, ::testing::Values(StoreKind::kSqlite, StoreKind::kPostgres),
                         DetailStoreKindName);

TEST_P(DetailStore, AttemptsAreStoredOncePerKeyAndReadBackInStartOrder) {
  auto store = Open();
  RowAttempt failed = Attempt("row_a", 1, AttemptOutcome::kFailed, "2026-12-01T10:00:00Z", FailureClass::kReadiness);
  failed.result_json = R"({"verdict": "INVALID"})";
  failed.client_log_tail = "client line\n";
  failed.server_log_tail = "server line\n";
  const IngestOutcome first = store->IngestAttempts(
      Run("sweep-1"), {Attempt("row_b", 1, AttemptOutcome::kCompleted, "2026-12-02T10:00:00Z"), failed,
                       Attempt("row_a", 2, AttemptOutcome::kRetried, "2026-12-01T11:00:00Z")});
  EXPECT_EQ(first.added, 3);
  // The same attempt again (a resumed sweep, `results ingest` of its folder) replaces, never duplicates.
  failed.reason = "server not ready after 600 s (start-up timeout)";
  const IngestOutcome again = store->IngestAttempts(Run("sweep-1"), {failed});
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.updated, 1);
  EXPECT_EQ(again.run_id, first.run_id);

  const std::vector<RowAttempt> all = store->Attempts();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].result_filename, "row_a");
  EXPECT_EQ(all[0].attempt, 1);
  EXPECT_EQ(all[1].outcome, AttemptOutcome::kRetried);
  EXPECT_EQ(all[2].outcome, AttemptOutcome::kCompleted);
  EXPECT_EQ(all[0].failure, FailureClass::kReadiness);
  EXPECT_EQ(all[0].reason, "server not ready after 600 s (start-up timeout)");
  EXPECT_EQ(all[0].run_key, "sweep-1");
  EXPECT_EQ(all[0].hw, "mi355x");
  ASSERT_TRUE(all[0].duration_s.has_value());
  EXPECT_DOUBLE_EQ(*all[0].duration_s, 12.5);
  // The list leaves the texts out; one attempt has them.
  EXPECT_TRUE(all[0].client_log_tail.empty());
  const std::optional<RowAttempt> one = store->FindAttempt(all[0].id);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->result_json, R"({"verdict": "INVALID"})");
  EXPECT_EQ(one->client_log_tail, "client line\n");
  EXPECT_EQ(one->server_log_tail, "server line\n");
  EXPECT_FALSE(store->FindAttempt(all[2].id + 1000).has_value());
}

TEST_P(DetailStore, AFailureWithoutItsClassIsRefused) {
  auto store = Open();
  EXPECT_THROW(store->IngestAttempts(Run("r"), {Attempt("x", 1, AttemptOutcome::kFailed, "2026-12-01T00:00:00Z")}),
               std::invalid_argument);
  EXPECT_THROW(store->IngestAttempts(Run("r"), {Attempt("x", 1, AttemptOutcome::kCompleted, "2026-12-01T00:00:00Z",
                                                        FailureClass::kTimeout)}),
               std::invalid_argument);
  EXPECT_TRUE(store->Attempts().empty());
}

TEST_P(DetailStore, TheAttemptsStampChangesWithEveryStoredAttempt) {
  auto store = Open();
  const std::string empty = store->AttemptsStamp();
  store->IngestAttempts(Run("r"), {Attempt("x", 1, AttemptOutcome::kCompleted, "2026-12-01T00:00:00Z")});
  const std::string one = store->AttemptsStamp();
  EXPECT_NE(one, empty);
  store->IngestAttempts(Run("r"), {Attempt("x", 2, AttemptOutcome::kCompleted, "2026-12-01T00:01:00Z")});
  EXPECT_NE(store->AttemptsStamp(), one);
}

TEST_P(DetailStore, TheCommitCounterMovesOnlyWhenAnotherConnectionCommits) {
  auto reader = Open();
  auto writer = Open();
  const std::optional<std::int64_t> before = reader->CommitCounter();
  if (GetParam() == StoreKind::kPostgres) {
    EXPECT_FALSE(before.has_value());  // PostgreSQL keeps none: readers compare what they read
    return;
  }
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(reader->CommitCounter(), before);
  (void)reader->Attempts();  // its own reads move nothing
  EXPECT_EQ(reader->CommitCounter(), before);
  writer->IngestAttempts(Run("r"), {Attempt("x", 1, AttemptOutcome::kCompleted, "2026-12-01T00:00:00Z")});
  EXPECT_NE(reader->CommitCounter(), before);
}

TEST_P(DetailStore, PointDetailsAreReplacedWholeAndReadBack) {
  auto store = Open();
  const std::vector<Point> points = sample::SampleCurve({}, {4, 16});
  store->Ingest(Run("r"), points);
  const std::string key = points[0].key.Canonical();
  PointDetails d;
  d.timeline = "{\"schema\":\"infermark.request_timeline/1\",\"columns\":[]}\n";
  d.server_log_tail = "engine ready\n";
  d.client_log_tail = "Verdict: VALID\n";
  for (int g = 0; g < 2; ++g) {
    GpuSeries s;
    s.gpu = std::to_string(g);
    s.start_unix = 1.7e9 + g;
    s.t_s = {0, 1.001, 2.002};
    s.fields.emplace_back("power_w", std::vector<std::optional<double>>{300.5 + g, std::nullopt, 310.25});
    s.fields.emplace_back("temperature_c", std::vector<std::optional<double>>{50, 51, 52});
    d.gpus.push_back(s);
  }
  ASSERT_TRUE(store->StorePointDetails(Run("r"), key, d));
  const std::int64_t id = store->Points(store->FindRun("r").id)[0].id;
  PointDetails back = store->FindPointDetails(id);
  EXPECT_EQ(back.timeline, d.timeline);
  EXPECT_EQ(back.server_log_tail, "engine ready\n");
  EXPECT_EQ(back.client_log_tail, "Verdict: VALID\n");
  ASSERT_EQ(back.gpus.size(), 2u);
  EXPECT_EQ(back.gpus[1].gpu, "1");
  EXPECT_DOUBLE_EQ(back.gpus[1].start_unix, 1.7e9 + 1);
  EXPECT_EQ(back.gpus[1].t_s, (std::vector<double>{0, 1.001, 2.002}));
  const auto* power = back.gpus[1].Field("power_w");
  ASSERT_NE(power, nullptr);
  EXPECT_EQ(*power, (std::vector<std::optional<double>>{301.5, std::nullopt, 310.25}));
  // Stored again with one GPU: the other's samples are gone.
  d.gpus.resize(1);
  d.server_log_tail.clear();
  ASSERT_TRUE(store->StorePointDetails(Run("r"), key, d));
  back = store->FindPointDetails(id);
  EXPECT_EQ(back.gpus.size(), 1u);
  EXPECT_EQ(back.server_log_tail, "");
  // Another point has none; an unknown key stores nothing.
  EXPECT_TRUE(store->FindPointDetails(id + 1).Empty());
  EXPECT_FALSE(store->StorePointDetails(Run("r"), "no such key", d));
  // The point itself, raw result included.
  const std::optional<Point> point = store->FindPoint(id);
  ASSERT_TRUE(point.has_value());
  EXPECT_EQ(point->key.Canonical(), key);
  EXPECT_EQ(point->raw_json, points[0].raw_json);
  EXPECT_FALSE(store->FindPoint(id + 100).has_value());
}

TEST_P(DetailStore, EvalSamplesArePagedAndFiltered) {
  auto store = Open();
  const Evaluation e = sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.9);
  store->IngestEvaluations(Run("r"), {e});
  std::vector<StoredEvalSample> samples;
  for (int i = 0; i < 30; ++i) {
    StoredEvalSample s;
    s.doc_id = i;
    s.question = "Question " + std::to_string(i) + (i == 7 ? " about Ducks" : "");
    s.response = "#### " + std::to_string(i);
    s.strict_answer = std::to_string(i);
    s.flexible_answer = std::to_string(i);
    s.target = "#### " + std::to_string(i % 3 == 0 ? i + 1 : i);
    s.correct = i % 3 != 0;
    s.flexible_correct = i % 3 != 0;
    samples.push_back(s);
  }
  samples[5].correct.reset();  // no value in the file: not counted correct
  ASSERT_TRUE(store->StoreEvalSamples(Run("r"), e.EvalKey(), samples));
  EXPECT_FALSE(store->StoreEvalSamples(Run("r"), "no such evaluation", samples));
  const std::int64_t id = store->Evaluations({})[0].id;
  EvalSampleQuery q;
  q.evaluation_id = id;
  q.limit = 10;
  EvalSamplePage page = store->EvalSamples(q);
  EXPECT_EQ(page.total, 30);
  EXPECT_EQ(page.wrong, 11);  // docs 0, 3, …, 27 and doc 5
  EXPECT_EQ(page.matched, 30);
  ASSERT_EQ(page.samples.size(), 10u);
  EXPECT_EQ(page.samples[0].doc_id, 0);
  EXPECT_EQ(page.samples[0].correct, false);
  EXPECT_FALSE(page.samples[5].correct.has_value());
  q.wrong_only = true;
  q.offset = 10;
  page = store->EvalSamples(q);
  EXPECT_EQ(page.matched, 11);
  ASSERT_EQ(page.samples.size(), 1u);
  EXPECT_EQ(page.samples[0].doc_id, 27);
  q = {};
  q.evaluation_id = id;
  q.text = "ducks";  // any case, anywhere
  page = store->EvalSamples(q);
  ASSERT_EQ(page.samples.size(), 1u);
  EXPECT_EQ(page.samples[0].doc_id, 7);
  q.text = "%";  // a LIKE wildcard is a character here
  EXPECT_EQ(store->EvalSamples(q).matched, 0);
  // Stored again: replaced, not added.
  samples.resize(4);
  ASSERT_TRUE(store->StoreEvalSamples(Run("r"), e.EvalKey(), samples));
  q = {};
  q.evaluation_id = id;
  EXPECT_EQ(store->EvalSamples(q).total, 4);
}

TEST_P(DetailStore, AStoreOfThePreviousSchemaOpensUpgradedWithItsData) {
  // The schema just before the details' migration is what today's main writes.
  const int before = DetailsSchemaVersion() - 1;
  ASSERT_GE(before, 8);
  {
    StoreOptions old;
    old.target_schema_version = before;
    auto store = Open(old);
    ASSERT_EQ(store->SchemaVersion(), before);
    store->Ingest(Run("old"), sample::SampleCurve({}, {1, 4}));
    store->IngestEvaluations(Run("old"), {sample::SampleEvaluation({}, 4, EvalStatus::kScored, 0.93)});
    // Without the tables: nothing to read, and writes say why.
    EXPECT_TRUE(store->Attempts().empty());
    EXPECT_EQ(store->AttemptsStamp(), "");
    try {
      store->IngestAttempts(Run("old"), {Attempt("x", 1, AttemptOutcome::kCompleted, "2026-12-01T00:00:00Z")});
      ADD_FAILURE() << "an old store took attempts";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("open it without a target version"), std::string::npos) << e.what();
    }
  }
  auto store = Open();
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  const RunSummary run = store->FindRun("old");
  EXPECT_EQ(run.points, 2);
  EXPECT_EQ(run.evaluations, 1);
  EXPECT_EQ(store->Points(run.id).size(), 2u);
  EXPECT_EQ(
      store->IngestAttempts(Run("old"), {Attempt("x", 1, AttemptOutcome::kCompleted, "2026-12-01T00:00:00Z")}).added,
      1);
  PointDetails details;
  details.timeline = "t\n";
  EXPECT_TRUE(store->StorePointDetails(Run("old"), store->Points(run.id)[0].key.Canonical(), details));
}

TEST_P(DetailStore, ReadOnlySqlReadsButNeverWrites) {
  {
    auto store = Open();
    store->Ingest(Run("r"), sample::SampleCurve({}, {1, 2, 4}));
  }
  const SqlTable table =
      RunReadOnlySql(url_, "SELECT conc, tput_per_gpu, model FROM points ORDER BY conc", 2, std::chrono::seconds(5));
  EXPECT_EQ(table.columns, (std::vector<std::string>{"conc", "tput_per_gpu", "model"}));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_TRUE(table.truncated);
  EXPECT_EQ(table.rows[0][0].get<double>(), 1);
  EXPECT_TRUE(table.rows[0][1].is_number());
  EXPECT_EQ(table.rows[0][2], "amd/MiniMax-M3-MXFP4");
  const auto refused = [&](const std::string& sql, const std::string& words) {
    try {
      RunReadOnlySql(url_, sql, 10, std::chrono::seconds(5));
      ADD_FAILURE() << sql << " ran";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << sql << ": " << e.what();
    }
  };
  refused("DELETE FROM points", "read-only");
  refused("UPDATE runs SET label = 'x'", "read-only");
  refused("SELECT 1; DELETE FROM points", GetParam() == StoreKind::kPostgres ? "failed" : "one statement");
  refused("SELECT no_such_column FROM points", GetParam() == StoreKind::kPostgres ? "failed" : "does not compile");
  // A statement that would run for ever is stopped at the limit.
  try {
    RunReadOnlySql(url_, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n", 10,
                   std::chrono::milliseconds(300));
    ADD_FAILURE() << "the endless statement returned";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("time limit of 300 ms"), std::string::npos) << e.what();
  }
  auto store = Open();
  EXPECT_EQ(store->Points(store->FindRun("r").id).size(), 3u);
}

}  // namespace
}  // namespace infermark::results
