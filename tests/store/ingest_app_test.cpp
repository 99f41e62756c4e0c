// Ingesting InferenceX's published data: InferenceX-app API rows (tests/fixtures/inferencex-app/
// benchmarks.json, rows of the app's captured production fixture) become agg records field by
// field, one run per workflow run, stored idempotently; agg_bmk.json (an array of agg records) is
// read as agg records; bad rows are refused naming the file, the record, the field and the rule.
// The app's evaluation rows (tests/fixtures/inferencex-app-evaluations) become evaluations keyed as
// the app's points of their configuration, marked as ingested from InferenceX-app.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/diagnostic.hpp"
#include "core/eval_thresholds.hpp"
#include "core/file_io.hpp"
#include "results/multinode_fields.hpp"
#include "run_binary.hpp"
#include "store/app_evaluations.hpp"
#include "store/ingest_inferencex_app.hpp"
#include "store/result_store.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

const std::string kApp = test::Fixture("inferencex-app/benchmarks.json");
const std::string kAggBmk = test::Fixture("inferencex-app/agg_bmk.json");
const std::string kAppEvals = test::Fixture("inferencex-app-evaluations/evaluations.json");

Json Rows() {
  return Json::parse(ReadFile(kApp));
}

class IngestApp : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark_ingest_app_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A file holding `rows`.
  std::string Write(const Json& rows) {
    const std::string path = (dir_ / "rows.json").string();
    std::ofstream(path) << rows.dump();
    return path;
  }

  // The one message reading `rows` as InferenceX-app data gives.
  std::string ErrorOf(const Json& rows) {
    try {
      (void)ReadIngestBatches({Write(rows)}, IngestFormat::kInferenceXApp, {}, {});
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  }

  fs::path dir_;
};

TEST_F(IngestApp, SingleNodeRowBecomesAnAggRecordFieldByField) {
  const Point p = PointFromAppRow(Rows()[0], kApp, 0);
  EXPECT_EQ(p.agg["hw"], "mi355x");
  EXPECT_EQ(p.agg["model"], "dsr1");
  EXPECT_EQ(p.agg["infmax_model_prefix"], "dsr1");
  EXPECT_EQ(p.agg["framework"], "sglang");
  EXPECT_EQ(p.agg["precision"], "fp4");
  EXPECT_EQ(p.agg["spec_decoding"], "none");
  EXPECT_EQ(p.agg["disagg"], false);
  EXPECT_EQ(p.agg["is_multinode"], false);
  EXPECT_EQ(p.agg["tp"], 4);
  EXPECT_EQ(p.agg["ep"], 1);
  EXPECT_EQ(p.agg["dp_attention"], "false");
  EXPECT_EQ(p.agg["isl"], 1024);
  EXPECT_EQ(p.agg["osl"], 1024);
  EXPECT_EQ(p.agg["conc"], 4);
  EXPECT_EQ(p.agg["image"], "lmsysorg/sglang:v0.5.9-rocm700-mi35x");
  EXPECT_EQ(p.agg["date"], "2026-02-27");
  EXPECT_EQ(p.agg["run_url"], "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/22469096331/attempts/1");
  EXPECT_EQ(p.agg["source"], "inferencex-app");
  EXPECT_DOUBLE_EQ(p.agg["p99_ttft"].get<double>(), 0.5353527302853761);
  // The key is the one a local agg record of the same deployment has.
  EXPECT_EQ(p.key.topology, "tp4-ep1-dpafalse-pp1-dcp1-pcp1");
  EXPECT_FALSE(p.key.Agentic());
  const PointMetrics m = DeScaled(p);
  EXPECT_DOUBLE_EQ(m.tput_per_gpu, 180.65719659379948);
  EXPECT_DOUBLE_EQ(m.output_tput_per_gpu, 89.88905796876784);
  EXPECT_DOUBLE_EQ(m.input_tput_per_gpu, 90.76813862503164);
  EXPECT_DOUBLE_EQ(m.median_intvty, 93.93187520667296);
  EXPECT_DOUBLE_EQ(m.median_e2el, 9.95336338551715);
  EXPECT_DOUBLE_EQ(m.median_ttft, 0.10738262953236699);
  EXPECT_EQ(p.provenance.kind, PointKind::kMeasured);
  EXPECT_EQ(p.provenance.image, "lmsysorg/sglang:v0.5.9-rocm700-mi35x");
  EXPECT_EQ(p.provenance.started_at, "2026-02-27");
  EXPECT_EQ(p.provenance.source_path, kApp);
  EXPECT_EQ(p.raw_json, DumpJson(Rows()[0], kCanonicalJson));  // sorted keys: key order never matters
}

