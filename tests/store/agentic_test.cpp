// Agentic aggregates in results: the processed record (`results process`), points keyed apart from
// fixed-length ones, validity, one clear message per malformed aggregate, the store (migration 4
// from a hand-built version-3 store, NULL isl/osl, idempotent ingest) and arrays of mixed records.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/sha256.hpp"
#include "power/power_fields.hpp"
#include "results/agentic_record.hpp"
#include "results/result_files.hpp"
#include "results/sample_points.hpp"
#include "run_binary.hpp"
#include "store/ingest.hpp"
#include "store/result_store.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

std::string Aggregates() {
  return infermark::test::Fixture("agentic-aggregates");
}

const char* const kHicache16 =
    "/sweep/qwen3.5_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc16_b300_kvdram-hicache.json";
const char* const kNone16 =
    "/sweep/qwen3.5_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc16_b300.json";
const char* const kNone64 =
    "/sweep/qwen3.5_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc64_b300.json";
const char* const kWithSummary = "/with-summary/qwen3.5_fp8_vllm_tp8_conc32_h200.json";

Json Load(const std::string& path) {
  return Json::parse(ReadFile(path));
}

class AgenticFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark_agentic_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(AgenticRecord, FlatKeysFollowTheNestedBlocks) {
  const std::string path = Aggregates() + kHicache16;
  const Json a = Load(path);
  ASSERT_TRUE(IsAgenticAggregate(a));
  const Json r = NormalizeAgenticAggregate(a, Json(), path);
  // The aggregate is kept key for key and in order; the flat keys come after it.
  auto at = r.items().begin();
  for (const auto& [key, value] : a.items()) {
    ASSERT_EQ(at.key(), key);
    EXPECT_EQ(at.value(), value) << key;
    ++at;
  }
  const Json& m = a["request_metrics"];
  EXPECT_EQ(r["benchmark_type"], "agentic_traces");
  EXPECT_EQ(r["users"], 16);
  EXPECT_EQ(r["offload_mode"], "on");
  EXPECT_EQ(r["tput_per_gpu"], m["throughput"]["per_gpu"]["total_tput_tps"]);
  EXPECT_EQ(r["output_tput_per_gpu"], m["throughput"]["per_gpu"]["output_tput_tps"]);
  EXPECT_EQ(r["input_tput_per_gpu"], m["throughput"]["per_gpu"]["input_tput_tps"]);
  EXPECT_EQ(r["duration_seconds"], m["throughput"]["duration_seconds"]);
  EXPECT_EQ(r["median_ttft"], m["latency"]["ttft"]["p50"]);
  EXPECT_EQ(r["p90_e2el"], m["latency"]["e2el"]["p90"]);
  EXPECT_EQ(r["median_e2e_norm_intvty"], m["latency"]["e2e_norm_intvty"]["p50"]);
  EXPECT_EQ(r["p90_e2e_norm_intvty"], m["latency"]["e2e_norm_intvty"]["p90"]);
  EXPECT_EQ(r["median_full_response_intvty"], m["latency"]["full_response_intvty"]["p50"]);
  // Full-response interactivity is the canonical one, as the dashboard makes it.
  EXPECT_EQ(r["median_intvty"], m["latency"]["full_response_intvty"]["p50"]);
  EXPECT_NE(r["median_intvty"], m["latency"]["intvty"]["p50"]);
  EXPECT_EQ(r["median_itl"], m["latency"]["full_response_itl"]["p50"]);
  EXPECT_EQ(r["median_tpot"], m["latency"]["tpot"]["p50"]);
  EXPECT_EQ(r["theoretical_cache_hit_rate"], m["cache"]["theoretical_cache_hit_rate"]);
  EXPECT_EQ(r["server_gpu_cache_hit_rate"], a["server_metrics"]["cache"]["gpu_cache_hit_rate"]);
  EXPECT_EQ(r["server_cpu_cache_hit_rate"], a["server_metrics"]["cache"]["cpu_cache_hit_rate"]);
  EXPECT_FALSE(r.contains("server_external_cache_hit_rate"));  // null in the aggregate
  EXPECT_EQ(r["total_prompt_tokens"], a["server_metrics"]["tokens"]["prompt_total"]);
  EXPECT_EQ(r["submission_valid"], true);
  EXPECT_TRUE(r["submission_invalid_reasons"].empty());
  EXPECT_FALSE(r.contains("isl"));
  // Processing a processed record changes nothing.
  EXPECT_EQ(NormalizeAgenticAggregate(r, Json(), path), r);

