// Where a results store lives, as a URL: `sqlite:PATH` or a plain path for a SQLite file,
// `postgresql://…` or `postgres://…` (a libpq connection URI) for a PostgreSQL server. Every
// `--db` option and the site file's `database` key take one.
#pragma once

#include <memory>
#include <string>

#include "store/result_store.hpp"

namespace infermark::results {

/// The kinds of store a URL can name.
enum class StoreKind {
  kSqlite,    ///< A SQLite file.
  kPostgres,  ///< A PostgreSQL database.
};

/// A store URL taken apart.
struct StoreUrl {
  StoreKind kind = StoreKind::kSqlite;  ///< Which store.
  std::string location;                 ///< The SQLite file's path, or the libpq URI as given.
};

/// Parses `url`. Throws InputError naming the URL and the schemes known when it has a scheme
/// (`name://`) other than postgresql/postgres, or is `sqlite:` without a path.
StoreUrl ParseStoreUrl(const std::string& url);

/// Opens the store `url` names (OpenStore for SQLite, OpenPostgresStore for PostgreSQL) and
/// migrates it forward; throws as ParseStoreUrl and the store's opener do.
std::unique_ptr<ResultStore> OpenStoreUrl(const std::string& url, const StoreOptions& options = {});

/// Whether the store exists, without creating it: the SQLite file is there, or the PostgreSQL
/// database has had a migration (an empty database is no store yet). Throws InputError when the
/// PostgreSQL server cannot be reached.
bool StoreUrlExists(const std::string& url);

/// Opens the store `url` names for commands that only read or check it (list, show, compare,
/// verify, gate…), so that none creates a store by accident: throws InputError naming the URL when
/// StoreUrlExists is false.
std::unique_ptr<ResultStore> OpenExistingStoreUrl(const std::string& url);

/// `url` with a relative SQLite path resolved against `base_dir` (a site file's folder); other
/// URLs unchanged.
std::string ResolveStoreUrl(const std::string& url, const std::string& base_dir);

/// `url` as messages show it: a PostgreSQL password is replaced by `***`.
std::string DisplayStoreUrl(const std::string& url);

}  // namespace infermark::results
