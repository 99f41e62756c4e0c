// The results store on a PostgreSQL server (libpq), for teams: the SQLite store's schema in
// PostgreSQL's dialect, migrated under an advisory lock, idempotent ingest on natural keys with
// ON CONFLICT, safe with several runners ingesting at once.
#pragma once

#include <memory>
#include <string>

#include "store/result_store.hpp"

namespace infermark::results {

/// Connects to the PostgreSQL store at `url` (a `postgresql://` or `postgres://` URI, as libpq
/// reads it) and migrates it forward to the current schema. Throws InputError when it cannot
/// connect, when the database holds other tables named runs or points, or when the store was
/// written by a newer infermark; std::runtime_error when libpq is not installed. The store holds one
/// connection: use it from one thread at a time (open one store per thread otherwise).
std::unique_ptr<ResultStore> OpenPostgresStore(const std::string& url, const StoreOptions& options = {});

}  // namespace infermark::results