  const AgenticFields f = AgenticFieldsOf(r);
  EXPECT_EQ(f.users, 16);
  EXPECT_EQ(f.kv_offloading, "dram");
  EXPECT_EQ(f.kv_offload_backend, "hicache");
  EXPECT_EQ(f.allocated_cpu_dram_gb, 1800);
  EXPECT_EQ(f.kv_cache_pool_tokens, 1650000);
  const PowerFields power = PowerFieldsOf(r);
  EXPECT_TRUE(power.Valid());
  EXPECT_EQ(power.avg_power_w, 780);
  EXPECT_DOUBLE_EQ(*f.server_cache_hit_rate, a["server_metrics"]["cache"]["overall_cache_hit_rate"].get<double>());
  EXPECT_EQ(*f.requests_successful, a["num_requests_successful"].get<long long>());
}

TEST(AgenticRecord, ValidityFromAggregateSummaryAndGate) {
  const std::string none16 = Aggregates() + kNone16;
  EXPECT_EQ(AgenticVerdict(NormalizeAgenticAggregate(Load(none16), Json(), none16)), "VALID");
  // 1080 failed of 7160 completed: InferenceX's gate (10 %) fails it.
  const std::string none64 = Aggregates() + kNone64;
  const Json gated = NormalizeAgenticAggregate(Load(none64), Json(), none64);
  EXPECT_EQ(gated["submission_valid"], false);
  EXPECT_EQ(AgenticVerdict(gated),
            "INVALID: request error rate 15.1% is above the 10.0% failed-request threshold (InferenceX agentic gate)");
  // Processing again keeps one copy of the reason.
  EXPECT_EQ(NormalizeAgenticAggregate(gated, Json(), none64)["submission_invalid_reasons"].size(), 1u);
  // aiperf's own verdict beside the aggregate.
  const std::string with_summary = Aggregates() + kWithSummary;
  const Json summary = ReadAgenticSummaryBeside(with_summary);
  ASSERT_TRUE(summary.is_object());
  EXPECT_EQ(AgenticVerdict(NormalizeAgenticAggregate(Load(with_summary), summary, with_summary)),
            "INVALID: context overflows are 1.4% of responses (more than 1%)");
  EXPECT_TRUE(ReadAgenticSummaryBeside(none16).is_null());
  // The summary's counts win over the aggregate's accounting: 12 errors of 3052 pass the gate.
  Json counts = summary;
  counts["metadata"].erase("submission_valid");
  EXPECT_EQ(AgenticVerdict(NormalizeAgenticAggregate(Load(none64), counts, none64)), "VALID");
  counts["error_request_count"]["avg"] = 400;
  EXPECT_NE(AgenticVerdict(NormalizeAgenticAggregate(Load(none16), counts, none16)).find("13.1%"), std::string::npos);
}

