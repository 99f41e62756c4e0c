// Multi-node (disaggregated prefill/decode) points from InferenceX-style records to the store, the
// CSV export, the report and comparisons: client results processed with the multinode environment
// (IS_MULTINODE, PREFILL_*/DECODE_*), agg files named as InferenceX's multinode runs name them,
// migration 6's columns (filled on ingest and for points stored before it), 1P1D and 2P1D points
// at one concurrency kept apart, and each xPyD deployment drawn and compared as a series of its own.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <utility>

#include "core/file_io.hpp"
#include "power/indented_json.hpp"
#include "report/compare.hpp"
#include "report/csv_export.hpp"
#include "report/report.hpp"
#include "results/multinode_fields.hpp"
#include "results/process_result.hpp"
#include "results/process_settings.hpp"
#include "results/result_files.hpp"
#include "results/sample_points.hpp"
#include "store/ingest.hpp"
#include "store/result_store.hpp"
#include "store/store_inspection.hpp"
#include "text_count.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;
using inspect::CsvColumn;
using inspect::Query;

// A client result (InferenceX's benchmark_serving.py fields) at `conc`: throughput grows and
// interactivity falls with concurrency; `speed` scales the throughput.
Json ClientResult(int conc, double speed) {
  const double intvty = 90.0 / std::pow(conc, 0.3);
  const double total = speed * 3000.0 * std::pow(conc, 0.7);
  Json r = Json::object();
  r["model_id"] = "amd/MiniMax-M3-MXFP4";
  r["max_concurrency"] = conc;
  r["output_throughput"] = total / 9;
  r["total_token_throughput"] = total;
  r["median_ttft_ms"] = 900.0 * std::sqrt(conc);
  r["p99_ttft_ms"] = 2000.0 * std::sqrt(conc);
  r["median_tpot_ms"] = 1000.0 / intvty;
  r["median_e2el_ms"] = 1024 * 1000.0 / intvty;
  return r;
}

// The environment InferenceX's multinode template gives process_result.py for an xPyD deployment of
// TP4 workers (every GPU count is workers x 4).
ProcessSettings MultiNodeSettings(int prefill_workers, int decode_workers) {
  ProcessSettings s;
  s.values = {{"RUNNER_TYPE", "mi355x"},
              {"FRAMEWORK", "vllm"},
              {"PRECISION", "fp4"},
              {"SPEC_DECODING", "none"},
              {"ISL", "8192"},
              {"OSL", "1024"},
              {"DISAGG", "true"},
              {"MODEL_PREFIX", "minimaxm3"},
              {"IMAGE", "vllm/vllm-openai-rocm:test"},
              {"IS_MULTINODE", "true"},
              {"PREFILL_GPUS", std::to_string(4 * prefill_workers)},
              {"DECODE_GPUS", std::to_string(4 * decode_workers)},
              {"PREFILL_NUM_WORKERS", std::to_string(prefill_workers)},
              {"PREFILL_TP", "4"},
              {"PREFILL_EP", "1"},
              {"PREFILL_DP_ATTN", "false"},
              {"DECODE_NUM_WORKERS", std::to_string(decode_workers)},
              {"DECODE_TP", "4"},
              {"DECODE_EP", "1"},
              {"DECODE_DP_ATTN", "false"},
              {"ROUTER_METADATA", R"({"name":"vllm-router","version":"0.1.14"})"},
              {"KV_P2P_TRANSFER", "moriio"}};
  return s;
}

