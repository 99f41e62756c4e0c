// The store suite run against every store kind, so that SQLite and PostgreSQL behave alike:
// idempotent ingest and replacement, run lookup, points in order, every point at once, agentic
// points, schema versions, forward migrations, refusal of a store written by a newer infermark,
// several processes ingesting at once, and predicted points' band columns. The PostgreSQL cases
// run on the test server (scripts/pg-test-server.sh, started by ctest) and skip, saying why, where
// there is none.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "postgres_test_server.hpp"
#include "results/repeat_record.hpp"
#include "results/result_files.hpp"
#include "results/sample_points.hpp"
#include "store/ingest.hpp"
#include "store/postgres_db.hpp"
#include "store/result_store.hpp"
#include "store/store_inspection.hpp"
#include "store/store_schema.hpp"
#include "store/store_url.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

std::string KindName(const ::testing::TestParamInfo<StoreKind>& info) {
  return info.param == StoreKind::kPostgres ? "postgres" : "sqlite";
}

// The schema version whose migration adds the band columns, from the migration list.
int BandColumnsVersion() {
  const auto& migrations = StoreMigrations();
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].find("band_scope") != std::string_view::npos) return static_cast<int>(i) + 1;
  }
  return 0;
}

// `point` predicted, with bands of ±10 % on throughput and interactivity, ±20 % on latencies.
Point WithBands(Point point) {
  point.provenance.kind = PointKind::kPredicted;
  return sample::WithPredictionBand(std::move(point));
}

class StoreSuite : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) c = c == '/' ? '_' : c;
    if (GetParam() == StoreKind::kPostgres) {
      database_ = test::FreshPostgresDatabase(name);
      if (!database_) GTEST_SKIP() << test::PostgresSkipReason();
      url_ = database_->url;
    } else {
      dir_ = fs::temp_directory_path() / ("infermark_suite_" + std::to_string(::getpid()) + "_" + name);
      fs::remove_all(dir_);
      url_ = "sqlite:" + (dir_ / "store.db").string();
    }
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::unique_ptr<ResultStore> Open(const StoreOptions& options = {}) { return OpenStoreUrl(url_, options); }

  // Marks the store as written by an infermark whose schema is at `version`.
  void SetStoredVersion(int version) {
    if (GetParam() == StoreKind::kPostgres) {
      PgConnection db(url_);
      db.Exec("INSERT INTO schema_migrations (version) VALUES (" + std::to_string(version) + ")");
      return;
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(ParseStoreUrl(url_).location.c_str(), &db), SQLITE_OK);
    const std::string sql = "UPDATE schema_version SET version = " + std::to_string(version);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }

  // The band columns of every point, by concurrency: scope, then the six bands ("NULL" or the
  // number as text).
  std::vector<std::vector<std::string>> BandColumns() {
    const std::string sql =
        "SELECT conc, band_scope, tput_per_gpu_band_p10, tput_per_gpu_band_p90, median_intvty_band_p10, "
        "median_intvty_band_p90, median_e2el_band_p10, median_e2el_band_p90 FROM points ORDER BY conc";
    std::vector<std::vector<std::string>> rows;
    if (GetParam() == StoreKind::kPostgres) {
      PgConnection db(url_);
      const PgResult r = db.Query(sql);
      for (int i = 0; i < r.Rows(); ++i) {
        std::vector<std::string> row;
        for (int c = 0; c < 8; ++c) row.push_back(r.IsNull(i, c) ? "NULL" : r.Text(i, c));
        rows.push_back(std::move(row));
      }
    } else {
      rows = inspect::Query(ParseStoreUrl(url_).location, sql);
    }
    return rows;
  }

  static RunInfo Run(const std::string& key) {
    return RunInfo{key, "", "minimaxm3-fp4-mi355x-vllm", "h", "0.1.0", "test"};
  }

  fs::path dir_;
  std::unique_ptr<test::PostgresDatabase> database_;
  std::string url_;
};