// Every malformed aggregate gets one InputError naming the file, the field and the rule.
TEST(AgenticRecord, MalformedAggregatesGetOneClearMessage) {
  const std::string path = Aggregates() + kHicache16;
  const Json good = Load(path);
  struct Case {
    std::function<void(Json&)> spoil;
    std::string field;
    std::string rule;
  };
  const std::vector<Case> cases = {
      {[](Json& a) { a.erase("request_metrics"); }, "'request_metrics'", "needs this object"},
      {[](Json& a) { a["request_metrics"] = Json::array(); }, "'request_metrics'", "must be a JSON object"},
      {[](Json& a) { a["conc"] = "16"; }, "'conc'", "positive integer"},
      {[](Json& a) { a["conc"] = 0; }, "'conc'", "positive integer"},
      {[](Json& a) { a.erase("hw"); }, "'hw'", "as a string"},
      {[](Json& a) { a["kv_offloading"] = "none"; }, "'kv_offload_backend'",
       "must be empty when kv_offloading is none"},
      {[](Json& a) { a["kv_offload_backend"] = ""; }, "'kv_offload_backend'", "is required when kv_offloading is dram"},
      {[](Json& a) { a["kv_offload_backend"] = 3; }, "'kv_offload_backend'", "backend name"},
      {[](Json& a) { a["request_metrics"]["throughput"]["per_gpu"]["total_tput_tps"] = "fast"; },
       "'request_metrics.throughput.per_gpu.total_tput_tps'", "must be a number"},
      {[](Json& a) { a["request_metrics"]["latency"]["ttft"]["p50"] = true; }, "'request_metrics.latency.ttft.p50'",
       "must be a number"},
      {[](Json& a) { a["request_metrics"]["latency"]["e2e_norm_intvty"] = 4; },
       "'request_metrics.latency.e2e_norm_intvty'", "must be a JSON object"},
      {[](Json& a) { a["server_metrics"]["cache"]["gpu_cache_hit_rate"] = "high"; },
       "'server_metrics.cache.gpu_cache_hit_rate'", "must be a number"},
      {[](Json& a) { a["request_accounting"]["records_error_dropped"] = -1; },
       "'request_accounting.records_error_dropped'", "whole, non-negative"},
      {[](Json& a) { a["warnings"] = "none"; }, "'warnings'", "array of strings"},
      {[](Json& a) { a["submission_valid"] = "no"; }, "'submission_valid'", "true or false"},
      {[](Json& a) { a["scenario_type"] = "fixed-seq-len"; }, "'scenario_type'", "agentic-coding"},
      {[](Json& a) { a.erase("tp"); }, "'tp'", "positive integer"},
  };
  for (const Case& c : cases) {
    Json bad = good;
    c.spoil(bad);
    try {
      NormalizeAgenticAggregate(bad, Json(), path);
      ADD_FAILURE() << "accepted a spoiled aggregate; expected " << c.field;
    } catch (const InputError& e) {
      const std::string what = e.what();
      ASSERT_EQ(e.diagnostics().size(), 1u) << what;
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(c.field), std::string::npos) << what;
      EXPECT_NE(what.find(c.rule), std::string::npos) << what;
    }
  }
}

