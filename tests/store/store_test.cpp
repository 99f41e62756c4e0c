// The SQLite store: idempotent ingest on natural keys, replacement of changed results, provenance
// kept, run lookup, forward migrations and refusal of foreign or newer files.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/diagnostic.hpp"
#include "results/result_files.hpp"
#include "results/sample_points.hpp"
#include "run_binary.hpp"
#include "store/result_store.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark_store_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    path_ = (dir_ / "sub" / "store.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static RunInfo Run(const std::string& key) {
    return RunInfo{key, "", "minimaxm3-fp4-mi355x-vllm", "h", "0.1.0", "test"};
  }

  fs::path dir_;
  std::string path_;
};

// Ingest, idempotence, provenance and run lookup run on both stores in
// postgres_store_suite_test.cpp (StoreSuite); these are SQLite's own: its file format and WAL.

TEST_F(StoreTest, MigratesForwardKeepingData) {
  {
    StoreOptions v1;
    v1.target_schema_version = 1;
    auto old_store = OpenStore(path_, v1);
    EXPECT_EQ(old_store->SchemaVersion(), 1);
    EXPECT_EQ(old_store->Ingest(Run("old"), sample::SampleCurve({}, {1, 2})).added, 2);
  }
  auto store = OpenStore(path_);
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  ASSERT_GE(CurrentSchemaVersion(), 2);
  const auto run = store->FindRun("old");
  EXPECT_EQ(store->Points(run.id).size(), 2u);
  // Version 2's column is usable: replacing a point records updated_at.
  auto changed = sample::SampleCurve({}, {1});
  changed[0].raw_json = "{}";
  EXPECT_EQ(store->Ingest(Run("old"), changed).updated, 1);
}

TEST_F(StoreTest, RefusesNewerAndForeignFiles) {
  { auto store = OpenStore(path_); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE schema_version SET version = 999", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  try {
    OpenStore(path_);
    FAIL() << "expected refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }

  const std::string text_file = (dir_ / "notes.db").string();
  std::ofstream(text_file) << "these are not the tables you are looking for\n";
  EXPECT_THROW(OpenStore(text_file), InputError);

  const std::string other = (dir_ / "other.db").string();
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_THROW(OpenStore(other), InputError);
}

TEST_F(StoreTest, WalModeAndConcurrentReader) {
  auto writer = OpenStore(path_);
  auto reader = OpenStore(path_);
  writer->Ingest(Run("a"), sample::SampleCurve({}, {1, 2, 4}));
  EXPECT_EQ(reader->ListRuns().at(0).points, 3);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &stmt, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)), "wal");
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

// Files: agg records, raw client results with settings, infermark's own fields, arrays.
TEST(ResultFiles, ReadsAggRawAndInfermarkFields) {
  const std::string dir = infermark::test::Fixture("inferencex-results");
  ReadOptions options;
  const auto agg = ReadResultFile(
      dir +
          "/processed/"
          "agg_kimik2.5_8k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc32_MI355-gbt350-odcdh5-wbb3.json",
      options);
  ASSERT_EQ(agg.size(), 1u);
  EXPECT_EQ(agg[0].key.conc, 32);
  EXPECT_EQ(agg[0].key.isl, 8192);
  EXPECT_EQ(agg[0].provenance.image, "vllm/vllm-openai-rocm:v0.21.0");

  // A raw result needs the deployment; from the file's own matrix row it needs nothing else.
  const fs::path tmp = fs::temp_directory_path() / ("infermark_files_" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  Json raw =
      Json::parse(std::ifstream(infermark::test::Fixture("golden-matrix/example_benchmark_result_synthetic.json")));
  raw["infermark"] = Json::parse(R"({"metrics_version": "1", "verdict": {"verdict": "INVALID", "reasons": ["too few"]},
      "time_scale": 10, "predicted": true, "host": "box", "engine_flags": ["--tp", "2"],
      "matrix_row": {"image": "img:1", "model": "amd/MiniMax-M3-MXFP4", "model-prefix": "minimaxm3", "precision": "fp4",
                     "framework": "vllm", "runner": "mi355x", "isl": 8192, "osl": 1024, "tp": 2, "ep": 1,
                     "dp-attn": false, "spec-decoding": "none", "disagg": false, "conc": 64, "exp-name": "minimaxm3_8k1k"}})");
  const std::string raw_path = (tmp / "r.json").string();
  std::ofstream(raw_path) << DumpJson(raw);
  const auto points = ReadResultFile(raw_path, options);
  ASSERT_EQ(points.size(), 1u);
  const Point& p = points[0];
  EXPECT_EQ(p.key.hw, "mi355x");
  EXPECT_EQ(p.key.topology, "tp2-ep1-dpafalse-pp1-dcp1-pcp1");
  EXPECT_EQ(p.provenance.kind, PointKind::kPredicted);
  EXPECT_EQ(p.provenance.time_scale, 10);
  EXPECT_EQ(p.provenance.image, "img:1");
  EXPECT_EQ(p.provenance.engine_flags, "--tp 2");
  EXPECT_EQ(p.provenance.verdict, "INVALID: too few");
  EXPECT_EQ(p.provenance.config_key, "minimaxm3_8k1k");
  EXPECT_EQ(p.provenance.started_at, "2026-08-01T12:00:00Z");
  EXPECT_DOUBLE_EQ(p.agg["tput_per_gpu"].get<double>(), 6634.88);

  // Flags win over the matrix row.
  options.flags.values["RUNNER_TYPE"] = "mi300x";
  EXPECT_EQ(ReadResultFile(raw_path, options).at(0).key.hw, "mi300x");

  // Without a row or settings: one message naming what is missing.
  raw.erase("infermark");
  std::ofstream(raw_path) << DumpJson(raw);
  try {
    ReadResultFile(raw_path, ReadOptions{});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("RUNNER_TYPE"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("r.json"), std::string::npos);
  }
  fs::remove_all(tmp);
}

