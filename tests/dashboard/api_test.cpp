// The JSON API v1 route by route (docs/dashboard.md) on a snapshot of a fixture store: real
// content per route, and 400s that name the offending parameter.
#include "dashboard/api.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "dashboard/snapshot.hpp"
#include "dashboard_fixture.hpp"
#include "report/iso_interactivity.hpp"
#include "store/postgres_test_server.hpp"
#include "store/store_url.hpp"

namespace infermark::dashboard {
namespace {

// The same contract on both stores: SQLite, and PostgreSQL where its test server runs.
class ApiTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = test::TempDir("api_" + std::to_string(std::hash<std::string>{}(name)));
    std::string url = "sqlite:" + (dir_ / "store.db").string();
    if (GetParam() == "postgresql") {
      database_ = infermark::test::FreshPostgresDatabase(name);
      if (!database_) GTEST_SKIP() << infermark::test::PostgresSkipReason();
      url = database_->url;
    }
    test::FillStore(url);
    store_ = results::OpenStoreUrl(url);
    // $2 per GPU-hour for mi355x from 2026-11-05 on: the first night has no price yet.
    const PriceLookup prices = [](const std::string& hw, const std::string& date) -> std::optional<double> {
      if (hw == "mi355x" && date >= "2026-11-05") return 2.0;
      return std::nullopt;
    };
    snapshot_ = LoadSnapshot(*store_, GetParam(), prices);
  }
  void TearDown() override {
    store_.reset();
    database_.reset();
    std::filesystem::remove_all(dir_);
  }

  Json Get(const std::string& path, const std::string& query = "", int status = 200) {
    ApiSources sources;
    sources.run_points = [this](std::int64_t run) { return store_->Points(run); };
    sources.prices = [] { return Json{{"prices", Json::array({{{"gpu", "mi355x"}, {"usd_per_gpu_hour", 2.0}}})}}; };
    const ApiReply reply = HandleApi(snapshot_, sources, path, query);
    EXPECT_EQ(reply.status, status) << path << "?" << query << ": " << reply.body;
    EXPECT_EQ(reply.content_type, "application/json");
    return Json::parse(reply.body);
  }

  // The 400 for `query` on `path` names `field`.
  void ExpectBadField(const std::string& path, const std::string& query, const std::string& field) {
    const Json body = Get(path, query, 400);
    EXPECT_EQ(body["error"]["status"], 400);
    EXPECT_EQ(body["error"]["field"], field) << query << ": " << body.dump();
    EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
  }

  std::filesystem::path dir_;
  std::unique_ptr<infermark::test::PostgresDatabase> database_;
  std::unique_ptr<results::ResultStore> store_;
  Snapshot snapshot_;
};