TEST_F(AgenticFiles, FoldersReadAgenticPointsAndSkipArtifacts) {
  const auto points = ReadResultFiles({Aggregates()}, ReadOptions{});
  ASSERT_EQ(points.size(), 8u);  // the summary under aiperf_artifacts is not a result
  std::set<std::string> keys;
  for (const Point& p : points) {
    EXPECT_TRUE(p.key.Agentic());
    EXPECT_EQ(p.key.isl, 0);
    EXPECT_EQ(p.key.osl, 0);
    EXPECT_EQ(p.key.Scenario(), "Qwen/Qwen3.5-397B-A17B-FP8 agentic-coding");
    keys.insert(p.key.Canonical());
  }
  EXPECT_EQ(keys.size(), 8u);
  const Point hicache = ReadResultFile(Aggregates() + kHicache16, ReadOptions{}).at(0);
  const Point none = ReadResultFile(Aggregates() + kNone16, ReadOptions{}).at(0);
  EXPECT_EQ(hicache.key.OffloadMode(), "kvdram-hicache");
  EXPECT_EQ(none.key.OffloadMode(), "kvnone");
  EXPECT_EQ(hicache.key.conc, none.key.conc);
  EXPECT_NE(hicache.key.Canonical(), none.key.Canonical());
  EXPECT_NE(hicache.key.Group(), none.key.Group());
  EXPECT_NE(none.key.Canonical().find("agentic-coding kvnone conc16"), std::string::npos) << none.key.Canonical();
  EXPECT_EQ(hicache.provenance.image, "lmsysorg/sglang:v0.5.9-cu130");
  EXPECT_EQ(hicache.raw_json, ReadFile(Aggregates() + kHicache16));
  const PointMetrics m = DeScaled(hicache);
  EXPECT_DOUBLE_EQ(m.tput_per_gpu, 2610);
  EXPECT_DOUBLE_EQ(DefaultInteractivity(hicache, m), hicache.agg["median_e2e_norm_intvty"].get<double>());
  EXPECT_GT(m.p90_ttft, m.median_ttft);

  // An array holding a fixed-length agg record and an agentic aggregate (as agg_bmk.json collects
  // bmk_agentic_* beside bmk_*): one point of each kind.
  Json array = Json::array({sample::SamplePoint({}, 8).agg, Load(Aggregates() + kNone16)});
  const std::string array_path = (dir_ / "agg_bmk.json").string();
  std::ofstream(array_path) << DumpJson(array);
  const auto mixed = ReadResultFile(array_path, ReadOptions{});
  ASSERT_EQ(mixed.size(), 2u);
  EXPECT_FALSE(mixed[0].key.Agentic());
  EXPECT_EQ(mixed[0].key.isl, 1024);
  EXPECT_TRUE(mixed[1].key.Agentic());
  array[1]["request_metrics"]["qps"] = "many";
  std::ofstream(array_path) << DumpJson(array);
  try {
    ReadResultFile(array_path, ReadOptions{});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("agg_bmk.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[1]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("request_metrics.qps"), std::string::npos) << e.what();
  }
  // A summary that is not JSON is named, not swallowed.
  fs::create_directories(dir_ / "row" / "aiperf_artifacts");
  fs::copy_file(Aggregates() + kNone16, dir_ / "row" / "a.json");
  std::ofstream(dir_ / "row" / "aiperf_artifacts" / "profile_export_aiperf.json") << "{\n\"request_count\": ";
  try {
    ReadResultFile((dir_ / "row" / "a.json").string(), ReadOptions{});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("profile_export_aiperf.json:2"), std::string::npos) << e.what();
  }
}

TEST_F(AgenticFiles, ProcessWritesTheRecordAndRefusesDeploymentFlags) {
  fs::copy_file(Aggregates() + kNone64, dir_ / "row.json");
  const std::string out = (dir_ / "agg_row.json").string();
  const auto run = infermark::test::RunInfermark({"results", "process", (dir_ / "row.json").string(), "-o", out, "-q"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const Json record = Load(out);
  EXPECT_EQ(record, NormalizeAgenticAggregate(Load(Aggregates() + kNone64), Json(), out));
  EXPECT_EQ(record["submission_valid"], false);
  EXPECT_EQ(ReadFile(out).find("{\n  \"hw\": \"b300\",\n  \"conc\": 64,"), 0u);  // indented as the reference writes

  const auto flags =
      infermark::test::RunInfermark({"results", "process", (dir_ / "row.json").string(), "-o", out, "--tp", "4"});
  EXPECT_EQ(flags.exit_code, 2);
  EXPECT_NE(flags.err.find("--tp"), std::string::npos) << flags.err;
  EXPECT_NE(flags.err.find("do not apply to an agentic aggregate"), std::string::npos) << flags.err;

  Json bad = Load(Aggregates() + kNone64);
  bad["request_metrics"]["throughput"]["per_gpu"] = Json::array();
  std::ofstream(dir_ / "bad.json") << DumpJson(bad);
  const auto malformed = infermark::test::RunInfermark({"results", "process", (dir_ / "bad.json").string()});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find("bad.json"), std::string::npos) << malformed.err;
  EXPECT_NE(malformed.err.find("request_metrics.throughput.per_gpu"), std::string::npos) << malformed.err;
}

// The schema of a version-3 store, as infermark wrote it before agentic points.
constexpr const char* kVersion3Schema = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version VALUES (3);
CREATE TABLE runs (id INTEGER PRIMARY KEY, run_key TEXT NOT NULL UNIQUE, label TEXT NOT NULL,
  recipe TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', infermark_version TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL);
CREATE TABLE points (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  point_key TEXT NOT NULL, model TEXT NOT NULL, hw TEXT NOT NULL, framework TEXT NOT NULL, precision TEXT NOT NULL,
  spec_decoding TEXT NOT NULL, disagg INTEGER NOT NULL, topology TEXT NOT NULL, isl INTEGER NOT NULL,
  osl INTEGER NOT NULL, conc INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('measured', 'predicted')),
  time_scale REAL NOT NULL CHECK (time_scale > 0), tput_per_gpu REAL, median_intvty REAL, median_e2el REAL,
  config_key TEXT NOT NULL DEFAULT '', matrix_row TEXT NOT NULL DEFAULT '', image TEXT NOT NULL DEFAULT '',
  engine_flags TEXT NOT NULL DEFAULT '', host TEXT NOT NULL DEFAULT '', infermark_version TEXT NOT NULL DEFAULT '',
  metrics_version TEXT NOT NULL DEFAULT '', verdict TEXT NOT NULL DEFAULT '', started_at TEXT NOT NULL DEFAULT '',
  ended_at TEXT NOT NULL DEFAULT '', source_path TEXT NOT NULL DEFAULT '', raw_sha256 TEXT NOT NULL,
  raw_json TEXT NOT NULL, agg_json TEXT NOT NULL, ingested_at TEXT NOT NULL, UNIQUE (run_id, point_key));
ALTER TABLE points ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
CREATE INDEX points_scenario ON points (model, isl, osl, hw, framework, precision);
ALTER TABLE points ADD COLUMN git_commit TEXT NOT NULL DEFAULT '';
INSERT INTO runs VALUES (1, 'sweep-old', 'old sweep', 'minimaxm3', 'h', '0.0.9', 'sweep', '2026-11-01T00:00:00Z');
)sql";