TEST_P(StoreSuite, IngestIsIdempotentOnNaturalKeys) {
  const auto points = sample::SampleCurve({}, {1, 4, 16, 64});
  auto store = Open();
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  const IngestOutcome first = store->Ingest(Run("sweep-a"), points);
  EXPECT_EQ(first.added, 4);
  const auto stored = store->Points(first.run_id);
  ASSERT_EQ(stored.size(), 4u);

  const IngestOutcome again = store->Ingest(Run("sweep-a"), points);
  EXPECT_EQ(again.run_id, first.run_id);
  EXPECT_EQ(again.added, 0);
  EXPECT_EQ(again.updated, 0);
  EXPECT_EQ(again.unchanged, 4);
  const auto after = store->Points(first.run_id);
  ASSERT_EQ(after.size(), 4u);
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].id, stored[i].id);
    EXPECT_EQ(after[i].ingested_at, stored[i].ingested_at);
    EXPECT_EQ(after[i].agg, stored[i].agg);
    EXPECT_EQ(after[i].raw_json, points[i].raw_json);
  }
  EXPECT_EQ(store->ListRuns().size(), 1u);

  // The same key with another result replaces it (keeping its id and first ingest time); a new
  // run keeps its own copy.
  auto changed = points;
  changed[0].agg["tput_per_gpu"] = 1.5;
  changed[0].raw_json = "{\"changed\": true}";
  changed[0].raw_sha256.clear();
  const IngestOutcome update = store->Ingest(Run("sweep-a"), changed);
  EXPECT_EQ(update.added, 0);
  EXPECT_EQ(update.updated, 1);
  EXPECT_EQ(update.unchanged, 3);
  const Point replaced = store->Points(first.run_id).at(0);
  EXPECT_EQ(replaced.id, stored[0].id);
  EXPECT_EQ(replaced.ingested_at, stored[0].ingested_at);
  EXPECT_EQ(replaced.agg["tput_per_gpu"], 1.5);
  EXPECT_EQ(replaced.raw_json, "{\"changed\": true}");
  // A changed time scale or kind alone is a change too.
  auto rescaled = changed;
  rescaled[1].provenance.time_scale = 2;
  EXPECT_EQ(store->Ingest(Run("sweep-a"), rescaled).updated, 1);
  EXPECT_EQ(store->Ingest(Run("sweep-b"), points).added, 4);
  const auto runs = store->ListRuns();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].points, 4);
  EXPECT_EQ(runs[1].points, 4);
  EXPECT_EQ(runs[0].max_time_scale, 2);
}

TEST_P(StoreSuite, OneKeyTwiceInOneIngestIsReplacedInOrder) {
  auto points = sample::SampleCurve({}, {8, 8});
  points[1].agg["tput_per_gpu"] = 7.0;
  points[1].raw_json = "{\"second\": true}";
  auto store = Open();
  const IngestOutcome outcome = store->Ingest(Run("dup"), points);
  EXPECT_EQ(outcome.added, 1);
  EXPECT_EQ(outcome.updated, 1);
  EXPECT_EQ(outcome.unchanged, 0);
  const auto stored = store->Points(outcome.run_id);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].agg["tput_per_gpu"], 7.0);
}

TEST_P(StoreSuite, ProvenanceRoundTrips) {
  sample::SampleSpec spec;
  spec.kind = PointKind::kPredicted;
  spec.time_scale = 20;
  auto points = sample::SampleCurve(spec, {8});
  points[0].provenance.matrix_row = Json::parse(R"({"runner":"mi355x","tp":8,"conc":8})");
  points[0].provenance.started_at = "2026-12-02T10:00:00Z";
  points[0].provenance.metrics_version = "1";
  points[0].provenance.git_commit = "abc123";
  points[0].agg["odd_number"] = 0.1 + 0.2;
  points[0].agg["power_valid"] = 0;
  points[0].provenance.verdict = "INVALID: client saturated: p99 event-loop lag 3.4 ms, over 1.0 ms; only 3 requests";
  points[0].provenance.power_invalid_reasons = {"telemetry_file_missing", "invalid_expected_gpu_count"};
  auto store = Open();
  const auto outcome = store->Ingest(Run("p"), points);
  const Point back = store->Points(outcome.run_id).at(0);
  EXPECT_EQ(back.provenance.kind, PointKind::kPredicted);
  EXPECT_EQ(back.provenance.time_scale, 20);
  EXPECT_EQ(back.provenance.matrix_row["tp"], 8);
  EXPECT_EQ(back.provenance.config_key, "minimaxm3-fp4-mi355x-vllm");
  EXPECT_EQ(back.provenance.engine_flags, "--tp 8");
  EXPECT_EQ(back.provenance.host, "testhost");
  EXPECT_EQ(back.provenance.started_at, "2026-12-02T10:00:00Z");
  EXPECT_EQ(back.provenance.metrics_version, "1");
  EXPECT_EQ(back.provenance.git_commit, "abc123");
  EXPECT_EQ(back.provenance.verdict, points[0].provenance.verdict);
  EXPECT_EQ(back.provenance.power_invalid_reasons, points[0].provenance.power_invalid_reasons);
  EXPECT_EQ(back.raw_json, points[0].raw_json);
  EXPECT_EQ(back.agg, points[0].agg);
  EXPECT_EQ(back.key.Canonical(), points[0].key.Canonical());
  EXPECT_EQ(back.run_key, "p");
  EXPECT_EQ(back.run_id, outcome.run_id);
  EXPECT_DOUBLE_EQ(DeScaled(back).tput_per_gpu, points[0].agg["tput_per_gpu"].get<double>() / 20);
  const auto runs = store->ListRuns();
  EXPECT_EQ(runs.at(0).predicted_points, 1);
  EXPECT_EQ(runs.at(0).max_time_scale, 20);
  EXPECT_EQ(runs.at(0).info.recipe, "minimaxm3-fp4-mi355x-vllm");
  EXPECT_EQ(runs.at(0).info.label, "p");
}