INSTANTIATE_TEST_SUITE_P(Stores, ApiTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

TEST_P(ApiTest, MetaDescribesStoreFiltersRunsAndAxes) {
  const Json meta = Get("/api/v1/meta");
  EXPECT_EQ(meta["api_version"], 1);
  EXPECT_EQ(meta["store"]["kind"], GetParam());
  EXPECT_EQ(meta["store"]["schema_version"], results::CurrentSchemaVersion());
  EXPECT_EQ(meta["store"]["runs"], 3);
  EXPECT_EQ(meta["store"]["points"], 21);
  EXPECT_EQ(meta["filters"]["hardware"], Json::array({"b200", "mi355x"}));
  EXPECT_EQ(meta["filters"]["framework"], Json::array({"sglang", "vllm"}));
  EXPECT_EQ(meta["filters"]["precision"], Json::array({"fp4", "fp8"}));
  EXPECT_EQ(meta["filters"]["sequence"], Json::array({"1k/1k", "8k/1k"}));
  EXPECT_EQ(meta["filters"]["kind"], Json::array({"measured", "predicted"}));
  EXPECT_EQ(meta["filters"]["model"], Json::array({"amd/MiniMax-M3-MXFP4"}));
  ASSERT_EQ(meta["filters"]["run"].size(), 3u);
  EXPECT_EQ(meta["filters"]["run"][0]["key"], "nightly-1");
  EXPECT_EQ(meta["filters"]["run"][0]["label"], "Nightly 1");
  EXPECT_EQ(meta["filters"]["run"][2]["label"], "predict-1");  // no label: the key
  EXPECT_EQ(meta["axes"]["x"][0]["key"], "interactivity");
  EXPECT_EQ(meta["axes"]["x"][1]["unit"], "s");
  EXPECT_EQ(meta["axes"]["y"].size(), 5u);
}

TEST_P(ApiTest, PointsCarryDerivedFiguresAndProvenance) {
  const Json body = Get("/api/v1/points", "hardware=mi355x&run=nightly-1");
  ASSERT_EQ(body["count"], 5);
  std::map<long long, Json> by_conc;
  for (const Json& point : body["points"]) by_conc[point["conc"].get<long long>()] = point;
  const Json& c4 = by_conc.at(4);
  EXPECT_EQ(c4["series"], "mi355x · vllm · fp4");
  EXPECT_EQ(c4["run_label"], "Nightly 1");
  EXPECT_EQ(c4["sequence"], "1k/1k");
  EXPECT_EQ(c4["isl"], 1024);
  EXPECT_EQ(c4["osl"], 1024);
  EXPECT_EQ(c4["agentic"], false);
  EXPECT_EQ(c4["tp"], 8);
  EXPECT_EQ(c4["num_gpus"], 8);
  EXPECT_EQ(c4["disagg"], false);
  EXPECT_EQ(c4["prefill_gpus"], nullptr);
  EXPECT_EQ(c4["kind"], "measured");
  EXPECT_EQ(c4["date"], "2026-11-01");
  EXPECT_NEAR(c4["tput_per_gpu"].get<double>(), test::SampleThroughput(4, 1), 1e-9);
  EXPECT_NEAR(c4["output_tput_per_gpu"].get<double>(), test::SampleThroughput(4, 1) / 2, 1e-9);
  EXPECT_NEAR(c4["interactivity"].get<double>(), test::SampleInteractivity(4), 1e-9);
  EXPECT_NEAR(c4["tpot_ms"].get<double>(), 1000 / test::SampleInteractivity(4), 1e-9);
  EXPECT_NEAR(c4["ttft_ms"].get<double>(), 400, 1e-9);  // 0.2 s x sqrt(4)
  EXPECT_NEAR(c4["e2el_s"].get<double>(), 1024 / test::SampleInteractivity(4), 1e-9);
  EXPECT_EQ(c4["w_per_gpu"], 700.0);
  EXPECT_NEAR(c4["j_per_token"].get<double>(), 700 / (test::SampleThroughput(4, 1) / 2), 1e-9);
  EXPECT_EQ(c4["cost_per_m_tokens"], nullptr);  // no price before 2026-11-05
  EXPECT_EQ(c4["provenance"]["image"], "vllm/vllm-openai-rocm:test");
  EXPECT_EQ(c4["provenance"]["flags"], "--tp 8");
  EXPECT_EQ(c4["provenance"]["host"], "testhost");
  EXPECT_EQ(c4["provenance"]["infermark_version"], "0.1.0");
  EXPECT_EQ(c4["provenance"]["time_scale"], 1.0);
  EXPECT_EQ(c4["provenance"]["source"], "sweep");
  EXPECT_FALSE(c4["provenance"]["created_at"].get<std::string>().empty());

  // The second night is priced: $2/GPU-hour over output tok/s/GPU.
  const Json night2 = Get("/api/v1/points", "hardware=mi355x&run=nightly-2&isl=1024");
  ASSERT_EQ(night2["count"], 4);
  for (const Json& q : night2["points"]) {
    EXPECT_NEAR(q["cost_per_m_tokens"].get<double>(), 2.0 * 1e6 / (3600 * q["output_tput_per_gpu"].get<double>()),
                1e-9);
    EXPECT_EQ(q["w_per_gpu"], nullptr);
  }
}

// A point measured several times carries each figure's repeats and its median's interval (the
// error bars), a point measured once none; a series whose points all were has a band around its
// frontier (the repeats' own frontiers read at each frontier point).
TEST_P(ApiTest, RepeatedPointsCarryIntervalsAndTheirFrontierABand) {
  const Json body = Get("/api/v1/points", "hardware=mi355x&run=nightly-2&isl=1024");
  ASSERT_EQ(body["count"], 4);
  for (const Json& p : body["points"]) {
    EXPECT_EQ(p["repeats"], 3);
    EXPECT_EQ(p["repeat_server"], "same");
    const Json& tput = p["intervals"]["tput_per_gpu"];
    const double median = p["tput_per_gpu"].get<double>();
    EXPECT_NEAR(tput["median"].get<double>(), median, 1e-9);
    EXPECT_NEAR(tput["low"].get<double>(), median * 0.99, 1e-9);  // three repeats: [min, max]
    EXPECT_NEAR(tput["high"].get<double>(), median * 1.01, 1e-9);
    EXPECT_EQ(tput["confidence"], 0.75);
    EXPECT_EQ(tput["values"].size(), 3u);
    EXPECT_NEAR(p["intervals"]["interactivity"]["high"].get<double>(), p["interactivity"].get<double>() * 1.01, 1e-9);
  }
  const Json once = Get("/api/v1/points", "hardware=b200&run=nightly-2");
  for (const Json& p : once["points"]) {
    EXPECT_EQ(p["repeats"], 1);
    EXPECT_EQ(p["intervals"], nullptr);
  }
  const Json frontier = Get("/api/v1/frontier", "run=nightly-2&sequence=1k/1k");
  bool banded = false;
  for (const Json& series : frontier["series"]) {
    for (const Json& f : series["points"]) {
      if (series["series"] == "mi355x · vllm · fp4") {
        ASSERT_TRUE(f["band"].is_object()) << f.dump();
        // At the frontier's ends some repeats' frontiers stop short: the band is what reaches.
        EXPECT_LE(f["band"]["low"].get<double>(), f["y"].get<double>() * (1 + 1e-12));
        EXPECT_GE(f["band"]["high"].get<double>(), f["y"].get<double>() * (1 - 1e-12));
        EXPECT_LT(f["band"]["low"].get<double>(), f["band"]["high"].get<double>());
        banded = true;
      } else {
        EXPECT_EQ(f["band"], nullptr);  // b200: measured once
      }
    }
  }
  EXPECT_TRUE(banded);
}

TEST_P(ApiTest, EvaluationsFilterAndLinkToThePointsOfTheirConfiguration) {
  const Json all = Get("/api/v1/evaluations");
  ASSERT_EQ(all["count"], 2);
  const Json& scored = all["evaluations"][0];
  EXPECT_EQ(scored["conc"], 16);
  EXPECT_EQ(scored["status"], "scored");
  EXPECT_EQ(scored["verdict"], "PASS");
  EXPECT_DOUBLE_EQ(scored["score"].get<double>(), 0.95);
  EXPECT_DOUBLE_EQ(scored["stderr"].get<double>(), 0.006);
  EXPECT_DOUBLE_EQ(scored["threshold"].get<double>(), 0.92);
  EXPECT_EQ(scored["run_label"], "Nightly 2");
  EXPECT_EQ(scored["hardware"], "mi355x");
  ASSERT_EQ(scored["points"].size(), 2u);  // conc 16 of both nights
  const Json& not_run = all["evaluations"][1];
  EXPECT_EQ(not_run["verdict"], "NOT RUN");
  EXPECT_TRUE(not_run["score"].is_null());
  EXPECT_TRUE(not_run["passed"].is_null());
  EXPECT_EQ(not_run["reasons"][0], "not_run in the sample");

  // Each linked point names the evaluation back, with the route that lists it.
  const std::int64_t point = scored["points"][0].get<std::int64_t>();
  const Json points = Get("/api/v1/points", "hardware=mi355x&framework=vllm&sequence=1k%2F1k");
  int linked = 0;
  for (const Json& p : points["points"]) {
    if (p["evaluations"].empty()) {
      EXPECT_TRUE(p["evaluations_url"].is_null());
      continue;
    }
    ++linked;
    EXPECT_EQ(p["evaluations_url"], "/api/v1/evaluations?point=" + std::to_string(p["id"].get<std::int64_t>()));
    EXPECT_TRUE(p["conc"] == 16 || p["conc"] == 64) << p.dump();
  }
  EXPECT_EQ(linked, 4);  // conc 16 and 64 of both nights
  const Json by_point = Get("/api/v1/evaluations", "point=" + std::to_string(point));
  ASSERT_EQ(by_point["count"], 1);
  EXPECT_EQ(by_point["evaluations"][0]["id"], scored["id"]);

  EXPECT_EQ(Get("/api/v1/evaluations", "status=not_run")["count"], 1);
  EXPECT_EQ(Get("/api/v1/evaluations", "verdict=pass")["count"], 1);
  EXPECT_EQ(Get("/api/v1/evaluations", "verdict=not%20run,pass")["count"], 2);
  EXPECT_EQ(Get("/api/v1/evaluations", "hardware=b200")["count"], 0);
  EXPECT_EQ(Get("/api/v1/evaluations", "run=nightly-1")["count"], 0);
  EXPECT_EQ(Get("/api/v1/evaluations", "run=nightly-2&task=gsm8k")["count"], 2);
  EXPECT_EQ(Get("/api/v1/meta")["store"]["evaluations"], 2);
  ExpectBadField("/api/v1/evaluations", "status=done", "status");
  ExpectBadField("/api/v1/evaluations", "verdict=maybe", "verdict");
  ExpectBadField("/api/v1/evaluations", "run=nightly-9", "run");
  ExpectBadField("/api/v1/evaluations", "point=x", "point");
  ExpectBadField("/api/v1/evaluations", "sequence=1k%2F1k", "sequence");
}

TEST_P(ApiTest, PointFiltersCombine) {
  const auto count = [this](const std::string& query) { return Get("/api/v1/points", query)["count"].get<int>(); };
  EXPECT_EQ(count(""), 21);
  EXPECT_EQ(count("kind=predicted"), 2);
  EXPECT_EQ(count("kind=measured,predicted"), 21);
  EXPECT_EQ(count("sequence=8k/1k"), 2);
  EXPECT_EQ(count("sequence=8k%2F1k"), 2);
  EXPECT_EQ(count("isl=8192&osl=1024"), 2);
  EXPECT_EQ(count("spec=mtp"), 2);
  EXPECT_EQ(count("spec=true"), 2);
  EXPECT_EQ(count("spec=false"), 19);
  EXPECT_EQ(count("spec=true&spec=false"), 21);
  EXPECT_EQ(count("precision=fp8"), 2);
  EXPECT_EQ(count("framework=sglang&run=nightly-2"), 4);
  EXPECT_EQ(count("run=1&run=2"), 19);
  EXPECT_EQ(count("run=nightly-1,predict-1"), 13);
  EXPECT_EQ(count("hardware=b200&hardware=mi355x&model=amd%2FMiniMax-M3-MXFP4"), 21);
  EXPECT_EQ(count("disagg=true"), 0);
  EXPECT_EQ(count("disagg=false"), 21);
  EXPECT_EQ(count("from=2026-11-02"), 10);
  EXPECT_EQ(count("to=2026-11-01"), 11);
  EXPECT_EQ(count("from=2026-11-08&to=2026-11-08T23:59:59Z"), 8);
  EXPECT_EQ(count("hardware=h100"), 0);
  const Json predicted = Get("/api/v1/points", "kind=predicted");
  EXPECT_EQ(predicted["points"][0]["series"], "mi355x · vllm · fp4 · predicted");
  EXPECT_EQ(Get("/api/v1/points", "spec=mtp")["points"][0]["series"], "b200 · sglang · fp8 · mtp");
}

TEST_P(ApiTest, MalformedOrUnknownParametersAre400sNamingTheField) {
  ExpectBadField("/api/v1/points", "colour=red", "colour");
  ExpectBadField("/api/v1/points", "isl=1k", "isl");
  ExpectBadField("/api/v1/points", "osl=-5", "osl");
  ExpectBadField("/api/v1/points", "kind=guessed", "kind");
  ExpectBadField("/api/v1/points", "disagg=maybe", "disagg");
  ExpectBadField("/api/v1/points", "from=2026-13-01", "from");
  ExpectBadField("/api/v1/points", "to=yesterday", "to");
  ExpectBadField("/api/v1/points", "from=2026-11-01&from=2026-11-02", "from");
  ExpectBadField("/api/v1/points", "run=nightly-9", "run");
  ExpectBadField("/api/v1/points", "model=%zz", "model");
  ExpectBadField("/api/v1/export.csv", "sequence=1k/1k&size=3", "size");
  ExpectBadField("/api/v1/runs", "hardware=b200", "hardware");
  ExpectBadField("/api/v1/meta", "verbose=1", "verbose");
  ExpectBadField("/api/v1/frontier", "x=conc", "x");
  ExpectBadField("/api/v1/frontier", "y=ttft", "y");
  ExpectBadField("/api/v1/iso", "y=tput_per_gpu", "interactivity");
  ExpectBadField("/api/v1/iso", "interactivity=fast", "interactivity");
  ExpectBadField("/api/v1/iso", "interactivity=0", "interactivity");
  ExpectBadField("/api/v1/history", "interactivity=50,60", "interactivity");
  ExpectBadField("/api/v1/compare", "base=nightly-1", "head");
  ExpectBadField("/api/v1/compare", "base=nope&head=nightly-2", "base");
  ExpectBadField("/api/v1/prices", "gpu=h100", "gpu");
  const Json missing = Get("/api/v1/nothing", "", 404);
  EXPECT_EQ(missing["error"]["status"], 404);
}

TEST_P(ApiTest, RunsListEveryRunWithCounts) {
  const Json runs = Get("/api/v1/runs")["runs"];
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0]["key"], "nightly-1");
  EXPECT_EQ(runs[0]["points"], 11);
  EXPECT_EQ(runs[0]["predicted_points"], 0);
  EXPECT_EQ(runs[0]["source"], "sweep");
  EXPECT_EQ(runs[0]["host"], "ci-host");
  EXPECT_EQ(runs[1]["points"], 8);
  EXPECT_EQ(runs[2]["key"], "predict-1");
  EXPECT_EQ(runs[2]["predicted_points"], 2);
  EXPECT_EQ(runs[2]["source"], "predict");
  EXPECT_FALSE(runs[2]["created_at"].get<std::string>().empty());
}