struct SqlRow {
  std::vector<std::string> cells;  // "NULL" for NULL
};

std::vector<SqlRow> Query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<SqlRow> rows;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    SqlRow row;
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const auto* text = sqlite3_column_text(stmt, i);
      row.cells.push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

TEST_F(AgenticFiles, MigratesAVersion3StoreAndKeepsAgenticPointsApart) {
  const std::string path = (dir_ / "old.db").string();
  // A fixed-length point stored by the old schema, exactly as the old store wrote it.
  const Point fixed = sample::SamplePoint({}, 16);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, kVersion3Schema, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db,
                                 "INSERT INTO points (id, run_id, point_key, model, hw, framework, precision, "
                                 "spec_decoding, disagg, topology, isl, osl, conc, kind, time_scale, tput_per_gpu, "
                                 "median_intvty, median_e2el, config_key, verdict, raw_sha256, raw_json, agg_json, "
                                 "ingested_at, git_commit) VALUES (7, 1, ?1, ?2, ?3, ?4, ?5, ?6, 0, ?7, ?8, ?9, ?10, "
                                 "'measured', 1, ?11, 0, 0, 'minimaxm3', 'VALID', ?12, ?13, ?14, "
                                 "'2026-11-01T00:00:00Z', 'abc123')",
                                 -1, &stmt, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    const std::string texts[] = {fixed.key.Canonical(), fixed.key.model,         fixed.key.hw,      fixed.key.framework,
                                 fixed.key.precision,   fixed.key.spec_decoding, fixed.key.topology};
    for (int i = 0; i < 7; ++i) sqlite3_bind_text(stmt, i + 1, texts[i].c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmt, 8, fixed.key.isl);
    sqlite3_bind_int64(stmt, 9, fixed.key.osl);
    sqlite3_bind_int64(stmt, 10, fixed.key.conc);
    sqlite3_bind_double(stmt, 11, fixed.agg["tput_per_gpu"].get<double>());
    const std::string sha = Sha256Hex(fixed.raw_json);
    const std::string agg = DumpJson(fixed.agg, kCompactJson);
    sqlite3_bind_text(stmt, 12, sha.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 13, fixed.raw_json.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(stmt, 14, agg.c_str(), -1, SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_DONE) << sqlite3_errmsg(db);
    sqlite3_finalize(stmt);
    sqlite3_close(db);
  }

  auto store = OpenStore(path);
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  ASSERT_GE(CurrentSchemaVersion(), 4);
  const RunSummary run = store->FindRun("sweep-old");
  auto before = store->Points(run.id);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].id, 7);
  EXPECT_EQ(before[0].key.Canonical(), fixed.key.Canonical());
  EXPECT_FALSE(before[0].key.Agentic());
  EXPECT_EQ(before[0].provenance.git_commit, "abc123");
  EXPECT_EQ(Query(path, "SELECT scenario_type, isl, osl, users FROM points")[0].cells,
            (std::vector<std::string>{"fixed-seq-len", "1024", "1024", "NULL"}));

  // The same fixed point again is unchanged; agentic points join the run beside it.
  std::vector<Point> points = {fixed};
  for (const char* file : {kNone16, kHicache16, kNone64}) {
    points.push_back(ReadResultFile(Aggregates() + file, ReadOptions{}).at(0));
  }
  const RunInfo info{"sweep-old", "", "", "", "", ""};
  const IngestOutcome first = store->Ingest(info, points);
  EXPECT_EQ(first.unchanged, 1);
  EXPECT_EQ(first.added, 3);
  const IngestOutcome again = store->Ingest(info, points);
  EXPECT_EQ(again.unchanged, 4);
  EXPECT_EQ(again.added + again.updated, 0);

  const auto stored = store->Points(run.id);
  ASSERT_EQ(stored.size(), 4u);
  EXPECT_FALSE(stored[0].key.Agentic());  // fixed-length points first
  for (std::size_t i = 1; i < stored.size(); ++i) {
    EXPECT_TRUE(stored[i].key.Agentic());
    EXPECT_EQ(stored[i].agg, NormalizeAgenticAggregate(stored[i].agg, Json(), "stored"));
  }
  const auto hicache = std::find_if(stored.begin(), stored.end(),
                                    [](const Point& p) { return p.key.OffloadMode() == "kvdram-hicache"; });
  ASSERT_NE(hicache, stored.end());
  EXPECT_EQ(hicache->key.Canonical(), points[2].key.Canonical());
  EXPECT_EQ(hicache->provenance.verdict, "VALID");
  const auto rows = Query(path,
                          "SELECT isl, osl, users, kv_offloading, kv_offload_backend, allocated_cpu_dram_gb, "
                          "theoretical_cache_hit_rate, server_cpu_cache_hit_rate, requests_error, verdict "
                          "FROM points WHERE scenario_type = 'agentic-coding' ORDER BY users, kv_offloading");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].cells[0], "NULL");
  EXPECT_EQ(rows[0].cells[1], "NULL");
  EXPECT_EQ(rows[0].cells[2], "16");
  EXPECT_EQ(rows[0].cells[3], "dram");
  EXPECT_EQ(rows[0].cells[4], "hicache");
  EXPECT_EQ(std::stod(rows[0].cells[5]), 1800);
  EXPECT_EQ(std::stod(rows[0].cells[6]), 0.93);
  EXPECT_EQ(std::stod(rows[0].cells[7]), 0.12);
  EXPECT_EQ(rows[1].cells[3], "none");
  EXPECT_EQ(rows[1].cells[7], "NULL");
  EXPECT_EQ(rows[2].cells[8], "1080");
  EXPECT_EQ(rows[2].cells[9].rfind("INVALID: request error rate", 0), 0u);
  // The schema refuses an agentic row with sequence lengths.
  EXPECT_TRUE(Query(path, "SELECT 1 FROM points WHERE scenario_type = 'agentic-coding' AND isl IS NOT NULL").empty());
}

TEST_F(AgenticFiles, IngestCommandStoresAFolderOnce) {
  const std::string db = (dir_ / "s.db").string();
  const auto first = infermark::test::RunInfermark({"results", "ingest", "--db", db, Aggregates()});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("8 added"), std::string::npos) << first.out;
  const auto second = infermark::test::RunInfermark({"results", "ingest", "--db", db, Aggregates()});
  EXPECT_NE(second.out.find("0 added, 0 updated, 8 unchanged"), std::string::npos) << second.out;
}

}  // namespace
}  // namespace infermark::results