TEST_P(StoreSuite, FindRunByIdKeyPrefixLabelAndLatest) {
  auto store = Open();
  store->Ingest(RunInfo{"sweep-20261201-aaaa", "nightly", "", "", "", ""}, sample::SampleCurve({}, {1}));
  store->Ingest(RunInfo{"sweep-20261202-bbbb", "nightly-2", "", "", "", ""}, sample::SampleCurve({}, {1}));
  EXPECT_EQ(store->FindRun("1").info.run_key, "sweep-20261201-aaaa");
  EXPECT_EQ(store->FindRun("sweep-20261202-bbbb").id, 2);
  EXPECT_EQ(store->FindRun("sweep-20261201").id, 1);
  EXPECT_EQ(store->FindRun("nightly").id, 1);
  EXPECT_EQ(store->FindRun("latest").id, 2);
  EXPECT_THROW(store->FindRun("sweep-"), InputError);  // ambiguous
  EXPECT_THROW(store->FindRun("nope"), InputError);
}

TEST_P(StoreSuite, AllPointsReadsEveryRunInOneGo) {
  auto store = Open();
  sample::SampleSpec other;
  other.hw = "b200";
  const auto a = store->Ingest(Run("sweep-a"), sample::SampleCurve({}, {16, 1, 4}));
  const auto b = store->Ingest(Run("sweep-b"), sample::SampleCurve(other, {2, 8}));
  const std::vector<Point> all = store->AllPoints();
  ASSERT_EQ(all.size(), 5u);
  // Run by run, each as Points orders it, with the run's id and key; no raw result.
  const auto first = store->Points(a.run_id);
  const auto second = store->Points(b.run_id);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Point& expected = i < 3 ? first[i] : second[i - 3];
    EXPECT_EQ(all[i].id, expected.id);
    EXPECT_EQ(all[i].run_id, i < 3 ? a.run_id : b.run_id);
    EXPECT_EQ(expected.run_id, all[i].run_id);
    EXPECT_EQ(all[i].run_key, i < 3 ? "sweep-a" : "sweep-b");
    EXPECT_EQ(all[i].key.Canonical(), expected.key.Canonical());
    EXPECT_EQ(all[i].agg, expected.agg);
    EXPECT_EQ(all[i].raw_sha256, expected.raw_sha256);
    EXPECT_EQ(all[i].provenance.engine_flags, expected.provenance.engine_flags);
    EXPECT_TRUE(all[i].raw_json.empty());
    EXPECT_FALSE(expected.raw_json.empty());
  }
  EXPECT_EQ(all[0].key.conc, 1);
  EXPECT_EQ(all[2].key.conc, 16);
  EXPECT_EQ(all[3].key.hw, "b200");
  EXPECT_TRUE(Open()->AllPoints().size() == 5u);
}

