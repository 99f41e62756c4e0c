// The API's model-error bands: a predicted point carries its bands in the API's units (cost's band
// from the output throughput's, reversed), a measured one null; a predicted frontier carries its
// band as the optimistic and pessimistic corners of its points, a measured frontier none.
#include <gtest/gtest.h>

#include <filesystem>

#include "dashboard/api.hpp"
#include "dashboard/snapshot.hpp"
#include "dashboard_fixture.hpp"
#include "store/store_url.hpp"

namespace infermark::dashboard {
namespace {

class BandApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::TempDir("bands");
    auto store = results::OpenStoreUrl("sqlite:" + (dir_ / "store.db").string());
    results::sample::SampleSpec measured;
    results::sample::SampleSpec predicted = measured;
    predicted.kind = results::PointKind::kPredicted;
    std::vector<results::Point> guesses;
    for (results::Point& p : test::DatedCurve(predicted, {1, 4, 16, 64}, "2026-11-09"))
      guesses.push_back(results::sample::WithPredictionBand(p, 0.1, 0.2));
    store->Ingest({"nightly", "", "recipes", "ci-host", "0.1.0", "sweep"},
                  test::DatedCurve(measured, {1, 4, 16, 64}, "2026-11-09"));
    store->Ingest({"predict", "", "recipes", "laptop", "0.1.0", "predict"}, guesses);
    const PriceLookup prices = [](const std::string&, const std::string&) -> std::optional<double> { return 2.0; };
    snapshot_ = LoadSnapshot(*store, "sqlite", prices);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Json Get(const std::string& path, const std::string& query) {
    const ApiReply reply = HandleApi(snapshot_, ApiSources{}, path, query);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return Json::parse(reply.body);
  }

  std::filesystem::path dir_;
  Snapshot snapshot_;
};

TEST_F(BandApiTest, PredictedPointsCarryTheirBandsInTheApisUnits) {
  const Json body = Get("/api/v1/points", "");
  int predicted = 0;
  for (const Json& p : body["points"]) {
    const Json& band = p["prediction_band"];
    if (p["kind"] == "measured") {
      EXPECT_TRUE(band.is_null());
      continue;
    }
    ++predicted;
    EXPECT_EQ(band["scope"], "vllm/amd");
    EXPECT_EQ(band["residuals"], 403);
    const double tput = p["tput_per_gpu"].get<double>();
    EXPECT_NEAR(band["tput_per_gpu"]["band_p10"].get<double>(), 0.9 * tput, 1e-9 * tput);
    EXPECT_NEAR(band["interactivity"]["band_p90"].get<double>(), 1.1 * p["interactivity"].get<double>(), 1e-9);
    EXPECT_NEAR(band["ttft_ms"]["band_p90"].get<double>(), 1.2 * p["ttft_ms"].get<double>(), 1e-9);
    // Cost per token falls as output throughput rises: its low edge comes from the high one.
    const double cost = p["cost_per_m_tokens"].get<double>();
    EXPECT_NEAR(band["cost_per_m_tokens"]["band_p10"].get<double>(), cost / 1.1, 1e-9 * cost);
    EXPECT_NEAR(band["cost_per_m_tokens"]["band_p90"].get<double>(), cost / 0.9, 1e-9 * cost);
  }
  EXPECT_EQ(predicted, 4);
}

TEST_F(BandApiTest, APredictedFrontierCarriesItsBandAndAMeasuredOneNone) {
  for (const auto& [x, higher_x_better] : {std::pair{"interactivity", true}, std::pair{"e2el_s", false}}) {
    const Json body = Get("/api/v1/frontier", std::string("x=") + x + "&y=tput_per_gpu");
    ASSERT_EQ(body["series"].size(), 2u);
    for (const Json& s : body["series"]) {
      const bool predicted = s["series"].get<std::string>().ends_with("predicted");
      ASSERT_EQ(s.contains("band"), predicted) << s.dump();
      if (!predicted) continue;
      const Json& front = s["points"];
      const Json& good = s["band"]["optimistic"];
      const Json& bad = s["band"]["pessimistic"];
      ASSERT_EQ(good.size(), front.size());
      ASSERT_EQ(bad.size(), front.size());
      const double x_spread = higher_x_better ? 0.1 : 0.2;  // interactivity ±10 %, latency ±20 %
      for (std::size_t i = 0; i < front.size(); ++i) {
        const double fx = front[i]["x"].get<double>();
        const double fy = front[i]["y"].get<double>();
        EXPECT_NEAR(good[i]["y"].get<double>(), 1.1 * fy, 1e-9 * fy);
        EXPECT_NEAR(bad[i]["y"].get<double>(), 0.9 * fy, 1e-9 * fy);
        EXPECT_NEAR(good[i]["x"].get<double>(), fx * (higher_x_better ? 1 + x_spread : 1 - x_spread), 1e-9 * fx);
        EXPECT_NEAR(bad[i]["x"].get<double>(), fx * (higher_x_better ? 1 - x_spread : 1 + x_spread), 1e-9 * fx);
      }
    }
  }
  // Cost is better low: the optimistic corner is the cheaper one; energy has no band (no power).
  const Json cost = Get("/api/v1/frontier", "x=interactivity&y=cost_per_m_tokens");
  for (const Json& s : cost["series"]) {
    if (!s.contains("band")) continue;
    EXPECT_LT(s["band"]["optimistic"][0]["y"].get<double>(), s["points"][0]["y"].get<double>());
  }
  for (const Json& s : Get("/api/v1/frontier", "x=interactivity&y=j_per_token")["series"])
    EXPECT_FALSE(s.contains("band"));
}

}  // namespace
}  // namespace infermark::dashboard