TEST_F(IngestApp, OlderRowWithoutImageOrSplitThroughputs) {
  const Point p = PointFromAppRow(Rows()[3], kApp, 3);
  EXPECT_TRUE(p.agg["image"].is_null());
  EXPECT_TRUE(p.provenance.image.empty());
  EXPECT_EQ(p.key.osl, 8192);
  EXPECT_FALSE(p.agg.contains("input_tput_per_gpu"));
  EXPECT_DOUBLE_EQ(DeScaled(p).tput_per_gpu, 60.45934990269039);
  EXPECT_DOUBLE_EQ(DeScaled(p).input_tput_per_gpu, 0.0);
}

TEST_F(IngestApp, MultiNodeDisaggRowKeepsBothPools) {
  const Point p = PointFromAppRow(Rows()[4], kApp, 4);
  EXPECT_EQ(p.agg["hw"], "h100");
  EXPECT_EQ(p.agg["framework"], "dynamo-trt");
  EXPECT_EQ(p.agg["disagg"], true);
  EXPECT_EQ(p.agg["prefill_num_workers"], 2);
  EXPECT_EQ(p.agg["prefill_tp"], 16);
  EXPECT_EQ(p.agg["prefill_dp_attention"], "true");
  EXPECT_EQ(p.agg["decode_num_workers"], 1);
  EXPECT_EQ(p.agg["num_prefill_gpu"], 32);
  EXPECT_EQ(p.agg["num_decode_gpu"], 16);
  EXPECT_FALSE(p.agg.contains("tp"));
  EXPECT_EQ(p.key.topology, "p2x-tp16-ep16-dpatrue+d1x-tp16-ep16-dpatrue");
  EXPECT_EQ(p.key.conc, 308);
  const auto mn = MultiNodeFieldsOf(p.agg);
  ASSERT_TRUE(mn.has_value());
  EXPECT_EQ(mn->Label(), "disagg 2P1D tp16ep16dpa/tp16ep16dpa");
  EXPECT_DOUBLE_EQ(DeScaled(p).output_tput_per_gpu, 282.1894168604028);
}

TEST_F(IngestApp, AgenticRowIsKeyedByItsOffloadMode) {
  // Shaped as the app's agentic rows are (benchmark_type agentic_traces, null isl/osl, offload_mode).
  Json row = Rows()[0];
  row["benchmark_type"] = "agentic_traces";
  row["isl"] = nullptr;
  row["osl"] = nullptr;
  row["offload_mode"] = "on";
  const Point p = PointFromAppRow(row, kApp, 0);
  EXPECT_TRUE(p.key.Agentic());
  EXPECT_EQ(p.key.isl, 0);
  EXPECT_EQ(p.key.OffloadMode(), "kvdram");
  row["offload_mode"] = "off";
  EXPECT_EQ(PointFromAppRow(row, kApp, 0).key.OffloadMode(), "kvnone");
}

TEST_F(IngestApp, RowsAreGroupedIntoOneRunPerWorkflowRun) {
  const auto batches = ReadIngestBatches({kApp}, IngestFormat::kAuto, {}, {});
  ASSERT_EQ(batches.size(), 4U);
  EXPECT_EQ(batches[0].run.run_key, "inferencex-app-run-22469096331-1");
  EXPECT_EQ(batches[0].run.label, "InferenceX 2026-02-27 run 22469096331/1");
  EXPECT_EQ(batches[0].run.source, "inferencex-app");
  EXPECT_EQ(batches[0].points.size(), 3U);
  EXPECT_EQ(batches[1].run.run_key, "inferencex-app-run-18268966303-1");
  EXPECT_EQ(batches[2].run.run_key, "inferencex-app-run-21790074782-2");
  EXPECT_EQ(batches[3].run.run_key, "inferencex-app-run-21831958748-2");
  EXPECT_EQ(batches[3].points[0].key.hw, "gb300");

  Json row = Rows()[0];
  row["run_url"] = nullptr;
  EXPECT_EQ(AppRunOf(row).run_key, "inferencex-app-2026-02-27");

  RunInfo mine;
  mine.run_key = "public";
  const auto one = ReadIngestBatches({kApp}, IngestFormat::kInferenceXApp, {}, mine);
  ASSERT_EQ(one.size(), 1U);
  EXPECT_EQ(one[0].points.size(), 6U);
}