// Agentic points (no sequence lengths) beside fixed-length ones: keys, records and order alike.
TEST_P(StoreSuite, AgenticAndFixedLengthPointsRoundTrip) {
  auto points = ReadResultFiles({infermark::test::Fixture("agentic-aggregates")}, ReadOptions{});
  ASSERT_EQ(points.size(), 8u);
  const auto fixed = sample::SampleCurve({}, {4, 2});
  points.insert(points.end(), fixed.begin(), fixed.end());
  auto store = Open();
  const IngestOutcome outcome = store->Ingest(Run("mixed"), points);
  EXPECT_EQ(outcome.added, 10);
  const auto back = store->Points(outcome.run_id);
  ASSERT_EQ(back.size(), 10u);
  std::set<std::string> keys;
  for (const Point& p : points) keys.insert(p.key.Canonical());
  for (const Point& p : back) EXPECT_EQ(keys.count(p.key.Canonical()), 1u) << p.key.Canonical();
  // Fixed-length points first, then agentic ones in natural-key order.
  EXPECT_FALSE(back[0].key.Agentic());
  EXPECT_EQ(back[0].key.conc, 2);
  EXPECT_EQ(back[1].key.conc, 4);
  const auto order = [](const Point& p) {
    return std::make_tuple(p.key.model, p.key.hw, p.key.framework, p.key.precision, p.key.spec_decoding, p.key.topology,
                           p.key.kv_offloading, p.key.kv_offload_backend, p.key.conc);
  };
  for (std::size_t i = 2; i < back.size(); ++i) {
    EXPECT_TRUE(back[i].key.Agentic());
    EXPECT_EQ(back[i].key.isl, 0);
    if (i > 2) {
      EXPECT_LE(order(back[i - 1]), order(back[i])) << back[i].key.Canonical();
    }
  }
  // AllPoints orders them as Points does and reads the same records.
  const auto all = store->AllPoints();
  ASSERT_EQ(all.size(), back.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(all[i].key.Canonical(), back[i].key.Canonical());
    EXPECT_EQ(all[i].agg, back[i].agg);
    EXPECT_EQ(all[i].agg.dump(), back[i].agg.dump());
    EXPECT_EQ(all[i].provenance.matrix_row, back[i].provenance.matrix_row);
  }
  EXPECT_EQ(store->Ingest(Run("mixed"), points).unchanged, 10);
}

TEST_P(StoreSuite, MigratesAnOlderStoreForwardKeepingData) {
  {
    StoreOptions v1;
    v1.target_schema_version = 1;
    auto old_store = Open(v1);
    EXPECT_EQ(old_store->SchemaVersion(), 1);
    EXPECT_EQ(old_store->Ingest(Run("old"), sample::SampleCurve({}, {1, 2})).added, 2);
  }
  {
    StoreOptions v4;
    v4.target_schema_version = 4;
    auto middle = Open(v4);
    EXPECT_EQ(middle->SchemaVersion(), 4);
    auto powered = sample::SampleCurve({}, {4});
    powered[0].agg["avg_power_w"] = 650.5;
    EXPECT_EQ(middle->Ingest(Run("old"), powered).added, 1);
  }
  auto store = Open();
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  ASSERT_GE(CurrentSchemaVersion(), 6);
  const auto run = store->FindRun("old");
  const auto points = store->Points(run.id);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2].agg["avg_power_w"], 650.5);
  // The newer columns are usable: replacing a point writes them.
  auto changed = sample::SampleCurve({}, {1});
  changed[0].raw_json = "{}";
  EXPECT_EQ(store->Ingest(Run("old"), changed).updated, 1);
  EXPECT_EQ(store->AllPoints().size(), 3u);
}