// InferenceX's multinode RESULT_FILENAME for a TP4 xPyD deployment, with the server's per-file
// suffix (`_gpus_N_ctx_P_gen_D`).
std::string ResultName(int prefill_workers, int decode_workers, const std::vector<int>& concs) {
  std::string list;
  for (int c : concs) list += (list.empty() ? "" : "x") + std::to_string(c);
  const auto pool = [](int workers) { return "tp4-pp1-dcp1-pcp1-ep1-dpfalse-nw" + std::to_string(workers); };
  return "minimaxm3_8k1k_fp4_vllm_prefill-" + pool(prefill_workers) + "_decode-" + pool(decode_workers) +
         "_disagg-true_spec-none_conc" + list + "_mi355x-disagg_gpus_" +
         std::to_string(4 * (prefill_workers + decode_workers)) + "_ctx_" + std::to_string(4 * prefill_workers) +
         "_gen_" + std::to_string(4 * decode_workers);
}

// The processed record of an xPyD point at `conc`.
Json MultiNodeAgg(int prefill_workers, int decode_workers, int conc, double speed = 1) {
  return ProcessClientResult(ClientResult(conc, speed), MultiNodeSettings(prefill_workers, decode_workers), "r.json");
}

Point MultiNodePoint(int prefill_workers, int decode_workers, int conc, double speed = 1) {
  Point p;
  p.agg = MultiNodeAgg(prefill_workers, decode_workers, conc, speed);
  p.key = KeyFromAgg(p.agg, "sample");
  p.raw_json = DumpJson(p.agg);
  p.provenance.verdict = "VALID";
  return p;
}

constexpr int kConcs[] = {4, 16, 64};

// 1P1D and 2P1D at three concurrencies, and the aggregated TP8 curve of the same scenario.
std::vector<Point> MixedPoints(double speed = 1) {
  std::vector<Point> points;
  for (int c : kConcs) points.push_back(MultiNodePoint(1, 1, c, speed));
  for (int c : kConcs) points.push_back(MultiNodePoint(2, 1, c, speed));
  sample::SampleSpec agg;
  agg.isl = 8192;
  agg.speed = speed;
  for (auto& p : sample::SampleCurve(agg, {4, 16, 64})) points.push_back(std::move(p));
  return points;
}

class MultiNodeResults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark_multinode_results_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static RunInfo Run(const std::string& key) { return RunInfo{key, "", "recipe", "h", "0.1.0", "test"}; }

  fs::path dir_;
};

TEST_F(MultiNodeResults, ProcessedAsInferenceXDoesAndLabelled) {
  const Json agg = MultiNodeAgg(2, 1, 16);
  EXPECT_EQ(agg["is_multinode"], true);
  EXPECT_EQ(agg["disagg"], true);
  EXPECT_EQ(agg["num_prefill_gpu"], 8);
  EXPECT_EQ(agg["num_decode_gpu"], 4);
  const Json raw = ClientResult(16, 1);
  const double total = raw["total_token_throughput"].get<double>();
  const double output = raw["output_throughput"].get<double>();
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), total / 12);                  // both roles' GPUs
  EXPECT_DOUBLE_EQ(agg["output_tput_per_gpu"].get<double>(), output / 4);           // decode GPUs
  EXPECT_DOUBLE_EQ(agg["input_tput_per_gpu"].get<double>(), (total - output) / 8);  // prefill GPUs
  EXPECT_EQ(agg["kv_p2p_transfer"], "moriio");
  const auto f = MultiNodeFieldsOf(agg);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->prefill.num_workers, 2);
  EXPECT_EQ(f->decode.tp, 4);
  EXPECT_EQ(f->Label(), "disagg 2P1D tp4/tp4");
  EXPECT_FALSE(MultiNodeFieldsOf(sample::SamplePoint({}, 4).agg).has_value());

  // Worker parallelism beyond TP shows in the label; a multi-node deployment that is not
  // disaggregated (InferenceX: P = N, D = 0) is labelled by its workers.
  Json wide = agg;
  wide["decode_ep"] = 8;
  wide["decode_tp"] = 8;
  wide["decode_dp_attention"] = "true";
  wide["prefill_pp"] = 2;
  EXPECT_EQ(MultiNodeFieldsOf(wide)->Label(), "disagg 2P1D tp4pp2/tp8ep8dpa");
  ProcessSettings whole = MultiNodeSettings(2, 0);
  whole.values["DISAGG"] = "false";
  whole.values["DECODE_NUM_WORKERS"] = "0";
  const Json aggregated = ProcessClientResult(ClientResult(16, 1), whole, "r.json");
  EXPECT_EQ(aggregated["decode_tp"], 0);
  EXPECT_EQ(MultiNodeFieldsOf(aggregated)->Label(), "multinode 2x tp4");
}

