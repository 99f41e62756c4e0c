#include "store/store_url.hpp"

#include <filesystem>
#include <regex>

#include "core/diagnostic.hpp"
#include "store/postgres_db.hpp"
#include "store/postgres_store.hpp"
#include "store/store_schema.hpp"

namespace infermark::results {

StoreUrl ParseStoreUrl(const std::string& url) {
  static const std::regex scheme(R"(^([A-Za-z][A-Za-z0-9+.-]*)://)");
  const auto fail = [&](const std::string& rule) -> StoreUrl {
    throw InputError(Diagnostic{{DisplayStoreUrl(url), 0, 0}, "", "", rule});
  };
  if (url.rfind("sqlite:", 0) == 0) {
    std::string path = url.substr(7);
    // sqlite:///abs/path and sqlite://rel/path read as the path after the slashes' scheme part.
    if (path.rfind("//", 0) == 0) path = path.substr(2);
    if (path.empty()) return fail("a sqlite: store URL needs a path (sqlite:results/infermark.db)");
    return {StoreKind::kSqlite, path};
  }
  if (std::smatch m; std::regex_search(url, m, scheme)) {
    const std::string name = m[1].str();
    if (name == "postgresql" || name == "postgres") return {StoreKind::kPostgres, url};
    return fail("unknown store URL scheme '" + name +
                "'; known: sqlite:PATH (or a plain path), postgresql://… and postgres://…");
  }
  if (url.empty()) return fail("the store URL is empty; give sqlite:PATH, a path or postgresql://…");
  return {StoreKind::kSqlite, url};
}

std::unique_ptr<ResultStore> OpenStoreUrl(const std::string& url, const StoreOptions& options) {
  const StoreUrl parsed = ParseStoreUrl(url);
  if (parsed.kind == StoreKind::kPostgres) return OpenPostgresStore(parsed.location, options);
  return OpenStore(parsed.location, options);
}

std::unique_ptr<ResultStore> OpenExistingStoreUrl(const std::string& url) {
  if (!StoreUrlExists(url)) {
    throw InputError(Diagnostic{{DisplayStoreUrl(url), 0, 0},
                                "",
                                "",
                                "no results store here (store results with `infermark results ingest`, or pass --db)"});
  }
  return OpenStoreUrl(url);
}

bool StoreUrlExists(const std::string& url) {
  const StoreUrl parsed = ParseStoreUrl(url);
  if (parsed.kind == StoreKind::kPostgres) {
    PgConnection db(parsed.location);
    return ReadPostgresSchemaVersion(db) > 0;
  }
  std::error_code ec;
  return std::filesystem::exists(parsed.location, ec);
}

std::string ResolveStoreUrl(const std::string& url, const std::string& base_dir) {
  const StoreUrl parsed = ParseStoreUrl(url);
  if (parsed.kind != StoreKind::kSqlite || std::filesystem::path(parsed.location).is_absolute()) return url;
  const std::string resolved =
      (std::filesystem::path(base_dir.empty() ? "." : base_dir) / parsed.location).lexically_normal().string();
  return url.rfind("sqlite:", 0) == 0 ? "sqlite:" + resolved : resolved;
}

std::string DisplayStoreUrl(const std::string& url) {
  return HidePassword(url);
}

}  // namespace infermark::results
