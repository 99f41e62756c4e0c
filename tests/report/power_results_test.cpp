// Power fields from the record to the store, the CSV export and the report: migration 5's columns
// (filled on ingest and from the records of points stored before it), agg files with and without
// power, a client result the power aggregation patched, and the report's power columns (J per output
// token and W per GPU when measured, "power invalid" where the aggregation said so, nothing without).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "power/power_fields.hpp"
#include "report/csv_export.hpp"
#include "report/report.hpp"
#include "results/process_result.hpp"
#include "results/result_files.hpp"
#include "results/sample_points.hpp"
#include "store/ingest.hpp"
#include "store/result_store.hpp"
#include "store/store_inspection.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;
using inspect::CsvColumn;
using inspect::Query;

constexpr const char* kPowerColumns =
    "SELECT conc, power_valid, power_metric_schema_version, avg_power_w, joules_per_output_token, "
    "joules_per_input_token, joules_per_total_token, total_gpu_energy_j FROM points ORDER BY conc";

// The fields the power aggregation writes into a record with valid power (as InferenceX rounds them).
void AddValidPower(Json& agg) {
  agg["power_metric_schema_version"] = 2;
  agg["power_valid"] = 1;
  agg["avg_power_w"] = 612.5;
  agg["avg_total_gpu_power_w"] = 4900.0;
  agg["total_gpu_energy_j"] = 1470000.0;
  agg["joules_per_successful_query"] = 1470.0;
  agg["joules_per_input_token"] = 0.7;
  agg["joules_per_output_token"] = 1.4375;
  agg["joules_per_total_token"] = 0.466667;
}

void AddInvalidPower(Json& agg) {
  agg["power_metric_schema_version"] = 2;
  agg["power_valid"] = 0;
}

// conc 1: no power fields (a record from before power telemetry); conc 4: valid; conc 16: invalid.
std::vector<Point> MixedCurve() {
  std::vector<Point> points = sample::SampleCurve({}, {1, 4, 16});
  AddValidPower(points[1].agg);
  AddInvalidPower(points[2].agg);
  return points;
}

class PowerResults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark_power_results_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static RunInfo Run(const std::string& key) { return RunInfo{key, "", "recipe", "h", "0.1.0", "test"}; }

  fs::path dir_;
};

TEST_F(PowerResults, StoreRoundTripKeepsPowerColumns) {
  const std::string path = (dir_ / "store.db").string();
  auto store = OpenStore(path);
  ASSERT_GE(CurrentSchemaVersion(), 5);
  const IngestOutcome outcome = store->Ingest(Run("sweep"), MixedCurve());
  EXPECT_EQ(outcome.added, 3);
  const auto rows = Query(path, kPowerColumns);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"4", "1", "2", "612.5", "1.4375", "0.7", "0.466667", "1470000.0"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"16", "0", "2", "NULL", "NULL", "NULL", "NULL", "NULL"}));

  const auto back = store->Points(outcome.run_id);
  ASSERT_EQ(back.size(), 3u);
  const PowerFields valid = PowerFieldsOf(back[1].agg);
  EXPECT_TRUE(valid.Valid());
  EXPECT_EQ(valid.joules_per_output_token, 1.4375);
  EXPECT_EQ(valid.avg_power_w, 612.5);
  EXPECT_TRUE(PowerFieldsOf(back[2].agg).Invalid());
  EXPECT_FALSE(PowerFieldsOf(back[0].agg).power_valid.has_value());

  // A new result for the invalid point, now with valid power, replaces its columns.
  std::vector<Point> again = MixedCurve();
  AddValidPower(again[2].agg);
  again[2].agg["joules_per_output_token"] = 2.0;
  again[2].raw_json = DumpJson(again[2].agg);
  const IngestOutcome second = store->Ingest(Run("sweep"), again);
  EXPECT_EQ(second.updated, 1);
  EXPECT_EQ(second.unchanged, 2);
  EXPECT_EQ(Query(path, kPowerColumns)[2][1], "1");
  EXPECT_EQ(Query(path, kPowerColumns)[2][4], "2.0");
}