TEST_F(MultiNodeResults, OnePrefillAndTwoPrefillWorkersAreDifferentPoints) {
  const PointKey one = MultiNodePoint(1, 1, 16).key;
  const PointKey two = MultiNodePoint(2, 1, 16).key;
  EXPECT_TRUE(one.disagg);
  EXPECT_EQ(one.topology, "p1x-tp4-ep1-dpafalse+d1x-tp4-ep1-dpafalse");
  EXPECT_EQ(two.topology, "p2x-tp4-ep1-dpafalse+d1x-tp4-ep1-dpafalse");
  EXPECT_NE(one.Canonical(), two.Canonical());
  EXPECT_EQ(one.Scenario(), two.Scenario());
  // Pipeline or context parallelism of a pool makes another point too (and only then shows).
  Json pp = MultiNodeAgg(1, 1, 16);
  pp["decode_pp"] = 2;
  EXPECT_EQ(KeyFromAgg(pp, "r").topology, "p1x-tp4-ep1-dpafalse+d1x-tp4-ep1-dpafalse-pp2");
}

TEST_F(MultiNodeResults, AggFilesRoundTripThroughTheStore) {
  // agg files as InferenceX's multinode runs leave them, one per concurrency.
  for (const auto& [p, d] : {std::pair{1, 1}, std::pair{2, 1}}) {
    for (int c : kConcs) {
      WriteFileAtomic((dir_ / ("agg_" + ResultName(p, d, {4, 16, 64}) + "_c" + std::to_string(c) + ".json")).string(),
                      DumpJsonIndented(MultiNodeAgg(p, d, c), 2));
    }
  }
  const std::string path = (dir_ / "store.db").string();
  auto store = OpenStore(path);
  ASSERT_GE(CurrentSchemaVersion(), 6);
  const IngestOutcome outcome = IngestResultFiles(*store, Run("sweep"), {dir_.string()}, {});
  EXPECT_EQ(outcome.added, 6);
  const auto rows = Query(path,
                          "SELECT conc, disagg, is_multinode, num_prefill_gpu, num_decode_gpu, prefill_num_workers, "
                          "prefill_tp, prefill_pp, prefill_ep, prefill_dp_attention, decode_num_workers, decode_tp, "
                          "decode_pcp_size, decode_dp_attention, prefill_hw FROM points ORDER BY prefill_num_workers, "
                          "conc");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"4", "1", "1", "4", "4", "1", "4", "1", "1", "0", "1", "4", "1", "0", "NULL"}));
  EXPECT_EQ(rows[5],
            (std::vector<std::string>{"64", "1", "1", "8", "4", "2", "4", "1", "1", "0", "1", "4", "1", "0", "NULL"}));
  const auto back = store->Points(outcome.run_id);
  ASSERT_EQ(back.size(), 6u);
  std::set<std::string> labels;
  for (const Point& p : back) labels.insert(MultiNodeFieldsOf(p.agg)->Label());
  EXPECT_EQ(labels, (std::set<std::string>{"disagg 1P1D tp4/tp4", "disagg 2P1D tp4/tp4"}));
  EXPECT_EQ(back[0].agg["router"]["name"], "vllm-router");
  // Ingesting the same files again changes nothing.
  EXPECT_EQ(IngestResultFiles(*store, Run("sweep"), {dir_.string()}, {}).unchanged, 6);

  // Single-node points beside them: not multi-node, no pool columns.
  sample::SampleSpec agg;
  agg.isl = 8192;
  store->Ingest(Run("sweep"), sample::SampleCurve(agg, {4}));
  EXPECT_EQ(Query(path,
                  "SELECT is_multinode, num_prefill_gpu, prefill_tp, decode_dp_attention FROM points "
                  "WHERE disagg = 0"),
            (std::vector<std::vector<std::string>>{{"0", "NULL", "NULL", "NULL"}}));
}

