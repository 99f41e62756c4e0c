// Points their run judged INVALID, through the API on both stores: every point says its verdict and
// reasons and its power validity; no frontier, iso value or history entry uses an INVALID point;
// `valid=true` (the page's *Show INVALID points* unticked) leaves them out of the point routes.
// Points stored with a cluster runner label as their hardware are served under the label's GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "dashboard/api.hpp"
#include "dashboard/snapshot.hpp"
#include "dashboard_fixture.hpp"
#include "report/iso_interactivity.hpp"
#include "store/postgres_test_server.hpp"
#include "store/store_url.hpp"

namespace infermark::dashboard {
namespace {

constexpr const char* kReasonLag = "client saturated: p99 event-loop lag 3.412 ms, over 1.000 ms";
constexpr const char* kReasonSlip =
    "engine behind its model (clock slips): 41 passes started more than 5 ms late, losing 388.2 ms, 1.29 % of the "
    "measured window, over 1.00 %";

// A VALID mi355x sweep on two nights (700 W of valid power on the first), and on the second night
// an INVALID point at twice the speed that would top the frontier if it counted; a third night of
// INVALID points at half the speed that would flag a regression if they counted; and an agentic-style
// run whose hardware is the runner label `cluster:mi355x-local`.
void FillValidityStore(const std::string& url) {
  auto store = results::OpenStoreUrl(url);
  const results::sample::SampleSpec sweep;
  const std::vector<int> concs = {1, 4, 16, 64};
  store->Ingest({"night-1", "Night 1", "recipes", "ci", "0.1.0", "sweep"},
                test::DatedCurve(sweep, concs, "2026-11-01", 700));

  std::vector<results::Point> second = test::DatedCurve(sweep, concs, "2026-11-08");
  results::sample::SampleSpec fast = sweep;
  fast.speed = 2;
  results::Point invalid = test::DatedCurve(fast, {8}, "2026-11-08").front();
  invalid.provenance.verdict = std::string("INVALID: ") + kReasonLag + "; " + kReasonSlip;
  invalid.agg["power_valid"] = 0;
  second.push_back(invalid);
  store->Ingest({"night-2", "Night 2", "recipes", "ci", "0.1.0", "sweep"}, second);

  results::sample::SampleSpec slow = sweep;
  slow.speed = 0.5;
  std::vector<results::Point> third = test::DatedCurve(slow, concs, "2026-11-15");
  for (results::Point& p : third) p.provenance.verdict = std::string("INVALID: ") + kReasonLag;
  store->Ingest({"night-3", "Night 3", "recipes", "ci", "0.1.0", "sweep"}, third);

  results::sample::SampleSpec labelled = sweep;
  labelled.hw = "cluster:mi355x-local";
  labelled.precision = "fp8";
  store->Ingest({"agentic-label", "", "recipes", "ci", "0.1.0", "sweep"},
                test::DatedCurve(labelled, {4}, "2026-11-08"));
}

class ValidityTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = test::TempDir("validity_" + std::to_string(std::hash<std::string>{}(name)));
    std::string url = "sqlite:" + (dir_ / "store.db").string();
    if (GetParam() == "postgresql") {
      database_ = infermark::test::FreshPostgresDatabase(name);
      if (!database_) GTEST_SKIP() << infermark::test::PostgresSkipReason();
      url = database_->url;
    }
    FillValidityStore(url);
    store_ = results::OpenStoreUrl(url);
    snapshot_ = LoadSnapshot(*store_, GetParam(), {});
  }
  void TearDown() override {
    store_.reset();
    database_.reset();
    std::filesystem::remove_all(dir_);
  }

  Json Get(const std::string& path, const std::string& query) {
    const ApiReply reply = HandleApi(snapshot_, ApiSources{}, path, query);
    EXPECT_EQ(reply.status, 200) << path << "?" << query << ": " << reply.body;
    return Json::parse(reply.body);
  }

