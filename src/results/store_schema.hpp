// The SQLite store's schema as a list of forward migrations: migration N takes a store from
// version N-1 to N. A store records its version in `schema_version`; opening migrates it forward.
#pragma once

#include <string_view>
#include <vector>

namespace infermark::results {

class SqliteDb;

/// The migrations in order; element i brings a store to version i + 1.
const std::vector<std::string_view>& StoreMigrations();

/// Migrates the store open on `db` to `target` (0: the newest), each step in its own transaction.
/// Throws InputError when the store is newer than this build or is some other database.
void MigrateStore(SqliteDb& db, int target);

/// The store's schema version (0 for an empty database).
int ReadSchemaVersion(SqliteDb& db);

}  // namespace infermark::results