TEST_P(ApiTest, FrontierLeavesDominatedPointsOutPerSeries) {
  const Json body =
      Get("/api/v1/frontier", "run=nightly-1&sequence=1k/1k&precision=fp4&x=interactivity&y=tput_per_gpu");
  ASSERT_EQ(body["series"].size(), 2u);
  EXPECT_EQ(body["series"][0]["series"], "b200 · sglang · fp4");
  const Json& mi = body["series"][1];
  EXPECT_EQ(mi["series"], "mi355x · vllm · fp4");
  ASSERT_EQ(mi["points"].size(), 4u);  // conc 8 at half speed is dominated by conc 4
  // Interactivity ascending: conc 64 first.
  EXPECT_NEAR(mi["points"][0]["x"].get<double>(), test::SampleInteractivity(64), 1e-9);
  EXPECT_NEAR(mi["points"][0]["y"].get<double>(), test::SampleThroughput(64, 1), 1e-9);
  EXPECT_NEAR(mi["points"][3]["x"].get<double>(), test::SampleInteractivity(1), 1e-9);
  // Against latency (less is better) the same four, latency ascending.
  const Json e2e = Get("/api/v1/frontier", "run=nightly-1&hardware=mi355x&x=e2el_s");
  ASSERT_EQ(e2e["series"][0]["points"].size(), 4u);
  EXPECT_NEAR(e2e["series"][0]["points"][0]["x"].get<double>(), 1024 / test::SampleInteractivity(1), 1e-9);
  // J/token (less is better): only the powered points, and their ids are the points'.
  const Json energy = Get("/api/v1/frontier", "run=nightly-1&y=j_per_token");
  ASSERT_EQ(energy["series"].size(), 1u);
  const Json points = Get("/api/v1/points", "run=nightly-1&hardware=mi355x")["points"];
  std::set<long long> ids;
  for (const Json& p : points) ids.insert(p["id"].get<long long>());
  for (const Json& p : energy["series"][0]["points"]) EXPECT_TRUE(ids.count(p["id"].get<long long>()));
}

