// Store URLs and what is particular to the PostgreSQL store: URL schemes and their errors,
// passwords kept out of messages, an unreachable server, a database that is not a store, several
// processes opening a new store at once (migrated once, under the advisory lock), and the CLI on a
// PostgreSQL store.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/diagnostic.hpp"
#include "postgres_test_server.hpp"
#include "results/sample_points.hpp"
#include "run_binary.hpp"
#include "store/postgres_db.hpp"
#include "store/result_store.hpp"
#include "store/store_url.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(StoreUrl, SchemesPathsAndErrors) {
  EXPECT_EQ(ParseStoreUrl("results/infermark.db").kind, StoreKind::kSqlite);
  EXPECT_EQ(ParseStoreUrl("results/infermark.db").location, "results/infermark.db");
  EXPECT_EQ(ParseStoreUrl("sqlite:results/x.db").location, "results/x.db");
  EXPECT_EQ(ParseStoreUrl("sqlite:///abs/x.db").location, "/abs/x.db");
  EXPECT_EQ(ParseStoreUrl("postgresql://u@h:5/db").kind, StoreKind::kPostgres);
  EXPECT_EQ(ParseStoreUrl("postgres://u@h/db").location, "postgres://u@h/db");
  // A colon alone is part of a file name.
  EXPECT_EQ(ParseStoreUrl("nightly:2026.db").kind, StoreKind::kSqlite);

  const std::string unknown = ErrorOf([] { ParseStoreUrl("mysql://root:hunter2@db/results"); });
  EXPECT_NE(unknown.find("mysql://root:***@db/results"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown store URL scheme 'mysql'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("postgresql://"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("sqlite:PATH"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find("hunter2"), std::string::npos) << unknown;
  EXPECT_NE(ErrorOf([] { ParseStoreUrl("sqlite:"); }).find("needs a path"), std::string::npos);
  EXPECT_NE(ErrorOf([] { OpenStoreUrl("http://example.com/x.db"); }).find("unknown store URL scheme 'http'"),
            std::string::npos);
}

TEST(StoreUrl, RelativeSqlitePathsResolveAgainstABaseFolder) {
  EXPECT_EQ(ResolveStoreUrl("results/x.db", "/site"), "/site/results/x.db");
  EXPECT_EQ(ResolveStoreUrl("sqlite:results/x.db", "/site"), "sqlite:/site/results/x.db");
  EXPECT_EQ(ResolveStoreUrl("/abs/x.db", "/site"), "/abs/x.db");
  EXPECT_EQ(ResolveStoreUrl("postgresql://h/db", "/site"), "postgresql://h/db");
}

TEST(StoreUrl, PasswordsAreHidden) {
  EXPECT_EQ(DisplayStoreUrl("postgresql://bench:s3cret@db.lan:5432/results"),
            "postgresql://bench:***@db.lan:5432/results");
  EXPECT_EQ(DisplayStoreUrl("postgresql://db.lan/results?user=bench&password=s3cret&sslmode=require"),
            "postgresql://db.lan/results?user=bench&password=***&sslmode=require");
  EXPECT_EQ(DisplayStoreUrl("postgresql://bench@db.lan/results"), "postgresql://bench@db.lan/results");
}

TEST(PostgresStore, AnUnreachableServerIsOneClearError) {
  const fs::path empty = fs::temp_directory_path() / ("infermark_no_pg_" + std::to_string(::getpid()));
  fs::create_directories(empty);
  const std::string url = "postgresql://bench:s3cret@/results?host=" + empty.string() + "&connect_timeout=2";
  try {
    OpenStoreUrl(url);
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot connect to the PostgreSQL results store"), std::string::npos) << what;
    EXPECT_NE(what.find("bench:***@"), std::string::npos) << what;
    EXPECT_EQ(what.find("s3cret"), std::string::npos) << what;
  } catch (const std::runtime_error& e) {
    // Only where libpq itself is missing.
    EXPECT_NE(std::string(e.what()).find("libpq"), std::string::npos) << e.what();
  }
  fs::remove_all(empty);
}

class PostgresServer : public ::testing::Test {
 protected:
  void SetUp() override {
    database_ = test::FreshPostgresDatabase(::testing::UnitTest::GetInstance()->current_test_info()->name());
    if (!database_) GTEST_SKIP() << test::PostgresSkipReason();
  }
  std::unique_ptr<test::PostgresDatabase> database_;
};

TEST_F(PostgresServer, ADatabaseWithOtherRunsTablesIsNotAStore) {
  PgConnection(database_->url).Exec("CREATE TABLE runs (id int)");
  const std::string what = ErrorOf([&] { OpenStoreUrl(database_->url); });
  EXPECT_NE(what.find("not an infermark results store"), std::string::npos) << what;
}

// Four processes open the same new store at once: one migrates, the others wait on the advisory
// lock and find it migrated; every migration is recorded once.
TEST_F(PostgresServer, ProcessesOpeningANewStoreAtOnceMigrateItOnce) {
  std::vector<pid_t> children;
  for (int i = 0; i < 4; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        code = OpenStoreUrl(database_->url)->SchemaVersion() == CurrentSchemaVersion() ? 0 : 3;
      } catch (const std::exception&) {
        code = 4;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  PgConnection db(database_->url);
  const PgResult applied = db.Query("SELECT COUNT(*), COUNT(DISTINCT version), MAX(version) FROM schema_migrations");
  EXPECT_EQ(applied.Int(0, 0), CurrentSchemaVersion());
  EXPECT_EQ(applied.Int(0, 1), CurrentSchemaVersion());
  EXPECT_EQ(applied.Int(0, 2), CurrentSchemaVersion());
}

// A store whose connection is lost (a restarted server, an ended session) connects again: the
// ingest in flight is repeated whole, reads are repeated once.
TEST_F(PostgresServer, ALostConnectionIsMadeAgain) {
  auto store = OpenStoreUrl(database_->url);
  ASSERT_EQ(store->Ingest(RunInfo{"a", "", "", "", "", ""}, sample::SampleCurve({}, {1, 2})).added, 2);
  const auto end_store_sessions = [&] {
    PgConnection admin(database_->url);
    const PgResult ended = admin.Query(
        "SELECT COUNT(*) FILTER (WHERE pg_terminate_backend(pid, 5000)) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()");
    EXPECT_EQ(ended.Int(0, 0), 1);
  };
  end_store_sessions();
  const IngestOutcome after = store->Ingest(RunInfo{"a", "", "", "", "", ""}, sample::SampleCurve({}, {1, 2, 4}));
  EXPECT_EQ(after.added, 1);
  EXPECT_EQ(after.unchanged, 2);
  end_store_sessions();
  EXPECT_EQ(store->ListRuns().at(0).points, 3);
  end_store_sessions();
  EXPECT_EQ(store->AllPoints().size(), 3u);
}

// The commands take the URL: ingest, list, show and report on a PostgreSQL store.
TEST_F(PostgresServer, CommandsWorkOnAPostgresStore) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_pg_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (int conc : {4, 16}) {
    std::ofstream(dir / ("agg_conc" + std::to_string(conc) + ".json")) << DumpJson(sample::SamplePoint({}, conc).agg);
  }
  const std::string& url = database_->url;
  // Read-only commands never make a store of an empty database.
  EXPECT_FALSE(StoreUrlExists(url));
  const auto empty = test::RunInfermark({"results", "list", "--db", url});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("no results store here"), std::string::npos) << empty.err;
  EXPECT_EQ(PgConnection(url).Query("SELECT to_regclass('schema_migrations') IS NULL").Text(0, 0), "t");
  const auto ingest = test::RunInfermark({"results", "ingest", "--db", url, "--run", "nightly", dir.string()});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  EXPECT_NE(ingest.out.find("2 added, 0 updated, 0 unchanged"), std::string::npos) << ingest.out;
  const auto again = test::RunInfermark({"results", "ingest", "--db", url, "--run", "nightly", dir.string()});
  EXPECT_NE(again.out.find("0 added, 0 updated, 2 unchanged"), std::string::npos) << again.out;
  const auto list = test::RunInfermark({"results", "list", "--db", url});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("nightly"), std::string::npos) << list.out;
  const std::string report_path = (dir / "report.html").string();
  const auto report = test::RunInfermark({"report", "--db", url, "--output", report_path});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(fs::exists(report_path));
  EXPECT_EQ(OpenStoreUrl(url)->AllPoints().size(), 2u);
  EXPECT_TRUE(StoreUrlExists(url));

  const auto unknown = test::RunInfermark({"results", "list", "--db", "mongodb://h/results"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown store URL scheme 'mongodb'"), std::string::npos) << unknown.err;
  fs::remove_all(dir);
}

// The site's database may be a PostgreSQL URL: a prediction sweep stores its points there; an
// unknown scheme stops the sweep before any row runs.
TEST_F(PostgresServer, APredictionSweepStoresIntoAPostgresStore) {
  const fs::path dir = fs::temp_directory_path() / ("infermark_pg_predict_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto predict = [&](const std::string& database, const std::string& out) {
    return test::RunInfermark(
        {"predict", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--site", test::SourcePath("infermark.yaml"),
         "--result-dir", (dir / out).string(), "--database", database, "--format", "table", "--runner-name", "p_00"},
        test::SourcePath(""));
  };
  // A password in the URL (the test server trusts its socket, so it is ignored) never reaches the output.
  const std::string with_password =
      database_->url + (database_->url.find('?') == std::string::npos ? "?" : "&") + "password=s3cret";
  const auto stored = predict(with_password, "results");
  ASSERT_EQ(stored.exit_code, 0) << stored.out << stored.err;
  EXPECT_NE(stored.out.find("30 rows predicted"), std::string::npos) << stored.out;
  EXPECT_NE(stored.out.find("password=***"), std::string::npos) << stored.out;
  EXPECT_EQ(stored.out.find("s3cret"), std::string::npos) << stored.out;
  EXPECT_EQ(stored.err.find("s3cret"), std::string::npos) << stored.err;
  auto store = OpenStoreUrl(database_->url);
  ASSERT_EQ(store->ListRuns().size(), 1u);
  EXPECT_EQ(store->ListRuns()[0].predicted_points, 30);
  EXPECT_EQ(store->AllPoints().size(), 30u);

  const auto refused = predict("mysql://bench:s3cret@db/results", "refused");
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("unknown store URL scheme 'mysql'"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("s3cret"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir / "refused"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark::results