TEST_F(IngestApp, ReingestingChangesNothing) {
  auto store = OpenStore((dir_ / "store.db").string());
  int added = 0;
  for (const auto& batch : ReadIngestBatches({kApp}, IngestFormat::kInferenceXApp, {}, {})) {
    added += store->Ingest(batch.run, batch.points).added;
  }
  EXPECT_EQ(added, 6);
  const auto before = store->AllPoints();
  for (const auto& batch : ReadIngestBatches({kApp}, IngestFormat::kInferenceXApp, {}, {})) {
    const IngestOutcome again = store->Ingest(batch.run, batch.points);
    EXPECT_EQ(again.added, 0);
    EXPECT_EQ(again.updated, 0);
    EXPECT_EQ(again.unchanged, static_cast<int>(batch.points.size()));
  }
  ASSERT_EQ(store->ListRuns().size(), 4U);
  const auto after = store->AllPoints();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i].id, before[i].id);
  // Identical rows twice in one file are stored once.
  Json twice = Rows();
  twice.push_back(Rows()[0]);
  const auto batches = ReadIngestBatches({Write(twice)}, IngestFormat::kInferenceXApp, {}, {});
  EXPECT_EQ(batches[0].points.size(), 3U);
}

TEST_F(IngestApp, AggBmkIsReadAsAggRecords) {
  const auto batches = ReadIngestBatches({kAggBmk}, IngestFormat::kAgg, {}, {});
  ASSERT_EQ(batches.size(), 1U);
  ASSERT_EQ(batches[0].points.size(), 3U);
  const Point& p = batches[0].points[0];
  EXPECT_EQ(p.key.model, "moonshotai/Kimi-K2.5");
  EXPECT_EQ(p.key.spec_decoding, "mtp");
  EXPECT_EQ(p.key.conc, 4);
  EXPECT_DOUBLE_EQ(DeScaled(p).tput_per_gpu, 55.62670336516291);
  EXPECT_EQ(DetectIngestFormat(Json::parse(ReadFile(kAggBmk))), IngestFormat::kAgg);
  EXPECT_EQ(DetectIngestFormat(Rows()), IngestFormat::kInferenceXApp);
  EXPECT_EQ(DetectIngestFormat(Json::object()), IngestFormat::kResult);
  // The same folder in auto: both kinds, local records first under the given run.
  const auto both = ReadIngestBatches({kAggBmk, kApp}, IngestFormat::kAuto, {}, {});
  ASSERT_EQ(both.size(), 5U);
  EXPECT_EQ(both[0].points.size(), 3U);
}

TEST_F(IngestApp, WrongFormatForAFileIsRefused) {
  try {
    (void)ReadIngestBatches({kApp}, IngestFormat::kAgg, {}, {});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), kApp +
                                         ": entry 'record 0': an agg file holds processed agg records (objects "
                                         "with hw and tput_per_gpu)");
  }
  EXPECT_THROW((void)ReadIngestBatches({kAggBmk}, IngestFormat::kInferenceXApp, {}, {}), InputError);
  EXPECT_EQ(ParseIngestFormat("inferencex-app"), IngestFormat::kInferenceXApp);
  EXPECT_THROW((void)ParseIngestFormat("csv"), InputError);
}

TEST_F(IngestApp, BadRowsNameFileRecordFieldAndRule) {
  const std::string file = (dir_ / "rows.json").string();
  Json rows = Rows();
  rows[2].erase("hardware");
  EXPECT_EQ(ErrorOf(rows), file + ": entry 'record 2' field 'hardware': field required");

  rows = Rows();
  rows[1]["metrics"]["tput_per_gpu"] = "fast";
  EXPECT_EQ(ErrorOf(rows), file + ": entry 'record 1' field 'metrics.tput_per_gpu': must be a finite number");

  rows = Rows();
  rows[5]["date"] = "27/02/2026";
  EXPECT_EQ(ErrorOf(rows),
            file + ": entry 'record 5' field 'date': must be a day written YYYY-MM-DD, not '27/02/2026'");

  rows = Rows();
  rows[0]["benchmark_type"] = "multi_turn";
  EXPECT_EQ(
      ErrorOf(rows),
      file + ": entry 'record 0' field 'benchmark_type': must be single_turn or agentic_traces, not 'multi_turn'");

  rows = Rows();
  rows[0]["conc"] = 0;
  EXPECT_EQ(ErrorOf(rows), file + ": entry 'record 0' field 'conc': must be at least 1");

  rows = Rows();
  rows[4]["prefill_dp_attention"] = "yes";
  EXPECT_EQ(ErrorOf(rows), file + ": entry 'record 4' field 'prefill_dp_attention': must be true or false");

  rows = Rows();
  rows[3]["metrics"].erase("tput_per_gpu");
  EXPECT_EQ(ErrorOf(rows), file + ": entry 'record 3' field 'metrics.tput_per_gpu': field required");

  rows = Rows();
  Json other = rows[0];
  other["metrics"]["tput_per_gpu"] = 1.0;
  rows.push_back(other);
  EXPECT_EQ(ErrorOf(rows), file +
                               ": entry 'record 6': same configuration, sequence lengths and concurrency as record "
                               "0 in run inferencex-app-run-22469096331-1, with other results");

  EXPECT_EQ(ErrorOf(Json::object({{"hardware", "h100"}})),
            file + ": InferenceX-app API data is a JSON array of benchmark rows");
}

