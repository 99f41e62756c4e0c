// The API's detail routes on both stores: reliability per GPU and per runner label over the five
// windows (counts and rates known from the attempts stored), row attempts and one attempt's result
// and logs, a point's page (each figure with the host error its result states, its curve, its
// evaluations, its attempts), its request timeline with histograms, its GPU telemetry with
// numpy-exact statistics, an evaluation's samples, the frontier at other percentiles and TTFT, and
// the 400s and 404s they answer.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "dashboard/api.hpp"
#include "dashboard/snapshot.hpp"
#include "dashboard_fixture.hpp"
#include "store/postgres_test_server.hpp"
#include "store/store_url.hpp"

namespace infermark::dashboard {
namespace {

using results::AttemptOutcome;
using results::FailureClass;

constexpr const char* kDetailRun = "nightly-3";

results::RowAttempt Attempt(const std::string& hw, const std::string& stem, AttemptOutcome outcome,
                            const std::string& started, FailureClass failure = FailureClass::kNone) {
  results::RowAttempt a;
  a.result_filename = stem;
  a.outcome = outcome;
  a.failure = failure;
  a.runner_label = hw + "-label";
  a.hw = hw;
  a.executor = "local";
  a.target = "engine";
  a.host = "node-1";
  a.model = "amd/MiniMax-M3-MXFP4";
  a.framework = "vllm";
  a.precision = "fp4";
  a.isl = 1024;
  a.osl = 1024;
  a.conc = 16;
  a.started_at = started;
  a.duration_s = 30;
  a.reason = outcome == AttemptOutcome::kFailed ? "server not ready after 900 s (start-up timeout)" : "";
  return a;
}

// The client result of the detail point: the compatible keys and the host error of its statistics.
std::string RawResult() {
  Json raw = Json::object();
  raw["request_throughput"] = 4.0;
  raw["output_throughput"] = 4000.0;
  raw["total_token_throughput"] = 8000.0;
  raw["median_ttft_ms"] = 120.0;
  raw["p99_ttft_ms"] = 300.0;
  raw["median_itl_ms"] = 10.0;
  raw["p99_itl_ms"] = 25.0;
  raw["benchmark_start_time_unix"] = 1700000001.0;
  raw["benchmark_end_time_unix"] = 1700000003.0;
  Json host = Json::object();
  host["median_ttft_ms"] = {{"abs", 0.6}, {"rel", 0.005}};
  host["p99_itl_ms"] = {{"abs", 1.8}, {"rel", 0.072}};
  host["output_throughput"] = {{"abs", -2.0}, {"rel", -0.0005}};
  raw["infermark"] = {
      {"host_error", host},
      {"host_error_kind", "exact"},
      {"host_error_marks",
       Json::array({Json{
           {"key", "p99_itl_ms"}, {"abs", 1.8}, {"rel", 0.072}, {"headline", false}, {"cause", "client loop lag"}}})}};
  return raw.dump();
}

// Two requests 100 ms apart that overlap for 300 ms, the second of session "b"; histograms of one
// TTFT each and three ITLs.
constexpr const char* kTimeline =
    "{\"schema\":\"infermark.request_timeline/1\",\"origin_unix\":1700000001.0,\"requests\":2,\"stride\":1,"
    "\"columns\":[\"index\",\"intended_ms\",\"sent_ms\",\"first_token_ms\",\"last_token_ms\",\"output_tokens\",\"ok\","
    "\"session\",\"input_tokens\",\"hit_tokens\"],"
    "\"ttft_ms\":{\"lo_ms\":0.001,\"bins_per_decade\":10,\"first_bin\":50,\"counts\":[1,0,1],\"zero\":0},"
    "\"itl_ms\":{\"lo_ms\":0.001,\"bins_per_decade\":10,\"first_bin\":40,\"counts\":[3],\"zero\":2}}\n"
    "[0,0.0,0.0,100.0,400.0,30,1,\"a\",1000,0]\n"
    "[1,100.0,100.0,220.0,1200.0,40,1,\"b\",1000,900]\n";

void FillDetails(const std::string& url) {
  test::FillStore(url);
  auto store = results::OpenStoreUrl(url);
  const results::RunInfo run{kDetailRun, "Nightly 3", "recipes", "ci-host", "0.1.0", "sweep"};
  std::vector<results::Point> points = test::DatedCurve({}, {4, 16, 64}, "2026-12-09");
  for (std::size_t i = 0; i < points.size(); ++i) {
    points[i].provenance.source_path = "/results/row_c" + std::to_string(points[i].key.conc) + ".json";
  }
  points[1].raw_json = RawResult();
  points[1].raw_sha256.clear();
  store->Ingest(run, points);
  results::PointDetails d;
  d.timeline = kTimeline;
  d.server_log_tail = "INFO engine ready\n";
  d.client_log_tail = "Verdict: VALID\n";
  for (int g = 0; g < 2; ++g) {
    results::GpuSeries s;
    s.gpu = std::to_string(g);
    s.start_unix = 1700000000.0;
    for (int k = 0; k < 5; ++k) s.t_s.push_back(k);
    std::vector<std::optional<double>> power;
    for (int k = 1; k <= 5; ++k) power.emplace_back(100.0 * (g + 1) + k);
    s.fields.emplace_back("power_w", power);
    d.gpus.push_back(s);
  }
  store->StorePointDetails(run, points[1].key.Canonical(), d);
  const results::Evaluation e = results::sample::SampleEvaluation({}, 16, results::EvalStatus::kScored, 0.9);
  store->IngestEvaluations(run, {e});
  std::vector<results::StoredEvalSample> samples;
  for (int i = 0; i < 6; ++i) {
    results::StoredEvalSample s;
    s.doc_id = i;
    s.question = i == 4 ? "How many eggs does Janet sell?" : "Question " + std::to_string(i);
    s.response = "#### " + std::to_string(i);
    s.strict_answer = std::to_string(i);
    s.target = "#### " + std::to_string(i % 2 == 0 ? i : i + 1);
    s.correct = i % 2 == 0;
    samples.push_back(s);
  }
  store->StoreEvalSamples(run, e.EvalKey(), samples);
  // Attempts: the windows end 2026-12-10T23:59:59Z in the tests (at=2026-12-10).
  results::RowAttempt failed =
      Attempt("mi355x", "row_c16", AttemptOutcome::kFailed, "2026-12-09T08:00:00Z", FailureClass::kStartup);
  failed.reason = "server exited with status 1; log ends: bad flag";
  failed.client_log_tail = "client never ran\n";
  failed.server_log_tail = "error: bad flag\n";
  failed.result_json = "{\"verdict\": \"INVALID\"}";
  results::RowAttempt again = Attempt("mi355x", "row_c16", AttemptOutcome::kCompleted, "2026-12-09T09:00:00Z");
  again.attempt = 2;
  store->IngestAttempts(
      run, {failed, again, Attempt("mi355x", "row_c4", AttemptOutcome::kCompleted, "2026-12-08T08:00:00Z"),
            Attempt("mi355x", "row_c64", AttemptOutcome::kSkipped, "2026-12-09T10:00:00Z"),
            Attempt("mi355x", "row_old1", AttemptOutcome::kFailed, "2026-12-01T08:00:00Z", FailureClass::kReadiness),
            Attempt("mi355x", "row_old2", AttemptOutcome::kRetried, "2026-11-20T08:00:00Z"),
            Attempt("mi355x", "row_old3", AttemptOutcome::kCompleted, "2026-10-01T08:00:00Z"),
            Attempt("b200", "row_b1", AttemptOutcome::kCompleted, "2026-12-09T08:00:00Z"),
            Attempt("b200", "row_b2", AttemptOutcome::kInvalid, "2026-12-05T08:00:00Z"),
            Attempt("b200", "row_future", AttemptOutcome::kFailed, "2026-12-20T08:00:00Z", FailureClass::kTimeout)});
}

class DetailApi : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = test::TempDir("detail_" + std::to_string(std::hash<std::string>{}(name)));
    std::string url = "sqlite:" + (dir_ / "store.db").string();
    if (GetParam() == "postgresql") {
      database_ = infermark::test::FreshPostgresDatabase(name);
      if (!database_) GTEST_SKIP() << infermark::test::PostgresSkipReason();
      url = database_->url;
    }
    FillDetails(url);
    store_ = results::OpenStoreUrl(url);
    snapshot_ = LoadSnapshot(*store_, GetParam(), {});
  }
  void TearDown() override {
    store_.reset();
    database_.reset();
    std::filesystem::remove_all(dir_);
  }