TEST_P(ApiTest, IsoReadsEachSeriesOnItsSplinedFrontier) {
  const Json body = Get("/api/v1/iso", "run=nightly-1&sequence=1k/1k&precision=fp4&interactivity=50,80,1000");
  ASSERT_EQ(body["rows"].size(), 2u);
  const Json& b200 = body["rows"][0];
  const Json& mi = body["rows"][1];
  EXPECT_EQ(b200["hardware"], "b200");
  EXPECT_EQ(mi["hardware"], "mi355x");
  ASSERT_EQ(mi["values"].size(), 3u);
  // The library's reading of the same curve (dominated point included: the frontier drops it).
  std::vector<results::ChartPoint> curve;
  for (int c : {1, 4, 16, 64}) curve.push_back({test::SampleInteractivity(c), test::SampleThroughput(c, 1), 0});
  curve.push_back({test::SampleInteractivity(8), test::SampleThroughput(8, 0.5), 0});
  for (std::size_t i = 0; i < 2; ++i) {
    const double target = mi["values"][i]["interactivity"].get<double>();
    const std::optional<double> expected = results::IsoThroughput(curve, target);
    ASSERT_TRUE(expected.has_value());
    EXPECT_NEAR(mi["values"][i]["y"].get<double>(), *expected, 1e-9);
    // b200 is the same curve at 1.5x throughput: 1.5x at every interactivity.
    EXPECT_NEAR(b200["values"][i]["y"].get<double>() / mi["values"][i]["y"].get<double>(), 1.5, 1e-9);
  }
  EXPECT_EQ(mi["values"][2]["y"], nullptr);  // 1000 tok/s/user: beyond the frontier
  // Output throughput is half the total on every point: the spline keeps it half.
  const Json out = Get("/api/v1/iso", "run=nightly-1&hardware=mi355x&interactivity=50&y=output_tput_per_gpu");
  EXPECT_NEAR(out["rows"][0]["values"][0]["y"].get<double>() * 2, mi["values"][0]["y"].get<double>(), 1e-6);
  // Energy per token at 700 W per GPU: 700 J/s over output tok/s.
  const Json energy = Get("/api/v1/iso", "run=nightly-1&hardware=mi355x&interactivity=50&y=j_per_token");
  EXPECT_NEAR(energy["rows"][0]["values"][0]["y"].get<double>(), 700 / (mi["values"][0]["y"].get<double>() / 2), 1e-6);
}

