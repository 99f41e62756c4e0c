// The results store's schema as a list of forward migrations, in two dialects: migration N takes a
// store from version N-1 to N, and version N means the same tables and columns in SQLite and in
// PostgreSQL. A SQLite store records its version in `schema_version`; a PostgreSQL store one row per
// applied migration in `schema_migrations`. Opening migrates a store forward.
#pragma once

#include <string_view>
#include <vector>

namespace infermark::results {

class SqliteDb;
class PgConnection;

/// The migrations in order; element i brings a store to version i + 1.
const std::vector<std::string_view>& StoreMigrations();

/// The schema version whose migration's text holds `marker` (features append their migrations
/// apart, so a feature finds its version from the list, not from a number written down); one past
/// the newest when no migration holds it.
int SchemaVersionOf(std::string_view marker);

/// The first schema version with repeats (points' `repeats` and `repeat_server`, the point_repeats
/// table): the position of the migration that creates point_repeats, wherever the list puts it.
int RepeatsSchemaVersion();

/// The first schema version with points' receipt ids (measurement receipts): the position of the
/// migration that adds `receipt_id`, wherever the list puts it (features append migrations apart).
int ReceiptsSchemaVersion();

/// Migrates the store open on `db` to `target` (0: the newest), each step in its own transaction.
/// Throws InputError when the store is newer than this build or is some other database.
void MigrateStore(SqliteDb& db, int target);

/// The store's schema version (0 for an empty database).
int ReadSchemaVersion(SqliteDb& db);

/// The PostgreSQL migrations in order, as many as StoreMigrations(); element i brings a store to
/// version i + 1.
const std::vector<std::string_view>& PostgresStoreMigrations();

/// Migrates the PostgreSQL store open on `db` to `target` (0: the newest) in one transaction under
/// an advisory lock, so that several processes opening a new store at once migrate it once. Throws
/// InputError when the store is newer than this build or the database holds other `runs`/`points`.
void MigratePostgresStore(PgConnection& db, int target);

/// The PostgreSQL store's schema version (0 before the first migration).
int ReadPostgresSchemaVersion(PgConnection& db);

}  // namespace infermark::results