TEST_P(StoreSuite, MigrationSevenKeepsPointsAndStoresPowerReasons) {
  {
    StoreOptions v6;
    v6.target_schema_version = 6;
    auto old_store = Open(v6);
    auto unpowered = sample::SampleCurve({}, {1});
    unpowered[0].agg["power_valid"] = 0;
    unpowered[0].provenance.power_invalid_reasons = {"telemetry_file_missing"};  // a v6 store has no column
    EXPECT_EQ(old_store->Ingest(Run("old"), unpowered).added, 1);
    EXPECT_TRUE(old_store->AllPoints().at(0).provenance.power_invalid_reasons.empty());
  }
  auto store = Open();
  ASSERT_GE(CurrentSchemaVersion(), 7);
  const auto old_points = store->AllPoints();
  ASSERT_EQ(old_points.size(), 1u);
  EXPECT_EQ(old_points[0].agg["power_valid"], 0);
  EXPECT_TRUE(old_points[0].provenance.power_invalid_reasons.empty());  // its sidecar was never read
  // A result ingested now: its power_validation sidecar's reasons are stored with it.
  const fs::path files = fs::temp_directory_path() / ("infermark_power_reasons_" + std::to_string(::getpid()) +
                                                      (GetParam() == StoreKind::kPostgres ? "_pg" : "_sqlite"));
  fs::remove_all(files);
  fs::create_directories(files);
  Json agg = sample::SamplePoint({}, 4).agg;
  agg["power_valid"] = 0;
  agg["power_metric_schema_version"] = 2;
  WriteFileAtomic((files / "agg_minimaxm3_conc4.json").string(), DumpJson(agg));
  WriteFileAtomic((files / "power_validation_minimaxm3_conc4.json").string(),
                  R"({"schema_version":1,"power_valid":false,"reasons":["telemetry_file_missing"]})");
  const IngestOutcome outcome = IngestResultFiles(*store, Run("new"), {files.string()}, {});
  EXPECT_EQ(outcome.added, 1);
  const auto back = store->Points(outcome.run_id);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].provenance.power_invalid_reasons, std::vector<std::string>{"telemetry_file_missing"});
  fs::remove_all(files);
}

TEST_P(StoreSuite, EvaluationsRoundTripIdempotentlyAndFilter) {
  auto store = Open();
  const std::vector<Evaluation> evaluations = {
      sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.95),
      sample::SampleEvaluation({}, 64, EvalStatus::kScored, 0.62),
      sample::SampleEvaluation({}, 256, EvalStatus::kNotRun),
      sample::SampleEvaluation({.hw = "b200"}, 64, EvalStatus::kInvalid),
  };
  const IngestOutcome first = store->IngestEvaluations(Run("sweep-1"), evaluations);
  EXPECT_EQ(first.added, 4);
  const IngestOutcome again = store->IngestEvaluations(Run("sweep-1"), evaluations);
  EXPECT_EQ(again.unchanged, 4);
  EXPECT_EQ(again.added + again.updated, 0);
  auto changed = evaluations;
  changed[1].score = 0.93;
  changed[1].passed.reset();
  changed[1].reasons.clear();
  ApplyThreshold(changed[1]);
  changed[1].raw_json = "{\"rescored\":true}";
  const IngestOutcome replaced = store->IngestEvaluations(Run("sweep-1"), changed);
  EXPECT_EQ(replaced.updated, 1);
  EXPECT_EQ(replaced.unchanged, 3);

  const RunSummary run = store->FindRun("sweep-1");
  EXPECT_EQ(run.evaluations, 4);
  EXPECT_EQ(run.points, 0);
  EvaluationQuery all;
  all.run_id = run.id;
  const std::vector<Evaluation> back = store->Evaluations(all);
  ASSERT_EQ(back.size(), 4u);
  // In configuration order: model, lengths, then hardware (b200 before mi355x), then concurrency.
  EXPECT_EQ(back[0].key.hw, "b200");
  EXPECT_EQ(back[1].key.conc, 16);
  EXPECT_EQ(back[2].key.conc, 64);
  EXPECT_EQ(back[3].key.conc, 256);
  const Evaluation& pass = back[1];
  EXPECT_EQ(pass.run_key, "sweep-1");
  EXPECT_EQ(pass.run_id, run.id);
  EXPECT_GT(pass.id, 0);
  EXPECT_EQ(pass.key.Canonical(), evaluations[0].key.Canonical());
  EXPECT_EQ(pass.status, EvalStatus::kScored);
  EXPECT_DOUBLE_EQ(*pass.score, 0.95);
  EXPECT_DOUBLE_EQ(*pass.score_stderr, 0.006);
  EXPECT_EQ(pass.n, 1319);
  EXPECT_DOUBLE_EQ(*pass.threshold, 0.92);
  EXPECT_EQ(pass.threshold_source, "minimaxm3");
  EXPECT_EQ(pass.passed, true);
  EXPECT_EQ(pass.model_prefix, "minimaxm3");
  EXPECT_EQ(pass.eval_concurrency, 16);
  EXPECT_EQ(pass.date, "2026-11-08T04:00:00Z");
  EXPECT_EQ(back[2].passed, true);  // rescored 0.93
  EXPECT_DOUBLE_EQ(*back[2].score, 0.93);
  const Evaluation& not_run = back[3];
  EXPECT_EQ(not_run.status, EvalStatus::kNotRun);
  EXPECT_FALSE(not_run.score.has_value());
  EXPECT_FALSE(not_run.score_stderr.has_value());
  EXPECT_FALSE(not_run.n.has_value());
  EXPECT_FALSE(not_run.passed.has_value());
  EXPECT_EQ(not_run.reasons, std::vector<std::string>{"not_run in the sample"});

  EvaluationQuery b200;
  b200.hw = "b200";
  ASSERT_EQ(store->Evaluations(b200).size(), 1u);
  EXPECT_EQ(store->Evaluations(b200)[0].status, EvalStatus::kInvalid);
  EvaluationQuery scored;
  scored.status = "scored";
  scored.task = "gsm8k";
  EXPECT_EQ(store->Evaluations(scored).size(), 2u);
  EvaluationQuery other_run;
  other_run.run_id = run.id + 100;
  EXPECT_TRUE(store->Evaluations(other_run).empty());
  // A second run keeps its own copy of the same configurations.
  EXPECT_EQ(store->IngestEvaluations(Run("sweep-2"), evaluations).added, 4);
  EXPECT_EQ(store->Evaluations({}).size(), 8u);
}