  // Ids of the INVALID points among `points`.
  static std::set<long long> InvalidIds(const Json& points) {
    std::set<long long> ids;
    for (const Json& p : points) {
      if (!p["valid"].get<bool>()) ids.insert(p["id"].get<long long>());
    }
    return ids;
  }

  std::filesystem::path dir_;
  std::unique_ptr<infermark::test::PostgresDatabase> database_;
  std::unique_ptr<results::ResultStore> store_;
  Snapshot snapshot_;
};

INSTANTIATE_TEST_SUITE_P(Stores, ValidityTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

TEST_P(ValidityTest, EveryPointCarriesItsVerdictReasonsAndPowerValidity) {
  const Json body = Get("/api/v1/points", "run=night-2");
  ASSERT_EQ(body["count"], 5);
  int invalid = 0;
  for (const Json& p : body["points"]) {
    if (p["conc"] == 8) {
      ++invalid;
      EXPECT_EQ(p["valid"], false);
      EXPECT_EQ(p["verdict"], "INVALID");
      EXPECT_EQ(p["invalid_reasons"], Json::array({kReasonLag, kReasonSlip}));
      EXPECT_EQ(p["power_valid"], false);
      EXPECT_EQ(p["j_per_token"], nullptr);
      EXPECT_EQ(p["w_per_gpu"], nullptr);
    } else {
      EXPECT_EQ(p["valid"], true);
      EXPECT_EQ(p["verdict"], "VALID");
      EXPECT_EQ(p["invalid_reasons"], Json::array());
      EXPECT_EQ(p["power_valid"], nullptr);  // no telemetry on night 2
    }
    EXPECT_EQ(p["power_invalid_reasons"].is_array(), true);
  }
  EXPECT_EQ(invalid, 1);
  // Night 1: valid power, so J/token.
  for (const Json& p : Get("/api/v1/points", "run=night-1")["points"]) {
    EXPECT_EQ(p["power_valid"], true);
    EXPECT_NE(p["j_per_token"], nullptr);
  }
}

TEST_P(ValidityTest, ValidFilterLeavesOutOrKeepsOnlyInvalidPoints) {
  const Json all = Get("/api/v1/points", "hardware=mi355x&precision=fp4");
  EXPECT_EQ(all["count"], 13);
  EXPECT_EQ(InvalidIds(all["points"]).size(), 5u);
  const Json valid = Get("/api/v1/points", "hardware=mi355x&precision=fp4&valid=true");
  EXPECT_EQ(valid["count"], 8);
  EXPECT_TRUE(InvalidIds(valid["points"]).empty());
  const Json only = Get("/api/v1/points", "valid=false");
  EXPECT_EQ(only["count"], 5);
  EXPECT_EQ(InvalidIds(only["points"]).size(), 5u);
  const ApiReply twice = HandleApi(snapshot_, ApiSources{}, "/api/v1/points", "valid=true&valid=false");
  EXPECT_EQ(twice.status, 400);
  EXPECT_EQ(Json::parse(twice.body)["error"]["field"], "valid");
  const ApiReply bad = HandleApi(snapshot_, ApiSources{}, "/api/v1/points", "valid=maybe");
  EXPECT_EQ(bad.status, 400);
  // The CSV export says the same, before the host error's columns (none here) and the repeats' (a
  // point measured once: 1, no intervals).
  const ApiReply csv = HandleApi(snapshot_, ApiSources{}, "/api/v1/export.csv", "run=night-2&valid=false");
  ASSERT_EQ(csv.status, 200);
  EXPECT_NE(csv.body.find(",valid,verdict,invalid_reasons,power_valid,power_invalid_reasons,host_error_kind,"),
            std::string::npos);
  EXPECT_NE(csv.body.find(",host_error_marks,repeats,"), std::string::npos);
  // The reasons hold a comma: the cell is quoted (RFC 4180).
  EXPECT_NE(
      csv.body.find(std::string(",false,INVALID,\"") + kReasonLag + "; " + kReasonSlip + "\",false,,,,,,1,,,,,\n"),
      std::string::npos)
      << csv.body;
}

TEST_P(ValidityTest, NoFrontierContainsAnInvalidPointWhateverTheFilters) {
  const std::set<long long> invalid = InvalidIds(Get("/api/v1/points", "")["points"]);
  ASSERT_EQ(invalid.size(), 5u);
  for (const std::string query :
       {"", "valid=false", "run=night-2", "run=night-3", "x=e2el_s", "y=output_tput_per_gpu", "y=cost_per_m_tokens"}) {
    for (const Json& s : Get("/api/v1/frontier", query)["series"]) {
      for (const Json& p : s["points"]) {
        EXPECT_EQ(invalid.count(p["id"].get<long long>()), 0u) << query << ": " << s.dump();
      }
    }
  }
  // Night 2's frontier is its VALID sweep: four points, the faster INVALID conc 8 left out.
  const Json night2 = Get("/api/v1/frontier", "run=night-2&precision=fp4");
  ASSERT_EQ(night2["series"].size(), 1u);
  EXPECT_EQ(night2["series"][0]["points"].size(), 4u);
  // Night 3 holds INVALID points only: no frontier at all.
  EXPECT_TRUE(Get("/api/v1/frontier", "run=night-3")["series"].empty());
}

TEST_P(ValidityTest, IsoValuesReadTheValidSweepOnly) {
  // At conc 8's interactivity the INVALID point would double night 2's value.
  const double at8 = test::SampleInteractivity(8);
  const Json body = Get("/api/v1/iso", "run=night-2&precision=fp4&interactivity=" + std::to_string(at8));
  ASSERT_EQ(body["rows"].size(), 1u);
  std::vector<results::ChartPoint> curve;
  for (int c : {1, 4, 16, 64}) curve.push_back({test::SampleInteractivity(c), test::SampleThroughput(c, 1), 0});
  const std::optional<double> expected = results::IsoThroughput(curve, std::stod(std::to_string(at8)));
  ASSERT_TRUE(expected.has_value());
  EXPECT_NEAR(body["rows"][0]["values"][0]["y"].get<double>(), *expected, 1e-6);
  EXPECT_LT(body["rows"][0]["values"][0]["y"].get<double>(), test::SampleThroughput(8, 2) * 0.75);
  EXPECT_TRUE(Get("/api/v1/iso", "run=night-3&interactivity=50")["rows"].empty());
}

TEST_P(ValidityTest, HistoryNeitherDatesNorFlagsInvalidRuns) {
  const Json body = Get("/api/v1/history", "hardware=mi355x&precision=fp4&interactivity=50");
  ASSERT_EQ(body["series"].size(), 1u);
  const Json& dates = body["series"][0]["dates"];
  // Night 3's half-speed INVALID points would be a -50 % regression: they have no entry.
  ASSERT_EQ(dates.size(), 2u) << dates.dump();
  EXPECT_EQ(dates[0]["date"], "2026-11-01");
  EXPECT_EQ(dates[1]["date"], "2026-11-08");
  EXPECT_NEAR(dates[1]["change_pct"].get<double>(), 0, 1e-9);  // the INVALID conc 8 moved nothing
  for (const Json& d : dates) EXPECT_EQ(d["regression"], false);
}

TEST_P(ValidityTest, ClusterRunnerLabelIsServedAsItsGpu) {
  const Json meta = Get("/api/v1/meta", "");
  EXPECT_EQ(meta["filters"]["hardware"], Json::array({"mi355x"}));
  const Json labelled = Get("/api/v1/points", "run=agentic-label");
  ASSERT_EQ(labelled["count"], 1);
  EXPECT_EQ(labelled["points"][0]["hardware"], "mi355x");
  EXPECT_EQ(labelled["points"][0]["series"], "mi355x · vllm · fp8");
  EXPECT_EQ(Get("/api/v1/points", "hardware=mi355x&precision=fp8")["count"], 1);
}

}  // namespace
}  // namespace infermark::dashboard
