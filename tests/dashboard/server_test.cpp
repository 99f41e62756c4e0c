// The dashboard server over HTTP: the page and its assets, the token, the bind rule, store URLs, a
// newer store refused and an older one migrated, and a reload when the store changes.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"
#include "dashboard/assets.hpp"
#include "dashboard/dashboard_server.hpp"
#include "dashboard_fixture.hpp"
#include "http/client.hpp"
#include "store/postgres_test_server.hpp"

namespace infermark::dashboard {
namespace {

namespace fs = std::filesystem;

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::TempDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    path_ = (dir_ / "store.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  static http::FetchResult Fetch(std::uint16_t port, const std::string& target, http::Headers headers = {},
                                 const std::string& method = "GET") {
    http::ClientOptions options;
    options.port = port;
    http::Client client(options);
    http::ClientRequest request;
    request.method = method;
    request.target = target;
    request.content_type.clear();
    request.headers = std::move(headers);
    return client.Fetch(request);
  }

  static std::string Header(const http::FetchResult& r, const std::string& name) {
    const auto value = http::FindHeader(r.head.headers, name);
    return value ? std::string(*value) : std::string();
  }

  // The message of the InputError that opening `options` throws.
  static std::string Refusal(DashboardOptions options) {
    try {
      DashboardServer server(std::move(options));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(ServerTest, ServesPageAssetsHealthAndApi) {
  test::FillStore(path_);
  DashboardServer server({"sqlite:" + path_, "127.0.0.1", 0, "", std::chrono::milliseconds(60'000), ""});
  server.Start();
  ASSERT_NE(server.port(), 0);
  EXPECT_EQ(server.Url(), "http://127.0.0.1:" + std::to_string(server.port()) + "/");
  const http::FetchResult health = Fetch(server.port(), "/health");
  EXPECT_EQ(health.head.status, 200);
  EXPECT_EQ(health.body, "ok");
  const http::FetchResult page = Fetch(server.port(), "/");
  EXPECT_EQ(page.head.status, 200);
  EXPECT_EQ(Header(page, "Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(page.body, std::string(IndexPage().body));
  EXPECT_NE(page.body.find("<html"), std::string::npos);
  for (const std::string& name : AssetNames()) {
    const http::FetchResult asset = Fetch(server.port(), "/assets/" + name);
    EXPECT_EQ(asset.head.status, 200) << name;
    EXPECT_EQ(asset.body, std::string(FindAsset(name)->body)) << name;
    EXPECT_EQ(Header(asset, "Content-Type"), std::string(ContentTypeFor(name))) << name;
  }
  EXPECT_EQ(Fetch(server.port(), "/assets/no-such-file.js").head.status, 404);
  EXPECT_EQ(Fetch(server.port(), "/elsewhere").head.status, 404);
  EXPECT_EQ(Fetch(server.port(), "/api/v1/meta", {}, "POST").head.status, 405);  // read-only
  EXPECT_EQ(Fetch(server.port(), "/api/v1/runs", {}, "DELETE").head.status, 405);
  const http::FetchResult meta = Fetch(server.port(), "/api/v1/meta");
  EXPECT_EQ(meta.head.status, 200);
  EXPECT_EQ(Json::parse(meta.body)["store"]["points"], 21);
  const http::FetchResult bad = Fetch(server.port(), "/api/v1/points?conc=4");
  EXPECT_EQ(bad.head.status, 400);
  EXPECT_EQ(Json::parse(bad.body)["error"]["field"], "conc");
  const http::FetchResult csv = Fetch(server.port(), "/api/v1/export.csv?kind=predicted");
  EXPECT_EQ(Header(csv, "Content-Type"), "text/csv; charset=utf-8");
  server.Stop();
}

TEST_F(ServerTest, FilesAreRevalidatedByTheirTagAndTheApiIsNeverKept) {
  test::FillStore(path_);
  DashboardServer server({"sqlite:" + path_, "127.0.0.1", 0, "", std::chrono::milliseconds(60'000), ""});
  server.Start();
  const http::FetchResult first = Fetch(server.port(), "/assets/chart.umd.min.js");
  EXPECT_EQ(Header(first, "Cache-Control"), "no-cache");
  const std::string tag = Header(first, "ETag");
  ASSERT_EQ(tag.size(), 34u) << tag;  // a quoted content hash
  // The browser's copy is current: 304 and no body.
  const http::FetchResult same = Fetch(server.port(), "/assets/chart.umd.min.js", {{"If-None-Match", "W/" + tag}});
  EXPECT_EQ(same.head.status, 304);
  EXPECT_TRUE(same.body.empty());
  EXPECT_EQ(Header(same, "ETag"), tag);
  EXPECT_EQ(Fetch(server.port(), "/assets/chart.umd.min.js", {{"If-None-Match", "\"old\", " + tag}}).head.status, 304);
  // Another file's tag, or a stale one: the whole file again.
  const std::string app_tag = Header(Fetch(server.port(), "/assets/app.js"), "ETag");
  EXPECT_NE(app_tag, tag);
  const http::FetchResult other = Fetch(server.port(), "/assets/chart.umd.min.js", {{"If-None-Match", app_tag}});
  EXPECT_EQ(other.head.status, 200);
  EXPECT_EQ(other.body, std::string(FindAsset("chart.umd.min.js")->body));
  const http::FetchResult point_page = Fetch(server.port(), "/point/1");
  EXPECT_EQ(Fetch(server.port(), "/point/2", {{"If-None-Match", Header(point_page, "ETag")}}).head.status, 304);
  // Data is never kept: every API reply is fetched anew.
  const http::FetchResult meta = Fetch(server.port(), "/api/v1/meta", {{"If-None-Match", "*"}});
  EXPECT_EQ(meta.head.status, 200);
  EXPECT_EQ(Header(meta, "Cache-Control"), "no-store");
  EXPECT_EQ(Header(meta, "ETag"), "");
  server.Stop();
}

TEST_F(ServerTest, TokenGuardsTheApi) {
  test::FillStore(path_);
  DashboardServer server({path_, "127.0.0.1", 0, "s3cret/+x", std::chrono::milliseconds(60'000), ""});
  server.Start();
  const http::FetchResult none = Fetch(server.port(), "/api/v1/runs");
  EXPECT_EQ(none.head.status, 401);
  EXPECT_EQ(Json::parse(none.body)["error"]["field"], "token");
  EXPECT_EQ(Fetch(server.port(), "/api/v1/runs", {{"Authorization", "Bearer wrong"}}).head.status, 401);
  EXPECT_EQ(Fetch(server.port(), "/api/v1/runs?token=s3cre").head.status, 401);
  EXPECT_EQ(Fetch(server.port(), "/api/v1/runs?token=s3cret/+x").head.status, 401);  // '+' decodes to a space
  const http::FetchResult header = Fetch(server.port(), "/api/v1/runs", {{"Authorization", "Bearer s3cret/+x"}});
  EXPECT_EQ(header.head.status, 200);
  EXPECT_EQ(Json::parse(header.body)["runs"].size(), 3u);
  EXPECT_EQ(Fetch(server.port(), "/api/v1/points?token=s3cret%2F%2Bx&kind=predicted").head.status, 200);
  EXPECT_EQ(Fetch(server.port(), "/health").head.status, 200);  // the page and health need no token
  server.Stop();
}

TEST_F(ServerTest, BindingBeyondThisHostNeedsAToken) {
  test::FillStore(path_);
  EXPECT_NE(Refusal({path_, "0.0.0.0", 0, "", std::chrono::milliseconds(1000), ""}).find("--token"), std::string::npos);
  EXPECT_TRUE(IsLoopback("127.0.0.1"));
  EXPECT_TRUE(IsLoopback("::1"));
  EXPECT_TRUE(IsLoopback("localhost"));
  EXPECT_FALSE(IsLoopback("0.0.0.0"));
  EXPECT_FALSE(IsLoopback("::"));
  EXPECT_EQ(Refusal({path_, "0.0.0.0", 0, "t", std::chrono::milliseconds(1000), ""}), "");
}

TEST_F(ServerTest, UnknownOrMissingStoresAreClearErrors) {
  const std::string scheme = Refusal({"mysql://db/results", "127.0.0.1", 0, "", std::chrono::milliseconds(1000), ""});
  EXPECT_NE(scheme.find("unknown store URL scheme 'mysql'"), std::string::npos) << scheme;
  const std::string missing = Refusal({"sqlite:" + path_, "127.0.0.1", 0, "", std::chrono::milliseconds(1000), ""});
  EXPECT_NE(missing.find("no results store here"), std::string::npos) << missing;
  EXPECT_FALSE(fs::exists(path_));  // read-only: nothing created
}

TEST_F(ServerTest, NewerStoreIsRefusedOlderStoreIsMigrated) {
  {
    results::StoreOptions v1;
    v1.target_schema_version = 1;
    auto old_store = results::OpenStore(path_, v1);
    ASSERT_EQ(old_store->SchemaVersion(), 1);
    old_store->Ingest({"old", "", "", "h", "0.0.1", "sweep"}, results::sample::SampleCurve({}, {1, 2}));
  }
  {
    DashboardServer server({path_, "127.0.0.1", 0, "", std::chrono::milliseconds(1000), ""});
    EXPECT_EQ(server.snapshot()->schema_version, results::CurrentSchemaVersion());
    EXPECT_EQ(server.snapshot()->points.size(), 2u);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE schema_version SET version = 999", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const std::string newer = Refusal({path_, "127.0.0.1", 0, "", std::chrono::milliseconds(1000), ""});
  EXPECT_NE(newer.find("newer"), std::string::npos) << newer;
}

TEST_F(ServerTest, ReloadsWhenTheStoreChanges) {
  test::FillStore(path_);
  DashboardServer server({path_, "127.0.0.1", 0, "", std::chrono::milliseconds(50), ""});
  server.Start();
  EXPECT_EQ(server.snapshot()->runs.size(), 3u);
  {
    auto writer = results::OpenStore(path_);
    results::sample::SampleSpec h100;
    h100.hw = "h100";
    writer->Ingest({"nightly-3", "", "", "h", "0.1.0", "sweep"}, results::sample::SampleCurve(h100, {2, 8}));
  }
  // The poll (every 50 ms) picks the new run up.
  for (int i = 0; i < 200 && server.snapshot()->runs.size() != 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const Json runs = Json::parse(Fetch(server.port(), "/api/v1/runs").body)["runs"];
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[3]["key"], "nightly-3");
  EXPECT_EQ(Json::parse(Fetch(server.port(), "/api/v1/points?hardware=h100").body)["count"], 2);
  EXPECT_FALSE(server.ReloadIfChanged());  // nothing new since
  server.Stop();
}

TEST_F(ServerTest, PriceTableCostsPointsAndIsServed) {
  test::FillStore(path_);
  const fs::path prices = dir_ / "prices";
  fs::create_directories(prices);
  std::ofstream(prices / "test.yaml") << "prices:\n"
                                         "  - date: 2026-10-01\n"
                                         "    tier: hyperscaler\n"
                                         "    source: test survey\n"
                                         "    url: https://example.org/prices\n"
                                         "    usd_per_gpu_hour: {mi355x: 2.5, b200: 3.0}\n";
  DashboardServer server({path_, "127.0.0.1", 0, "", std::chrono::milliseconds(60'000), prices.string()});
  server.Start();
  const Json table = Json::parse(Fetch(server.port(), "/api/v1/prices").body);
  ASSERT_EQ(table["prices"].size(), 2u);
  EXPECT_EQ(table["prices"][0]["source"], "test survey");
  const Json points = Json::parse(Fetch(server.port(), "/api/v1/points?hardware=b200&run=nightly-2").body)["points"];
  ASSERT_EQ(points.size(), 4u);
  for (const Json& p : points) {
    EXPECT_NEAR(p["cost_per_m_tokens"].get<double>(), 3.0 * 1e6 / (3600 * p["output_tput_per_gpu"].get<double>()),
                1e-9);
  }
  server.Stop();
}

TEST_F(ServerTest, ServesAPostgresStoreNamedByUrl) {
  const auto database = infermark::test::FreshPostgresDatabase("dashboard_server_pg");
  if (!database) GTEST_SKIP() << infermark::test::PostgresSkipReason();
  test::FillStore(database->url);
  DashboardServer server({database->url, "127.0.0.1", 0, "", std::chrono::milliseconds(60'000), ""});
  server.Start();
  const Json meta = Json::parse(Fetch(server.port(), "/api/v1/meta").body);
  EXPECT_EQ(meta["store"]["kind"], "postgresql");
  EXPECT_EQ(meta["store"]["schema_version"], results::CurrentSchemaVersion());
  EXPECT_EQ(meta["store"]["points"], 21);
  const Json compare = Json::parse(Fetch(server.port(), "/api/v1/compare?base=nightly-1&head=nightly-2").body);
  EXPECT_EQ(compare["point_regressions"], 4);
  server.Stop();
}

}  // namespace
}  // namespace infermark::dashboard