TEST_P(StoreSuite, MigrationEightKeepsPointsAndAddsEvaluations) {
  {
    StoreOptions v7;
    v7.target_schema_version = 7;
    auto old_store = Open(v7);
    EXPECT_EQ(old_store->SchemaVersion(), 7);
    EXPECT_EQ(old_store->Ingest(Run("old"), sample::SampleCurve({}, {16, 64})).added, 2);
    EXPECT_TRUE(old_store->Evaluations({}).empty());  // no table yet
    EXPECT_EQ(old_store->ListRuns().at(0).evaluations, 0);
    EXPECT_THROW(old_store->IngestEvaluations(Run("old"), {sample::SampleEvaluation({}, 16, EvalStatus::kNotRun)}),
                 InputError);
  }
  auto store = Open();
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  ASSERT_GE(CurrentSchemaVersion(), 8);
  const RunSummary run = store->FindRun("old");
  EXPECT_EQ(store->Points(run.id).size(), 2u);
  EXPECT_EQ(run.evaluations, 0);
  EXPECT_EQ(store->IngestEvaluations(Run("old"), {sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.5)}).added,
            1);
  EXPECT_EQ(store->FindRun("old").evaluations, 1);
  EXPECT_EQ(store->FindRun("old").points, 2);
  const auto evaluations = store->Evaluations({});
  ASSERT_EQ(evaluations.size(), 1u);
  EXPECT_TRUE(SameConfiguration(evaluations[0].key, store->Points(run.id).at(0).key));
}

// A store written before repeats (the version before the migration that adds them, wherever the
// lead orders it) opens and upgrades; a repeated point then keeps its repeats as point_repeats rows,
// read back in order, idempotently, and replaced with the point.
TEST_P(StoreSuite, RepeatsMigrationKeepsPointsAndStoresRepeats) {
  {
    StoreOptions before;
    before.target_schema_version = RepeatsSchemaVersion() - 1;
    auto old_store = Open(before);
    EXPECT_EQ(old_store->Ingest(Run("old"), sample::SampleCurve({}, {1, 2})).added, 2);
  }
  auto store = Open();
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  const RunSummary old_run = store->FindRun("old");
  for (const Point& p : store->Points(old_run.id)) {
    EXPECT_TRUE(p.repeats.empty());
    EXPECT_EQ(RepeatCount(p.agg), 1);
  }
  const Point repeated = sample::WithRepeats(sample::SamplePoint({}, 4), {1.0, 0.97, 1.02}, "fresh");
  EXPECT_EQ(store->Ingest(Run("new"), {repeated, sample::SamplePoint({}, 8)}).added, 2);
  EXPECT_EQ(store->Ingest(Run("new"), {repeated}).unchanged, 1);
  const RunSummary run = store->FindRun("new");
  const auto points = store->Points(run.id);
  ASSERT_EQ(points.size(), 2u);
  const Point& back = points[0].key.conc == 4 ? points[0] : points[1];
  ASSERT_EQ(back.repeats.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(back.repeats[k].index, static_cast<int>(k + 1));
    EXPECT_EQ(back.repeats[k].verdict, "VALID");
    EXPECT_EQ(back.repeats[k].raw_json, repeated.repeats[k].raw_json);
    EXPECT_EQ(back.repeats[k].agg, repeated.repeats[k].agg);
  }
  EXPECT_EQ(RepeatCount(back.agg), 3);
  EXPECT_EQ(back.agg["repeats"]["server"], "fresh");
  EXPECT_TRUE((points[0].key.conc == 4 ? points[1] : points[0]).repeats.empty());
  // Every point at once: the figures' repeats are in the record, the rows are left to Points.
  for (const Point& p : store->AllPoints()) EXPECT_TRUE(p.repeats.empty());
  // A new result under the key replaces the point and its repeats.
  const Point again = sample::WithRepeats(sample::SamplePoint({}, 4), {1.0, 0.9});
  EXPECT_EQ(store->Ingest(Run("new"), {again}).updated, 1);
  for (const Point& p : store->Points(run.id)) {
    if (p.key.conc == 4) {
      EXPECT_EQ(p.repeats.size(), 2u);
    }
  }
}