// A sweep's result folder as the runner leaves it: `<stem>.json` from the load generator (verdict and
// reasons at top level) and `<stem>.row.json` with the matrix row, time scale and server argv.
TEST(ResultFiles, SweepFolderWithRowRecords) {
  const fs::path tmp = fs::temp_directory_path() / ("infermark_sweepdir_" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp / "logs");
  Json raw =
      Json::parse(std::ifstream(infermark::test::Fixture("golden-matrix/example_benchmark_result_synthetic.json")));
  raw["metrics_version"] = 1;
  raw["complete"] = true;
  raw["verdict"] = "INVALID";
  raw["verdict_reasons"] = {"failed requests 7 % > 5 %", "send lag"};
  raw["infermark"] = Json::parse(R"({"metrics": {"failed": 45}})");
  std::ofstream(tmp / "minimaxm3_8k1k_conc64.json") << DumpJson(raw);
  std::ofstream(tmp / "minimaxm3_8k1k_conc64.row.json") << R"({"status": "invalid", "time_scale": 20,
      "server_argv": ["infermark", "engine", "serve", "--tp", "2"],
      "row": {"image": "img:2", "model": "amd/MiniMax-M3-MXFP4", "model-prefix": "minimaxm3", "precision": "fp4",
              "framework": "vllm", "runner": "mi355x", "isl": 8192, "osl": 1024, "tp": 2, "ep": 1, "dp-attn": false,
              "spec-decoding": "none", "disagg": false, "conc": 64, "exp-name": "minimaxm3_8k1k"}})";
  const std::string db = (tmp / "store.db").string();
  const auto ingest = infermark::test::RunInfermark({"results", "ingest", "--db", db, tmp.string()});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  EXPECT_NE(ingest.out.find("1 added"), std::string::npos) << ingest.out;
  auto store = OpenStore(db);
  const Point p = store->Points(store->FindRun("latest").id).at(0);
  EXPECT_EQ(p.provenance.time_scale, 20);
  EXPECT_EQ(p.provenance.engine_flags, "infermark engine serve --tp 2");
  EXPECT_EQ(p.provenance.image, "img:2");
  EXPECT_EQ(p.provenance.config_key, "minimaxm3_8k1k");
  EXPECT_EQ(p.provenance.metrics_version, "1");
  EXPECT_EQ(p.provenance.verdict, "INVALID: failed requests 7 % > 5 %; send lag");
  EXPECT_EQ(p.key.topology, "tp2-ep1-dpafalse-pp1-dcp1-pcp1");
  EXPECT_DOUBLE_EQ(DeScaled(p).tput_per_gpu, 6634.88 / 20);
  // Same folder again: nothing changes.
  const auto again = infermark::test::RunInfermark({"results", "ingest", "--db", db, tmp.string()});
  EXPECT_NE(again.out.find("0 added, 0 updated, 1 unchanged"), std::string::npos) << again.out;
  // One unusable file: nothing is stored, not even an empty store, and the file is named.
  std::ofstream(tmp / "broken.json") << "{\"max_concurrency\": 4,\n  oops}";
  const std::string fresh = (tmp / "fresh.db").string();
  const auto bad = infermark::test::RunInfermark({"results", "ingest", "--db", fresh, tmp.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("broken.json:2"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(fresh));
  fs::remove_all(tmp);
}

TEST(ResultFiles, FolderExpansionPairsRawWithAgg) {
  const fs::path tmp = fs::temp_directory_path() / ("infermark_expand_" + std::to_string(::getpid()));
  fs::create_directories(tmp / "deep");
  std::ofstream(tmp / "deep" / "x.json") << "{}";
  std::ofstream(tmp / "deep" / "agg_x.json") << "{}";
  std::ofstream(tmp / "agg_y.json") << "{}";
  std::ofstream(tmp / "power_validation_x.json") << "{}";
  std::ofstream(tmp / "notes.txt") << "";
  const auto files = ExpandResultPaths({tmp.string()});
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(fs::path(files[0]).filename(), "agg_y.json");
  EXPECT_EQ(fs::path(files[1]).filename(), "x.json");
  EXPECT_THROW(ExpandResultPaths({(tmp / "missing").string()}), InputError);
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace infermark::results