TEST_F(PowerResults, MigrationFiveFillsTheColumnsOfStoredPoints) {
  const std::string path = (dir_ / "old.db").string();
  {
    StoreOptions v4;
    v4.target_schema_version = 4;
    auto old_store = OpenStore(path, v4);
    ASSERT_EQ(old_store->SchemaVersion(), 4);
    old_store->Ingest(Run("sweep-old"), MixedCurve());
  }
  auto store = OpenStore(path);
  EXPECT_EQ(store->SchemaVersion(), CurrentSchemaVersion());
  const auto rows = Query(path, kPowerColumns);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][1], "NULL");
  EXPECT_EQ(rows[1], (std::vector<std::string>{"4", "1", "2", "612.5", "1.4375", "0.7", "0.466667", "1470000.0"}));
  EXPECT_EQ(rows[2], (std::vector<std::string>{"16", "0", "2", "NULL", "NULL", "NULL", "NULL", "NULL"}));
}

TEST_F(PowerResults, IngestOfAggFilesWithAndWithoutPower) {
  // InferenceX agg files as its process_result.py leaves them after aggregate_power.run.
  std::vector<Point> curve = MixedCurve();
  for (const Point& p : curve) {
    std::ofstream(dir_ / ("agg_conc" + std::to_string(p.key.conc) + ".json")) << DumpJson(p.agg);
  }
  ReadOptions read;
  const std::vector<Point> points = ReadResultFiles({dir_.string()}, read);
  ASSERT_EQ(points.size(), 3u);
  const std::string path = (dir_ / "store.db").string();
  auto store = OpenStore(path);
  IngestResultFiles(*store, Run("ingest"), {dir_.string()}, read);
  const auto rows = Query(path, kPowerColumns);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"1", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"4", "1", "2", "612.5", "1.4375", "0.7", "0.466667", "1470000.0"}));
  EXPECT_EQ(rows[2][1], "0");
  EXPECT_EQ(rows[2][3], "NULL");
}

ProcessSettings Deployment() {
  ProcessSettings s;
  s.values = {{"RUNNER_TYPE", "h200"},
              {"FRAMEWORK", "vllm"},
              {"PRECISION", "fp8"},
              {"SPEC_DECODING", "none"},
              {"ISL", "1024"},
              {"OSL", "1024"},
              {"DISAGG", "false"},
              {"MODEL_PREFIX", "llama"},
              {"IMAGE", "vllm/vllm-openai:test"},
              {"TP", "8"},
              {"EP_SIZE", "1"},
              {"DP_ATTENTION", "false"}};
  return s;
}

Json ClientResult() {
  Json r = Json::object();
  r["model_id"] = "meta-llama/Llama-3.3-70B-Instruct";
  r["max_concurrency"] = 8;
  r["total_token_throughput"] = 16000.0;
  r["output_throughput"] = 8000.0;
  r["median_tpot_ms"] = 20.0;
  r["median_ttft_ms"] = 150.0;
  return r;
}

TEST_F(PowerResults, ProcessedRecordCarriesPowerOfAPatchedClientResult) {
  // Without power fields: the reference's defaults.
  const Json plain = ProcessClientResult(ClientResult(), Deployment(), "r.json");
  EXPECT_EQ(plain["power_metric_schema_version"], 2);
  EXPECT_EQ(plain["power_valid"], 0);
  EXPECT_FALSE(plain.contains("avg_power_w"));

  // Patched by the power aggregation (the runner's and `bench serve --gpu-telemetry`'s way).
  Json patched = ClientResult();
  AddValidPower(patched);
  const Json agg = ProcessClientResult(patched, Deployment(), "r.json");
  EXPECT_EQ(agg["power_valid"], 1);
  EXPECT_EQ(agg["avg_power_w"], 612.5);
  EXPECT_EQ(agg["joules_per_output_token"], 1.4375);
  EXPECT_EQ(agg["joules_per_successful_query"], 1470.0);
  // The power keys close the record, in the aggregation's order, as in the reference's agg files.
  std::vector<std::string> tail;
  for (const auto& [key, value] : agg.items()) tail.push_back(key);
  tail.erase(tail.begin(), tail.end() - 9);
  EXPECT_EQ(tail,
            (std::vector<std::string>{"power_metric_schema_version", "power_valid", "avg_power_w",
                                      "avg_total_gpu_power_w", "total_gpu_energy_j", "joules_per_successful_query",
                                      "joules_per_input_token", "joules_per_output_token", "joules_per_total_token"}));

  // Ingesting the patched client result stores its power.
  std::ofstream(dir_ / "r.json") << DumpJson(patched);
  ReadOptions read;
  read.flags = Deployment();
  const std::string path = (dir_ / "store.db").string();
  auto store = OpenStore(path);
  IngestResultFiles(*store, Run("runner"), {(dir_ / "r.json").string()}, read);
  const auto rows = Query(path, kPowerColumns);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"8", "1", "2", "612.5", "1.4375", "0.7", "0.466667", "1470000.0"}));
}