TEST_P(StoreSuite, EvalFoldersIngestUnderOneRun) {
  const fs::path files = fs::temp_directory_path() / ("infermark_eval_folders_" + std::to_string(::getpid()) +
                                                      (GetParam() == StoreKind::kPostgres ? "_pg" : "_sqlite"));
  fs::remove_all(files);
  fs::create_directories(files / "evals");
  for (const char* name : {"scored-pass", "scored-fail", "not-run", "invalid"}) {
    fs::copy(test::Fixture(std::string("evals/") + name), files / "evals" / name, fs::copy_options::recursive);
  }
  auto store = Open();
  const IngestOutcome outcome = IngestEvalFolders(*store, Run("evals"), {files.string()}, nullptr);
  EXPECT_EQ(outcome.added, 4);
  EXPECT_EQ(IngestEvalFolders(*store, Run("evals"), {files.string()}, nullptr).unchanged, 4);
  EvaluationQuery query;
  query.run_id = outcome.run_id;
  std::map<std::string, int> verdicts;
  for (const Evaluation& e : store->Evaluations(query)) ++verdicts[e.Verdict()];
  EXPECT_EQ(verdicts, (std::map<std::string, int>{{"PASS", 1}, {"FAIL", 1}, {"NOT RUN", 1}, {"INVALID", 1}}));
  // A broken folder stores nothing and names its file.
  WriteFileAtomic((files / "evals" / "not-run" / "eval_status.json").string(), "{}");
  try {
    IngestEvalFolders(*store, Run("broken"), {files.string()}, nullptr);
    FAIL() << "a broken eval folder was stored";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("eval_status.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(store->FindRun("broken"), InputError);
  fs::remove_all(files);
}

TEST_P(StoreSuite, RefusesAStoreWrittenByANewerInfermark) {
  { Open()->Ingest(Run("a"), sample::SampleCurve({}, {1})); }
  SetStoredVersion(CurrentSchemaVersion() + 1);
  try {
    Open();
    FAIL() << "expected refusal";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("schema version " + std::to_string(CurrentSchemaVersion() + 1)), std::string::npos) << what;
    EXPECT_NE(what.find("newer than this infermark"), std::string::npos) << what;
  }
}

// Four processes ingest overlapping sets of points into one run at once: no error, every point
// stored once, and the outcomes add up (each point added by exactly one of them).
TEST_P(StoreSuite, ConcurrentIngestersStoreEachPointOnce) {
  { Open(); }
  constexpr int kWriters = 4;
  constexpr int kPerWriter = 60;
  constexpr int kStride = 20;  // writer w takes concurrencies [w * kStride, w * kStride + kPerWriter)
  std::vector<pid_t> children;
  std::vector<int> pipes;
  for (int w = 0; w < kWriters; ++w) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      std::string report;
      try {
        std::vector<int> concs;
        for (int c = 0; c < kPerWriter; ++c) concs.push_back(1 + w * kStride + c);
        // Each writer sends its points in chunks, so that the transactions interleave.
        auto store = OpenStoreUrl(url_);
        int added = 0, updated = 0, unchanged = 0;
        for (std::size_t at = 0; at < concs.size(); at += 15) {
          const std::vector<int> chunk(concs.begin() + static_cast<long>(at),
                                       concs.begin() + static_cast<long>(std::min(at + 15, concs.size())));
          const IngestOutcome o = store->Ingest(Run("shared"), sample::SampleCurve({}, chunk));
          added += o.added;
          updated += o.updated;
          unchanged += o.unchanged;
        }
        report = std::to_string(added) + " " + std::to_string(updated) + " " + std::to_string(unchanged);
      } catch (const std::exception& e) {
        report = std::string("error ") + e.what();
      }
      (void)!::write(fds[1], report.data(), report.size());
      ::close(fds[1]);
      ::_exit(0);
    }
    ::close(fds[1]);
    children.push_back(pid);
    pipes.push_back(fds[0]);
  }
  int added = 0, updated = 0, unchanged = 0;
  for (int w = 0; w < kWriters; ++w) {
    std::string report;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipes[static_cast<std::size_t>(w)], buffer, sizeof buffer)) > 0;)
      report.append(buffer, static_cast<std::size_t>(n));
    ::close(pipes[static_cast<std::size_t>(w)]);
    int status = 0;
    ::waitpid(children[static_cast<std::size_t>(w)], &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(report.rfind("error", 0), std::string::npos) << report;
    int a = 0, u = 0, c = 0;
    ASSERT_EQ(std::sscanf(report.c_str(), "%d %d %d", &a, &u, &c), 3) << report;
    EXPECT_EQ(a + u + c, kPerWriter) << report;
    added += a;
    updated += u;
    unchanged += c;
  }
  const int distinct = (kWriters - 1) * kStride + kPerWriter;
  EXPECT_EQ(added, distinct);
  EXPECT_EQ(updated, 0);
  EXPECT_EQ(unchanged, kWriters * kPerWriter - distinct);
  auto store = Open();
  ASSERT_EQ(store->ListRuns().size(), 1u);
  EXPECT_EQ(store->ListRuns()[0].points, distinct);
  EXPECT_EQ(store->AllPoints().size(), static_cast<std::size_t>(distinct));
}