TEST_F(IngestApp, CommandStoresPublicRowsOnceAndRefusesTheWrongFormat) {
  const std::string db = (dir_ / "cli.db").string();
  const auto first = test::RunInfermark({"results", "ingest", "--db", db, "--format", "inferencex-app", kApp});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("(inferencex-app-run-22469096331-1): 3 added, 0 updated, 0 unchanged"), std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("(inferencex-app-run-21831958748-2): 1 added"), std::string::npos) << first.out;
  // The folder in auto: the app rows change nothing, the agg_bmk.json records form one more run.
  const auto again = test::RunInfermark({"results", "ingest", "--db", db, test::Fixture("inferencex-app")});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("(inferencex-app-run-22469096331-1): 0 added, 0 updated, 3 unchanged"), std::string::npos)
      << again.out;
  EXPECT_NE(again.out.find("3 added, 0 updated, 0 unchanged (3 point(s))"), std::string::npos) << again.out;
  EXPECT_EQ(OpenStore(db)->ListRuns().size(), 5U);

  const std::string fresh = (dir_ / "fresh.db").string();
  const auto wrong = test::RunInfermark({"results", "ingest", "--db", fresh, "--format", "agg", kApp});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("benchmarks.json: entry 'record 0': an agg file holds processed agg records"),
            std::string::npos)
      << wrong.err;
  EXPECT_FALSE(fs::exists(fresh));
  const auto unknown = test::RunInfermark({"results", "ingest", "--db", fresh, "--format", "csv", kApp});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("--format"), std::string::npos) << unknown.err;
}

TEST_F(IngestApp, EvaluationRowsBecomeEvaluationsPerWorkflowRun) {
  const EvalThresholds thresholds = LoadEvalThresholds(test::SourcePath("data/evals/thresholds.yaml"));
  ReadOptions options;
  options.eval_thresholds = &thresholds;
  const auto batches = ReadIngestBatches({kAppEvals}, IngestFormat::kAuto, options, {});
  ASSERT_EQ(batches.size(), 40u);  // every row of the sample is from its own workflow run
  std::size_t evaluations = 0;
  for (const IngestBatch& b : batches) {
    EXPECT_TRUE(b.points.empty());
    evaluations += b.evaluations.size();
  }
  EXPECT_EQ(evaluations, 40u);
  const IngestBatch& first = batches[0];
  EXPECT_EQ(first.run.run_key, "inferencex-app-run-27485974465-1");
  const Evaluation& e = first.evaluations.at(0);
  EXPECT_EQ(e.origin, kEvalOriginInferenceXApp);
  EXPECT_EQ(e.key.hw, "mi300x");
  EXPECT_EQ(e.key.model, "minimaxm3");
  EXPECT_EQ(e.model_prefix, "minimaxm3");
  EXPECT_EQ(e.key.framework, "vllm");
  EXPECT_TRUE(e.key.disagg);
  EXPECT_EQ(e.key.topology, "tp8-ep1-dpafalse-pp1-dcp1-pcp1");
  EXPECT_EQ(e.key.conc, 64);
  EXPECT_EQ(e.key.isl, 0);  // the rows carry no sequence lengths
  EXPECT_EQ(e.task, "gsm8k");
  EXPECT_EQ(e.status, EvalStatus::kScored);
  EXPECT_DOUBLE_EQ(*e.score, 0.9575435936315391);
  EXPECT_DOUBLE_EQ(*e.score_stderr, 0.005553837749990046);
  EXPECT_DOUBLE_EQ(*e.flexible_score, 0.9567854435178166);
  EXPECT_EQ(e.n, 1319);
  EXPECT_EQ(e.date, "2026-06-14T04:08:16Z");
  EXPECT_EQ(e.run_url, "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/27485974465");
  EXPECT_DOUBLE_EQ(*e.threshold, 0.90);  // no minimaxm3 override: the task's default
  EXPECT_EQ(e.threshold_source, "default");
  EXPECT_EQ(e.passed, true);
  // The multi-node row that also has the universal score: its pools, and `score` read first.
  const Evaluation& multinode = batches[24].evaluations.at(0);
  EXPECT_TRUE(multinode.is_multinode);
  EXPECT_EQ(multinode.key.topology, "p15x-tp4-ep4-dpatrue+d1x-tp12-ep12-dpatrue");
  EXPECT_DOUBLE_EQ(*multinode.score, 0.9598180439727066);
  EXPECT_EQ(multinode.threshold_source, "dsv4");
}