TEST_F(PowerResults, CsvExportHasThePowerColumnsOfEveryPoint) {
  RunSummary run;
  run.info.run_key = "sweep";
  run.info.label = "sweep";
  const std::string csv = ExportCsv({{run, MixedCurve()}});
  EXPECT_EQ(CsvColumn(csv, "power_valid"), (std::vector<std::string>{"", "1", "0"}));
  EXPECT_EQ(CsvColumn(csv, "avg_power_w"), (std::vector<std::string>{"", "612.5", ""}));
  EXPECT_EQ(CsvColumn(csv, "joules_per_output_token"), (std::vector<std::string>{"", "1.4375", ""}));
  EXPECT_EQ(CsvColumn(csv, "joules_per_input_token"), (std::vector<std::string>{"", "0.7", ""}));
  EXPECT_EQ(CsvColumn(csv, "joules_per_total_token"), (std::vector<std::string>{"", "0.466667", ""}));
  EXPECT_EQ(CsvColumn(csv, "total_gpu_energy_j"), (std::vector<std::string>{"", "1.47e+06", ""}));
  EXPECT_EQ(CsvColumn(csv, "power_metric_schema_version"), (std::vector<std::string>{"", "2", "2"}));
}

std::string Report(const std::vector<Point>& points) {
  ReportRun run;
  run.run.id = 1;
  run.run.info.run_key = "sweep";
  run.run.info.label = "sweep";
  run.run.points = static_cast<int>(points.size());
  run.points = points;
  return RenderReport({run}, {});
}

// The cells of the table row of the point at concurrency `conc` (the row holding its conc cell).
std::string RowOf(const std::string& html, int conc) {
  const std::string needle = "pcp1</td><td>" + std::to_string(conc) + "</td>";
  const std::size_t at = html.find(needle, html.find("<table class=\"points\""));
  if (at == std::string::npos) return "";
  const std::size_t start = html.rfind("<tr", at);
  return html.substr(start, html.find("</tr>", at) - start);
}

TEST_F(PowerResults, ReportShowsJoulesPerTokenBesideThroughput) {
  const std::string html = Report(MixedCurve());
  const std::string header = html.substr(html.find("<table class=\"points\""));
  const std::size_t input_tput = header.find("<th>input tok/s/GPU</th>");
  ASSERT_NE(input_tput, std::string::npos);
  EXPECT_EQ(header.find("<th>power [W/GPU]</th><th>energy [J/output tok]</th>"),
            input_tput + std::string("<th>input tok/s/GPU</th>").size());
  const std::string valid = RowOf(html, 4);
  EXPECT_NE(valid.find("<td>612</td><td>1.438</td><td>"), std::string::npos) << valid;  // 612.5 W, 1.4375 J
  EXPECT_NE(html.find("power: 612 W/GPU, 1.438 J/output tok"), std::string::npos);      // the point's title
  EXPECT_NE(html.find("class=\"note power-note\""), std::string::npos);
}

TEST_F(PowerResults, ReportMarksPointsWithInvalidPower) {
  const std::string html = Report(MixedCurve());
  const std::string invalid = RowOf(html, 16);
  EXPECT_NE(invalid.find("<td class=\"power-invalid\" colspan=\"2\">power invalid</td>"), std::string::npos) << invalid;
  // A point without power fields gets two empty cells, no mark.
  const std::string none = RowOf(html, 1);
  EXPECT_EQ(none.find("power invalid"), std::string::npos) << none;
  EXPECT_NE(none.find("</td><td></td><td></td><td>"), std::string::npos) << none;
}

TEST_F(PowerResults, ReportWithoutMeasuredPowerShowsNoPowerColumns) {
  // Only the defaults of records made without telemetry (power_valid 0) and records without fields.
  std::vector<Point> points = sample::SampleCurve({}, {1, 4, 16});
  AddInvalidPower(points[0].agg);
  const std::string html = Report(points);
  EXPECT_EQ(html.find("power [W/GPU]"), std::string::npos);
  EXPECT_EQ(html.find("power invalid"), std::string::npos);
  EXPECT_EQ(html.find("power-note"), std::string::npos);
}

}  // namespace
}  // namespace infermark::results