TEST_P(ApiTest, HistoryFlagsTheSlowerNightAsARegression) {
  const Json body = Get("/api/v1/history", "sequence=1k/1k&precision=fp4&kind=measured&interactivity=50");
  ASSERT_EQ(body["series"].size(), 2u);
  const Json& b200 = body["series"][0];
  const Json& mi = body["series"][1];
  ASSERT_EQ(mi["dates"].size(), 2u);
  EXPECT_EQ(mi["dates"][0]["date"], "2026-11-01");
  EXPECT_EQ(mi["dates"][0]["regression"], false);
  EXPECT_EQ(mi["dates"][0]["change_pct"], nullptr);
  EXPECT_EQ(mi["dates"][1]["date"], "2026-11-08");
  EXPECT_EQ(mi["dates"][1]["run_id"], 2);
  // The half-speed conc 8 point of night 1 is off its frontier, so night 2 reads 0.8x of night 1.
  EXPECT_NEAR(mi["dates"][1]["change_pct"].get<double>(), -20, 1e-6);
  EXPECT_EQ(mi["dates"][1]["regression"], true);
  // Night 2's points were repeated: its value's interval, and the test that flagged it (night 1's
  // dominated conc 8 point was measured once, so night 1's value has no repeats of its own).
  EXPECT_EQ(mi["dates"][1]["repeats"], 3);
  EXPECT_LT(mi["dates"][1]["y_low"].get<double>(), mi["dates"][1]["y"].get<double>());
  EXPECT_EQ(mi["dates"][1]["test"], "prediction-log");
  EXPECT_EQ(mi["dates"][1]["status"], "regression");
  EXPECT_NEAR(b200["dates"][1]["change_pct"].get<double>(), 0, 1e-9);
  EXPECT_EQ(b200["dates"][1]["regression"], false);
  EXPECT_EQ(b200["dates"][1]["status"], "unchanged");  // no noise estimate, but below the minimum effect
}