  Json Get(const std::string& path, const std::string& query = "", int status = 200) {
    ApiSources sources;
    sources.run_points = [this](std::int64_t run) { return store_->Points(run); };
    sources.with_store = [this](const std::function<void(results::ResultStore&)>& read) { read(*store_); };
    const ApiReply reply = HandleApi(snapshot_, sources, path, query);
    EXPECT_EQ(reply.status, status) << path << "?" << query << ": " << reply.body;
    return Json::parse(reply.body);
  }

  const DashboardPoint& DetailPoint() const {
    for (const DashboardPoint& p : snapshot_.points) {
      if (p.run_key == kDetailRun && p.conc == 16) return p;
    }
    throw std::runtime_error("no detail point");
  }

  std::filesystem::path dir_;
  std::unique_ptr<infermark::test::PostgresDatabase> database_;
  std::unique_ptr<results::ResultStore> store_;
  Snapshot snapshot_;
};

INSTANTIATE_TEST_SUITE_P(Stores, DetailApi, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

const Json* Group(const Json& list, const char* key, const std::string& name) {
  for (const Json& g : list) {
    if (g[key] == name) return &g;
  }
  return nullptr;
}

TEST_P(DetailApi, ReliabilityCountsEachWindowPerGpuAndRunnerLabel) {
  const Json body = Get("/api/v1/reliability", "at=2026-12-10");
  EXPECT_EQ(body["now"], "2026-12-10T23:59:59Z");
  ASSERT_EQ(body["windows"].size(), 5u);
  EXPECT_EQ(body["windows"][0]["since"], "2026-12-07T23:59:59Z");
  EXPECT_TRUE(body["windows"][4]["since"].is_null());
  const Json* mi = Group(body["by_gpu"], "hardware", "mi355x");
  ASSERT_NE(mi, nullptr);
  // 3 days: two completed and one start-up failure ran; one skipped row ran nothing.
  const Json& d3 = (*mi)["windows"]["3d"];
  EXPECT_EQ(d3["attempts"], 3);
  EXPECT_EQ(d3["succeeded"], 2);
  EXPECT_DOUBLE_EQ(d3["rate"].get<double>(), 2.0 / 3);
  EXPECT_EQ(d3["skipped"], 1);
  EXPECT_EQ(d3["classes"]["startup"], 1);
  EXPECT_EQ(d3["classes"]["readiness"], 0);
  // 30 days: the readiness failure and the retried attempt join (2 of 5).
  const Json& d30 = (*mi)["windows"]["30d"];
  EXPECT_EQ(d30["attempts"], 5);
  EXPECT_EQ(d30["retried"], 1);
  EXPECT_EQ(d30["classes"]["readiness"], 1);
  EXPECT_DOUBLE_EQ(d30["rate"].get<double>(), 0.4);
  // 90 days and all time: the October success too (3 of 6).
  EXPECT_DOUBLE_EQ((*mi)["windows"]["90d"]["rate"].get<double>(), 0.5);
  EXPECT_EQ((*mi)["windows"]["all"]["attempts"], 6);
  const Json* b200 = Group(body["by_gpu"], "hardware", "b200");
  ASSERT_NE(b200, nullptr);
  // The INVALID point is not a success; the attempt after the windows' end is not counted.
  EXPECT_DOUBLE_EQ((*b200)["windows"]["7d"]["rate"].get<double>(), 0.5);
  EXPECT_EQ((*b200)["windows"]["all"]["failed"], 0);
  EXPECT_NE(Group(body["by_runner"], "runner_label", "b200-label"), nullptr);
  EXPECT_EQ(body["total"]["all"]["attempts"], 8);
  // The failures, newest first, each linking to its attempt and its row's point.
  EXPECT_EQ(body["failures_total"], 4);
  ASSERT_EQ(body["failures"].size(), 4u);
  EXPECT_EQ(body["failures"][0]["outcome"], "failed");
  EXPECT_EQ(body["failures"][0]["failure_class"], "startup");
  EXPECT_EQ(body["failures"][1]["outcome"], "invalid");
  EXPECT_EQ(body["failures"][3]["outcome"], "retried");
  const std::string url = body["failures"][0]["url"];
  EXPECT_EQ(url.rfind("/reliability?attempt=", 0), 0u) << url;
  EXPECT_EQ(body["failures"][0]["point_id"], DetailPoint().id);
  EXPECT_EQ(body["failures"][0]["point_url"], "/point/" + std::to_string(DetailPoint().id));
  // Filters and the failures' limit.
  const Json b200_only = Get("/api/v1/reliability", "at=2026-12-10&hardware=b200&limit=1");
  EXPECT_EQ(b200_only["by_gpu"].size(), 1u);
  EXPECT_EQ(b200_only["failures_total"], 1);
  EXPECT_EQ(b200_only["failures"].size(), 1u);
  EXPECT_EQ(Get("/api/v1/reliability", "at=2026-12-31")["by_gpu"][0]["windows"]["3d"]["attempts"], 0);
  EXPECT_TRUE(Get("/api/v1/reliability", "at=2026-12-31")["by_gpu"][0]["windows"]["3d"]["rate"].is_null());
  EXPECT_EQ(Get("/api/v1/reliability", "at=nonsense", 400)["error"]["field"], "at");
  EXPECT_EQ(Get("/api/v1/reliability", "limit=0", 400)["error"]["field"], "limit");
  EXPECT_EQ(Get("/api/v1/reliability", "runs=1", 400)["error"]["field"], "runs");
}

TEST_P(DetailApi, AttemptsAreListedAndOneShowsItsResultAndLogs) {
  const Json failed = Get("/api/v1/attempts", "outcome=failed&class=startup");
  ASSERT_EQ(failed["total"], 1);
  const Json& a = failed["attempts"][0];
  EXPECT_EQ(a["result_filename"], "row_c16");
  EXPECT_EQ(a["run_label"], "Nightly 3");
  const Json one = Get("/api/v1/attempts/" + std::to_string(a["id"].get<long long>()));
  EXPECT_EQ(one["reason"], "server exited with status 1; log ends: bad flag");
  EXPECT_EQ(one["client_log_tail"], "client never ran\n");
  EXPECT_EQ(one["server_log_tail"], "error: bad flag\n");
  EXPECT_EQ(one["result"]["verdict"], "INVALID");
  ASSERT_EQ(one["row_attempts"].size(), 2u);
  EXPECT_EQ(one["row_attempts"][1]["outcome"], "completed");
  EXPECT_EQ(Get("/api/v1/attempts", "limit=2&offset=1")["attempts"].size(), 2u);
  EXPECT_EQ(Get("/api/v1/attempts", "hardware=b200")["total"], 3);
  EXPECT_EQ(Get("/api/v1/attempts", "outcome=done", 400)["error"]["field"], "outcome");
  EXPECT_EQ(Get("/api/v1/attempts", "class=oom", 400)["error"]["field"], "class");
  Get("/api/v1/attempts/999999", "", 404);
}

TEST_P(DetailApi, APointsPageCarriesItsFiguresHostErrorCurveAndDetails) {
  const DashboardPoint& p = DetailPoint();
  const Json page = Get("/api/v1/points/" + std::to_string(p.id));
  EXPECT_EQ(page["point"]["id"], p.id);
  EXPECT_EQ(page["verdict"]["verdict"], "VALID");
  EXPECT_EQ(page["host_error_kind"], "exact");
  ASSERT_EQ(page["host_error_marks"].size(), 1u);
  std::map<std::string, Json> figures;
  for (const Json& f : page["figures"]) figures[f["key"]] = f;
  EXPECT_DOUBLE_EQ(figures.at("median_ttft_ms")["value"].get<double>(), 120);
  EXPECT_DOUBLE_EQ(figures.at("median_ttft_ms")["host_error"]["abs"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(figures.at("median_ttft_ms")["host_error"]["rel"].get<double>(), 0.005);
  EXPECT_TRUE(figures.at("median_ttft_ms")["mark"].is_null());
  EXPECT_EQ(figures.at("p99_itl_ms")["mark"]["cause"], "client loop lag");
  EXPECT_TRUE(figures.at("request_throughput")["host_error"].is_null());
  // Figures the result lacks come from the record (its latencies in seconds).
  EXPECT_NEAR(figures.at("tput_per_gpu")["value"].get<double>(), p.tput_per_gpu, 1e-9);
  EXPECT_NEAR(figures.at("median_tpot_ms")["value"].get<double>(), p.tpot_ms, 1e-9);
  EXPECT_EQ(page["provenance"]["source_path"], "/results/row_c16.json");
  ASSERT_EQ(page["curve"].size(), 3u);
  EXPECT_EQ(page["curve"][0]["conc"], 4);
  ASSERT_EQ(page["attempts"].size(), 2u);
  // Its configuration's evaluations in every run: the second night's and its own night's.
  ASSERT_EQ(page["evaluations"].size(), 2u);
  EXPECT_EQ(page["evaluations"][1]["run_label"], "Nightly 3");
  EXPECT_EQ(page["evaluations"][1]["samples_url"],
            "/api/v1/evaluations/" + std::to_string(page["evaluations"][1]["id"].get<long long>()) + "/samples");
  EXPECT_EQ(page["logs"]["server"], "INFO engine ready\n");
  EXPECT_EQ(page["timeline_url"], "/api/v1/points/" + std::to_string(p.id) + "/timeline");
  EXPECT_EQ(page["telemetry_gpus"], 2);
  // A point without details says so.
  const Json other = Get("/api/v1/points/" + std::to_string(snapshot_.points.front().id));
  EXPECT_TRUE(other["timeline_url"].is_null());
  EXPECT_TRUE(other["telemetry_url"].is_null());
  EXPECT_TRUE(other["host_error_kind"].is_null());
  Get("/api/v1/points/99999", "", 404);
  Get("/api/v1/points/99999/timeline", "", 404);
  Get("/api/v1/points/" + std::to_string(snapshot_.points.front().id) + "/timeline", "", 404);
  Get("/api/v1/points/" + std::to_string(p.id), "x=1", 400);
}

TEST_P(DetailApi, ATimelineListsRequestsWithHistogramsAndLoadOverTime) {
  const Json t = Get("/api/v1/points/" + std::to_string(DetailPoint().id) + "/timeline");
  EXPECT_EQ(t["requests"], 2);
  EXPECT_EQ(t["shown"], 2);
  ASSERT_EQ(t["rows"].size(), 2u);
  EXPECT_EQ(t["rows"][1][4], 1200.0);
  // The TTFT bins start at 10^(50/10) µs = 100 ms, a tenth of a decade wide.
  const Json& ttft = t["ttft_histogram"];
  ASSERT_EQ(ttft["edges_ms"].size(), 4u);
  EXPECT_NEAR(ttft["edges_ms"][0].get<double>(), 100, 1e-9);
  EXPECT_NEAR(ttft["edges_ms"][1].get<double>(), 100 * std::pow(10, 0.1), 1e-9);
  EXPECT_EQ(ttft["counts"], Json::array({1, 0, 1}));
  EXPECT_EQ(t["itl_histogram"]["zero"], 2);
  // Over 1.2 s in 120 spans of 10 ms: one request in flight at first, two from 100 to 400 ms.
  const Json& over = t["over_time"];
  ASSERT_EQ(over["in_flight"].size(), 120u);
  EXPECT_NEAR(over["in_flight"][0].get<double>(), 1, 1e-9);
  EXPECT_NEAR(over["in_flight"][20].get<double>(), 2, 1e-9);
  EXPECT_NEAR(over["in_flight"][60].get<double>(), 1, 1e-9);
  EXPECT_EQ(over["sessions"][20], 2);
  EXPECT_EQ(over["sessions"][60], 1);
  // Hits by send time: session b's 900 of 1000 tokens land in its send's span.
  EXPECT_NEAR(over["cache_hit_rate"][10].get<double>(), 0.9, 1e-9);
  EXPECT_NEAR(over["cache_hit_rate"][0].get<double>(), 0.0, 1e-9);
  EXPECT_TRUE(over["cache_hit_rate"][50].is_null());
}

TEST_P(DetailApi, TelemetryGivesEachGpusSeriesWithNumpyStatistics) {
  const std::string path = "/api/v1/points/" + std::to_string(DetailPoint().id) + "/telemetry";
  const Json t = Get(path);
  ASSERT_EQ(t["fields"].size(), 1u);
  EXPECT_EQ(t["fields"][0]["unit"], "W");
  ASSERT_EQ(t["gpus"].size(), 2u);
  const Json& s = t["gpus"][1]["stats"]["power_w"];  // 201…205 W
  EXPECT_EQ(s["n"], 5);
  EXPECT_DOUBLE_EQ(s["min"].get<double>(), 201);
  EXPECT_DOUBLE_EQ(s["max"].get<double>(), 205);
  EXPECT_DOUBLE_EQ(s["mean"].get<double>(), 203);
  EXPECT_DOUBLE_EQ(s["median"].get<double>(), 203);
  EXPECT_DOUBLE_EQ(s["p95"].get<double>(), 204.8);  // numpy: 201 + 0.95 * 4
  EXPECT_DOUBLE_EQ(s["p99"].get<double>(), 204.96);
  EXPECT_DOUBLE_EQ(s["std"].get<double>(), std::sqrt(2.0));  // population
  EXPECT_EQ(t["window"]["start_unix"], 1700000001.0);
  // Fewer points asked: the series is thinned, the statistics are still over every sample.
  const Json thin = Get(path, "points=2");
  EXPECT_EQ(thin["gpus"][0]["t_s"].size(), 2u);
  EXPECT_EQ(thin["gpus"][0]["stats"]["power_w"]["n"], 5);
  EXPECT_EQ(Get(path, "points=1", 400)["error"]["field"], "points");
  // One field's series asked for: only its values come, every field's statistics still do.
  const Json one = Get(path, "fields=temperature_c");
  EXPECT_TRUE(one["gpus"][0]["values"].empty()) << one["gpus"][0]["values"].dump();  // this row sampled power only
  EXPECT_EQ(one["gpus"][0]["stats"]["power_w"]["n"], 5);
  EXPECT_EQ(Get(path, "fields=power_w")["gpus"][1]["values"]["power_w"].size(), 5u);
  const Json bad = Get(path, "fields=power_w,watts", 400);
  EXPECT_EQ(bad["error"]["field"], "fields");
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("'watts'"), std::string::npos) << bad.dump();
}

TEST_P(DetailApi, EvaluationSamplesArePagedWithAWrongOnlyFilter) {
  const Json page = Get("/api/v1/points/" + std::to_string(DetailPoint().id));
  const std::string samples = page["evaluations"][1]["samples_url"];
  const Json all = Get(samples, "limit=4");
  EXPECT_EQ(all["total"], 6);
  EXPECT_EQ(all["wrong"], 3);
  EXPECT_EQ(all["matched"], 6);
  EXPECT_EQ(all["samples"].size(), 4u);
  const Json wrong = Get(samples, "filter=wrong");
  ASSERT_EQ(wrong["samples"].size(), 3u);
  for (const Json& s : wrong["samples"]) EXPECT_EQ(s["correct"], false);
  const Json found = Get(samples, "q=JANET");
  ASSERT_EQ(found["samples"].size(), 1u);
  EXPECT_EQ(found["samples"][0]["doc_id"], 4);
  EXPECT_EQ(Get(samples, "offset=5")["samples"].size(), 1u);
  EXPECT_EQ(Get(samples, "filter=right", 400)["error"]["field"], "filter");
  EXPECT_EQ(Get(samples, "limit=501", 400)["error"]["field"], "limit");
  Get("/api/v1/evaluations/99999/samples", "", 404);
}

TEST_P(DetailApi, FrontiersReadOtherPercentilesAndTtftAsX) {
  const Json p = Get("/api/v1/points", "run=" + std::string(kDetailRun));
  ASSERT_EQ(p["count"], 3);
  for (const Json& point : p["points"]) {
    EXPECT_TRUE(point["p99_ttft_ms"].is_number()) << point.dump();  // the samples carry p99 TTFT
    EXPECT_TRUE(point["p90_ttft_ms"].is_null());                    // and no p90
  }
  // TTFT: lower is better, so the frontier keeps every sample point (TTFT and throughput both rise with conc).
  const Json ttft = Get("/api/v1/frontier", "run=" + std::string(kDetailRun) + "&x=p99_ttft_ms");
  ASSERT_EQ(ttft["series"].size(), 1u);
  EXPECT_EQ(ttft["series"][0]["points"].size(), 3u);
  EXPECT_DOUBLE_EQ(ttft["series"][0]["points"][0]["x"].get<double>(), p["points"][0]["p99_ttft_ms"].get<double>());
  // A percentile the points lack leaves them off.
  EXPECT_EQ(Get("/api/v1/frontier", "run=" + std::string(kDetailRun) + "&x=p90_ttft_ms")["series"].size(), 0u);
  EXPECT_EQ(Get("/api/v1/frontier", "x=p95_ttft_ms", 400)["error"]["field"], "x");
}

}  // namespace
}  // namespace infermark::dashboard