TEST_F(MultiNodeResults, ClientResultsIngestWithTheMultiNodeEnvironment) {
  const std::string file = (dir_ / (ResultName(2, 1, {16}) + ".json")).string();
  WriteFileAtomic(file, DumpJson(ClientResult(16, 1)));
  ReadOptions options;
  options.environment = MultiNodeSettings(2, 1);
  const auto points = ReadResultFiles({file}, options);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].key.topology, "p2x-tp4-ep1-dpafalse+d1x-tp4-ep1-dpafalse");
  EXPECT_EQ(points[0].agg["num_prefill_gpu"], 8);
  EXPECT_EQ(points[0].agg["power_valid"], 0);
}

TEST_F(MultiNodeResults, GpusOfEachRoleFromTheFileName) {
  const ProcessSettings disagg = SettingsFromResultName(ResultName(2, 1, {1, 4}));
  EXPECT_EQ(disagg.Get("PREFILL_GPUS"), "8");
  EXPECT_EQ(disagg.Get("DECODE_GPUS"), "4");
  const ProcessSettings whole = SettingsFromResultName("dsr1_8k1k_fp8_sglang_conc4x8_b200-multinode_gpus_16");
  EXPECT_EQ(whole.Get("PREFILL_GPUS"), "16");
  EXPECT_EQ(whole.Get("DECODE_GPUS"), "0");
  // The project's multi-node launcher names its per-concurrency files so too.
  const ProcessSettings launcher = SettingsFromResultName(
      "minimaxm3_8k1k_fp4_vllm-disagg_prefill-tp4-pp1-dcp1-pcp1-ep1-dpfalse-nw2_decode-tp4-pp1-dcp1-pcp1-ep1-dpfalse-"
      "nw1_disagg-true_spec-none_conc1x4_mi355x-disagg-local_00_conc4_gpus_12_ctx_8_gen_4");
  EXPECT_EQ(launcher.Get("PREFILL_GPUS"), "8");
  EXPECT_EQ(launcher.Get("DECODE_GPUS"), "4");
  EXPECT_TRUE(SettingsFromResultName("minimaxm3_8k1k_fp4_vllm_tp2-pp1_conc64_mi355x-amds_03").values.empty());
  EXPECT_TRUE(SettingsFromResultName("x_gpus_y_ctx_").values.empty());

  // A client result of a multi-node run ingested with the multinode environment but no GPU counts:
  // its name gives them, as the reference's processing reads them.
  const std::string file = (dir_ / (ResultName(2, 1, {16}) + ".json")).string();
  WriteFileAtomic(file, DumpJson(ClientResult(16, 1)));
  ReadOptions options;
  options.environment = MultiNodeSettings(2, 1);
  options.environment.values.erase("PREFILL_GPUS");
  options.environment.values.erase("DECODE_GPUS");
  const auto points = ReadResultFiles({file}, options);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].agg["num_prefill_gpu"], 8);
  EXPECT_EQ(points[0].agg["num_decode_gpu"], 4);
  // Flags win over the name.
  options.flags.values["DECODE_GPUS"] = "8";
  EXPECT_EQ(ReadResultFiles({file}, options)[0].agg["num_decode_gpu"], 8);
}