TEST_P(ApiTest, CompareGivesResultsCompareRows) {
  const Json body = Get("/api/v1/compare", "base=nightly-1&head=2");
  EXPECT_EQ(body["base"]["key"], "nightly-1");
  EXPECT_EQ(body["head"]["key"], "nightly-2");
  EXPECT_EQ(body["min_effect_pct"], 5.0);
  EXPECT_EQ(body["alpha"], 0.05);
  bool found = false;
  for (const Json& row : body["rows"]) {
    const std::string key = row["key"];
    if (row["metric"] == "tput_per_gpu" && key.find("mi355x") != std::string::npos) {
      EXPECT_NEAR(row["change_pct"].get<double>(), -20, 1e-6) << key;
      EXPECT_EQ(row["regression"], true);
      // The evidence: Welch's test on the three repeats of each side.
      EXPECT_EQ(row["status"], "regression");
      EXPECT_EQ(row["test"], "welch-log");
      EXPECT_LT(row["p_value"].get<double>(), 0.001);
      EXPECT_EQ(row["base_repeats"], 3);
      EXPECT_EQ(row["head_repeats"], 3);
      EXPECT_LT(row["change_high_pct"].get<double>(), -5);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(body["point_regressions"], 4);  // mi355x's four points; b200 unchanged
  EXPECT_EQ(body["only_base"].size(), 3u);  // conc 8 and the two MTP points
  EXPECT_EQ(body["only_head"].size(), 0u);
  // The frontier samples' own tests (the repeats' frontiers, p 0.03-0.09) do not stand out among the
  // comparison's 24 tests once they share alpha; each judged alone, some do.
  EXPECT_EQ(body["multiple"], "bh");
  EXPECT_EQ(body["frontier_regressions"], 0);
  for (const Json& row : body["rows"]) {
    if (row["p_value"].is_null()) continue;
    EXPECT_EQ(row["tests_in_comparison"], 24) << row.dump();
    EXPECT_GE(row["p_adjusted"].get<double>(), row["p_value"].get<double>()) << row.dump();
  }
  const Json alone = Get("/api/v1/compare", "base=nightly-1&head=2&multiple=none");
  EXPECT_EQ(alone["point_regressions"], 4);
  EXPECT_GE(alone["frontier_regressions"].get<int>(), 1);
  ExpectBadField("/api/v1/compare", "base=nightly-1&head=2&multiple=sidak", "multiple");
}

TEST_P(ApiTest, PricesComeFromThePriceTable) {
  const Json body = Get("/api/v1/prices");
  ASSERT_EQ(body["prices"].size(), 1u);
  EXPECT_EQ(body["prices"][0]["gpu"], "mi355x");
}

TEST_P(ApiTest, ExportCsvHasUnitsInHeadersAndOneRowPerPoint) {
  ApiSources sources;
  const ApiReply reply = HandleApi(snapshot_, sources, "/api/v1/export.csv", "kind=predicted");
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.content_type, "text/csv; charset=utf-8");
  std::vector<std::string> lines;
  std::string line;
  for (char c : reply.body) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  ASSERT_EQ(lines.size(), 3u);  // header and two predicted points
  EXPECT_NE(lines[0].find(",tput_per_gpu [tok/s/GPU],"), std::string::npos);
  EXPECT_NE(lines[0].find(",interactivity [tok/s/user],"), std::string::npos);
  EXPECT_NE(lines[0].find(",cost_per_m_tokens [USD/M output tokens],"), std::string::npos);
  EXPECT_NE(lines[1].find(",predicted,2026-11-09,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(",8k/1k,8192,1024,"), std::string::npos) << lines[1];
}

}  // namespace
}  // namespace infermark::dashboard