// Prediction bands: a predicted point's band group and hot-figure bands land in their columns
// and its record keeps every band; a measured point has none; an older store gains the columns.
TEST_P(StoreSuite, APredictedPointKeepsItsBandsInColumnsAndRecord) {
  auto store = Open();
  const Point predicted = WithBands(sample::SamplePoint({}, 4));
  const Point measured = sample::SamplePoint({}, 16);
  const IngestOutcome outcome =
      store->Ingest(RunInfo{"bands", "", "minimaxm3-fp4-mi355x-vllm", "h", "0.1.0", "test"}, {predicted, measured});
  EXPECT_EQ(outcome.added, 2);
  const auto rows = BandColumns();
  ASSERT_EQ(rows.size(), 2u);
  const double tput = predicted.agg["tput_per_gpu"].get<double>();
  EXPECT_EQ(rows[0][1], "vllm/amd");
  EXPECT_NEAR(std::stod(rows[0][2]), 0.9 * tput, 1e-9 * tput);
  EXPECT_NEAR(std::stod(rows[0][3]), 1.1 * tput, 1e-9 * tput);
  for (std::size_t c = 4; c < 8; ++c) EXPECT_NE(rows[0][c], "NULL") << c;
  EXPECT_EQ(rows[1][1], "");
  for (std::size_t c = 2; c < 8; ++c) EXPECT_EQ(rows[1][c], "NULL") << "a measured point has no band";
  const std::vector<Point> back = store->Points(outcome.run_id);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].agg["prediction_band"], predicted.agg["prediction_band"]);
}

TEST_P(StoreSuite, AStoreFromBeforeTheBandsGainsEmptyColumns) {
  const int version = BandColumnsVersion();
  ASSERT_GT(version, 1) << "no migration adds band_scope";
  {
    StoreOptions before;
    before.target_schema_version = version - 1;
    auto old_store = Open(before);
    EXPECT_EQ(old_store->SchemaVersion(), version - 1);
    old_store->Ingest(RunInfo{"old", "", "r", "h", "0.1.0", "test"}, {sample::SamplePoint({}, 2)});
  }
  auto store = Open();
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  store->Ingest(RunInfo{"new", "", "r", "h", "0.1.0", "test"}, {WithBands(sample::SamplePoint({}, 8))});
  const auto rows = BandColumns();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][1], "");
  EXPECT_EQ(rows[0][2], "NULL");
  EXPECT_EQ(rows[1][1], "vllm/amd");
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreSuite, ::testing::Values(StoreKind::kSqlite, StoreKind::kPostgres), KindName);

}  // namespace
}  // namespace infermark::results