TEST_F(MultiNodeResults, MigrationSixFillsTheColumnsOfStoredPoints) {
  const std::string path = (dir_ / "old.db").string();
  {
    StoreOptions v5;
    v5.target_schema_version = 5;
    auto old_store = OpenStore(path, v5);
    Json dpa = MultiNodeAgg(1, 1, 8);
    dpa["decode_dp_attention"] = "true";
    dpa["decode_hw"] = "mi355x";
    dpa["prefill_hw"] = "mi355x";
    Point p = MultiNodePoint(1, 1, 8);
    p.agg = dpa;
    p.key = KeyFromAgg(dpa, "r");
    std::vector<Point> points = MixedPoints();
    points.push_back(p);
    EXPECT_EQ(old_store->Ingest(Run("old"), points).added, 10);
  }
  auto store = OpenStore(path);
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  EXPECT_EQ(
      Query(path, "SELECT COUNT(*), SUM(num_prefill_gpu), SUM(num_decode_gpu) FROM points WHERE is_multinode = 1"),
      (std::vector<std::vector<std::string>>{{"7", "40", "28"}}));
  EXPECT_EQ(Query(path, "SELECT COUNT(*) FROM points WHERE is_multinode = 0 AND prefill_tp IS NULL"),
            (std::vector<std::vector<std::string>>{{"3"}}));
  EXPECT_EQ(Query(path,
                  "SELECT conc, decode_dp_attention, prefill_dp_attention, decode_hw, prefill_pp FROM points "
                  "WHERE conc = 8"),
            (std::vector<std::vector<std::string>>{{"8", "1", "0", "mi355x", "1"}}));
}

TEST_F(MultiNodeResults, CsvExportHasTheDeploymentOfEveryPoint) {
  RunSummary run;
  run.info.run_key = "sweep";
  run.info.label = "sweep";
  std::vector<Point> points = {MultiNodePoint(1, 1, 4), MultiNodePoint(2, 1, 4), sample::SamplePoint({}, 4)};
  const std::string csv = ExportCsv({{run, points}});
  EXPECT_EQ(CsvColumn(csv, "is_multinode"), (std::vector<std::string>{"true", "true", "false"}));
  EXPECT_EQ(CsvColumn(csv, "deployment"), (std::vector<std::string>{"disagg 1P1D tp4/tp4", "disagg 2P1D tp4/tp4", ""}));
  EXPECT_EQ(CsvColumn(csv, "num_prefill_gpu"), (std::vector<std::string>{"4", "8", ""}));
  EXPECT_EQ(CsvColumn(csv, "num_decode_gpu"), (std::vector<std::string>{"4", "4", ""}));
  EXPECT_EQ(CsvColumn(csv, "prefill_num_workers"), (std::vector<std::string>{"1", "2", ""}));
  EXPECT_EQ(CsvColumn(csv, "decode_tp"), (std::vector<std::string>{"4", "4", ""}));
  EXPECT_EQ(CsvColumn(csv, "decode_dp_attention"), (std::vector<std::string>{"false", "false", ""}));
  EXPECT_EQ(CsvColumn(csv, "disagg"), (std::vector<std::string>{"true", "true", "false"}));
}

