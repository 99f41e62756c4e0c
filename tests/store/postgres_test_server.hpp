// The PostgreSQL test server for store tests: where its URL is (scripts/pg-test-server.sh writes
// it; INFERMARK_TEST_PG_URL overrides), and a fresh database per test, dropped afterwards.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>

#include "store/postgres_db.hpp"

namespace infermark::test {

/// The folder scripts/pg-test-server.sh keeps its server in.
inline std::string PostgresTestDir() {
  if (const char* dir = std::getenv("INFERMARK_PG_TEST_DIR"); dir != nullptr && *dir != '\0') return dir;
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/infermark-pg-test-" +
         std::to_string(::getuid());
}

/// The test server's URL: INFERMARK_TEST_PG_URL, else the script's `url` file; "" when neither.
inline std::string PostgresServerUrl() {
  if (const char* url = std::getenv("INFERMARK_TEST_PG_URL"); url != nullptr && *url != '\0') return url;
  std::ifstream file(PostgresTestDir() + "/url");
  std::string url;
  std::getline(file, url);
  return url;
}

/// Whether PostgreSQL's server programs are installed (Debian's layout).
inline bool PostgresInstalled() {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    if (std::filesystem::exists(e.path() / "bin" / "initdb", ec)) return true;
  }
  return false;
}

/// Why a PostgreSQL test cannot run here.
inline std::string PostgresSkipReason() {
  if (!PostgresInstalled())
    return "PostgreSQL is not installed (scripts/setup.sh installs it): PostgreSQL store "
           "tests skipped";
  return "no PostgreSQL test server (scripts/pg-test-server.sh start, or INFERMARK_TEST_PG_URL): PostgreSQL store "
         "tests skipped";
}

/// `url` naming database `name` instead of its own.
inline std::string WithDatabase(const std::string& url, const std::string& name) {
  static const std::regex database(R"(^(postgres(?:ql)?://[^/?]*)(/[^?]*)?)");
  return std::regex_replace(url, database, "$1/" + name, std::regex_constants::format_first_only);
}

/// A database of its own for one test on the test server, dropped when it goes.
struct PostgresDatabase {
  std::string server;  ///< The server's URL (its own database).
  std::string name;    ///< This test's database.
  std::string url;     ///< The URL of this test's database.

  PostgresDatabase(std::string server_url, std::string database)
      : server(std::move(server_url)), name(std::move(database)), url(WithDatabase(server, name)) {}
  PostgresDatabase(PostgresDatabase&& other) noexcept
      : server(std::move(other.server)), name(std::move(other.name)), url(std::move(other.url)) {
    other.name.clear();
  }
  PostgresDatabase& operator=(PostgresDatabase&&) = delete;
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;
  ~PostgresDatabase() {
    if (name.empty()) return;
    try {
      results::PgConnection(server).Exec("DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
    } catch (const std::exception&) {
      // The server is removed with its folder at the end of the run anyway.
    }
  }
};

/// A new, empty database named after `test` on the test server. Null when there is no server and
/// PostgreSQL is not installed, or no server and INFERMARK_REQUIRE_PG is unset (a skip); with
/// PostgreSQL installed and INFERMARK_REQUIRE_PG set (ctest sets it and starts the server), a
/// missing server throws, so the tests fail instead of skipping.
inline std::unique_ptr<PostgresDatabase> FreshPostgresDatabase(const std::string& test) {
  const std::string server = PostgresServerUrl();
  if (server.empty()) {
    const char* require = std::getenv("INFERMARK_REQUIRE_PG");
    if (PostgresInstalled() && require != nullptr && std::string(require) == "1") {
      throw std::runtime_error(
          "PostgreSQL is installed but its test server is not running (ctest starts it with "
          "scripts/pg-test-server.sh start; see " +
          PostgresTestDir() + ")");
    }
    return nullptr;
  }
  std::string name = "t" + std::to_string(::getpid()) + "_";
  for (char c : test) {
    if (name.size() >= 60) break;
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    name += keep ? c : (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : '_';
  }
  results::PgConnection admin(server);
  admin.Exec("DROP DATABASE IF EXISTS \"" + name + "\" WITH (FORCE)");
  admin.Exec("CREATE DATABASE \"" + name + "\"");
  return std::make_unique<PostgresDatabase>(server, name);
}

}  // namespace infermark::test