TEST_F(IngestApp, EvaluationRowLinksToTheAppPointOfItsConfiguration) {
  Json bench = Rows()[0];
  const Point point = PointFromAppRow(bench, kApp, 0);
  Json row = bench;
  row.erase("metrics");
  row["task"] = "gsm8k";
  row["metrics"] = Json{{"em_strict", 0.93}, {"em_strict_se", 0.007}, {"n_eff", 1319}};
  const Evaluation e = EvaluationFromAppRow(row, "rows.json", 0, nullptr);
  EXPECT_TRUE(SameConfiguration(e.key, point.key)) << e.key.Canonical() << " vs " << point.key.Canonical();
  row["conc"] = bench["conc"].get<long long>() * 2;
  EXPECT_FALSE(SameConfiguration(EvaluationFromAppRow(row, "rows.json", 0, nullptr).key, point.key));
}

TEST_F(IngestApp, BadEvaluationRowsNameRecordFieldAndRule) {
  Json rows = Json::parse(ReadFile(kAppEvals));
  rows[1]["metrics"]["em_strict"] = "high";
  EXPECT_NE(ErrorOf(rows).find("entry 'record 1' field 'metrics.em_strict': must be a finite number"),
            std::string::npos)
      << ErrorOf(rows);
  rows[1]["metrics"]["em_strict"] = 1.2;
  EXPECT_NE(ErrorOf(rows).find("between 0 and 1"), std::string::npos) << ErrorOf(rows);
  rows[1]["metrics"]["em_strict"] = 0.9;
  rows[1].erase("task");
  EXPECT_NE(ErrorOf(rows).find("entry 'record 1': an evaluation row needs hardware, task"), std::string::npos)
      << ErrorOf(rows);
  rows[1]["task"] = "gsm8k";
  rows[1].erase("conc");
  EXPECT_NE(ErrorOf(rows).find("field 'conc': field required"), std::string::npos) << ErrorOf(rows);
  // A row without a score is stored as INVALID, never as a 0.
  rows[1]["conc"] = 64;
  rows[1]["metrics"].erase("em_strict");
  const auto batches = ReadIngestBatches({Write(rows)}, IngestFormat::kInferenceXApp, {}, {});
  const Evaluation& unscored = batches.at(1).evaluations.at(0);
  EXPECT_EQ(unscored.status, EvalStatus::kInvalid);
  EXPECT_FALSE(unscored.score.has_value());
  EXPECT_EQ(unscored.Verdict(), "INVALID");
}

TEST_F(IngestApp, CommandStoresEvaluationsAndShowsThem) {
  const std::string db = (dir_ / "evals.db").string();
  const auto first = test::RunInfermark({"results", "ingest", "--db", db, "--format", "inferencex-app", kAppEvals});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("(inferencex-app-run-27485974465-1): 1 added, 0 updated, 0 unchanged (1 evaluation(s))"),
            std::string::npos)
      << first.out;
  const auto again = test::RunInfermark({"results", "ingest", "--db", db, kAppEvals});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("0 added, 0 updated, 1 unchanged (1 evaluation(s))"), std::string::npos) << again.out;
  EXPECT_EQ(again.out.find(" added, 0 updated, 0 unchanged (0 point(s))"), std::string::npos) << again.out;
  auto store = OpenStore(db);
  EXPECT_EQ(store->ListRuns().size(), 40u);
  EXPECT_EQ(store->Evaluations({}).size(), 40u);
  const auto show = test::RunInfermark({"results", "show", "--db", db, "inferencex-app-run-27485974465-1"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("1 evaluation(s)"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("0.9575 ± 0.0056"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("inferencex-app"), std::string::npos) << show.out;
  const auto list = test::RunInfermark({"results", "list", "--db", db});
  EXPECT_NE(list.out.find("evals"), std::string::npos) << list.out;
  const auto csv = test::RunInfermark({"results", "export", "--csv", "--evaluations", "--db", db});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 41);
  EXPECT_EQ(csv.out.rfind("run,model,model_prefix,hw,", 0), 0u) << csv.out.substr(0, 200);
}

}  // namespace
}  // namespace infermark::results