TEST_F(MultiNodeResults, ReportDrawsEachDisaggregatedDeploymentAsItsOwnSeries) {
  ReportRun run;
  run.run.id = 1;
  run.run.info.run_key = "sweep";
  run.run.info.label = "sweep";
  run.points = MixedPoints();
  run.run.points = static_cast<int>(run.points.size());
  const std::string html = RenderReport({run}, {});
  // One scenario (8k/1k), two charts; three series on each: aggregated, 1P1D, 2P1D.
  EXPECT_EQ(test::Occurrences(html, "<svg id=\"chart-"), 2u);
  EXPECT_EQ(test::Occurrences(html, "<path class=\"frontier"), 2u * 3);
  EXPECT_NE(html.find("mi355x vllm fp4 · measured"), std::string::npos);
  EXPECT_NE(html.find("mi355x vllm fp4 disagg 1P1D tp4/tp4 · measured"), std::string::npos);
  EXPECT_NE(html.find("mi355x vllm fp4 disagg 2P1D tp4/tp4 · measured"), std::string::npos);
  EXPECT_NE(html.find("class=\"note multinode-note\""), std::string::npos);
  // Each frontier is named on the chart; a multi-node one by its deployment alone.
  EXPECT_EQ(test::Occurrences(html, ">disagg 1P1D tp4/tp4</text>"), 2u);
  EXPECT_EQ(test::Occurrences(html, ">disagg 2P1D tp4/tp4</text>"), 2u);
  EXPECT_EQ(test::Occurrences(html, ">mi355x vllm fp4</text>"), 2u);
  // Legend entries wrap at spaces, so the two deployments' entries differ where they do.
  EXPECT_EQ(test::Occurrences(html, ">1P1D tp4/tp4 · measured</tspan>"), 2u);
  EXPECT_EQ(test::Occurrences(html, ">2P1D tp4/tp4 · measured</tspan>"), 2u);
  // Each series its own colour: three swatch colours in the table.
  std::set<std::string> colours;
  for (std::size_t at = html.find("class=\"swatch\" style=\"background:"); at != std::string::npos;
       at = html.find("class=\"swatch\" style=\"background:", at + 1)) {
    colours.insert(html.substr(at + 33, 7));
  }
  EXPECT_EQ(colours.size(), 3u);
  // The table names both pools; hover titles carry the deployment.
  EXPECT_NE(html.find("<td class=\"l\">p2x-tp4-ep1-dpafalse+d1x-tp4-ep1-dpafalse</td><td>16</td>"), std::string::npos);
  EXPECT_NE(html.find("<title>mi355x vllm fp4 disagg 1P1D tp4/tp4  p1x-tp4-ep1-dpafalse+d1x-tp4-ep1-dpafalse  conc 64"),
            std::string::npos);
  // Without multi-node points there is no note.
  ReportRun plain = run;
  plain.points = sample::SampleCurve({}, {4, 16});
  EXPECT_EQ(RenderReport({plain}, {}).find("multinode-note"), std::string::npos);
}

TEST_F(MultiNodeResults, CompareMatchesPointsAndFrontiersPerDeployment) {
  const std::vector<Point> baseline = MixedPoints();
  const std::vector<Point> candidate = MixedPoints(0.8);
  const Comparison c = CompareRuns(baseline, candidate, {});
  EXPECT_EQ(c.points.size(), 9u);
  EXPECT_TRUE(c.only_baseline.empty());
  EXPECT_TRUE(c.only_candidate.empty());
  // Measured once, without history: the 20 % loss is inconclusive, never a regression.
  EXPECT_EQ(c.point_regressions, 0);
  for (const PointComparison& p : c.points) EXPECT_EQ(p.deltas[0].evidence.status, ChangeStatus::kInconclusive);
  std::set<std::string> groups;
  for (const FrontierSample& s : c.frontier) groups.insert(s.group);
  EXPECT_EQ(groups, (std::set<std::string>{"mi355x vllm fp4", "mi355x vllm fp4 disagg 1P1D tp4/tp4",
                                           "mi355x vllm fp4 disagg 2P1D tp4/tp4"}));
  // A 2P1D point missing from the candidate is named with its pools.
  std::vector<Point> fewer = candidate;
  fewer.erase(fewer.begin() + 3);
  const Comparison missing = CompareRuns(baseline, fewer, {});
  ASSERT_EQ(missing.only_baseline.size(), 1u);
  EXPECT_NE(missing.only_baseline[0].find("p2x-tp4-ep1-dpafalse+d1x-tp4-ep1-dpafalse"), std::string::npos);
  EXPECT_NE(FormatComparison(c, {}, true).find("disagg 2P1D tp4/tp4"), std::string::npos);
}

}  // namespace
}  // namespace infermark::results
