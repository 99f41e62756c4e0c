// One SQL statement run against a results store on a connection that cannot write, with a time
// limit and a row cap: what `infermark mcp`'s SQL tool runs for an agent. SQLite: the file opened
// read-only with `PRAGMA query_only`, interrupted at the deadline from SQLite's progress handler.
// PostgreSQL: a new connection whose transactions are read-only, with `statement_timeout`; the
// statement runs alone (libpq's extended protocol takes one statement) inside a READ ONLY
// transaction that is rolled back.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::results {

/// What a statement returned.
struct SqlTable {
  std::vector<std::string> columns;     ///< Column names, in order.
  std::vector<std::vector<Json>> rows;  ///< Values: numbers, text, or null.
  bool truncated = false;               ///< More rows than the cap were there.
};

/// Runs `sql` (one statement) against the store `url` names, read-only, returning at most
/// `max_rows` rows. Throws InputError with the database's reason for a statement that does not
/// compile, tries to write, holds more than one statement, or runs past `timeout`.
SqlTable RunReadOnlySql(const std::string& url, const std::string& sql, std::size_t max_rows,
                        std::chrono::milliseconds timeout);

}  // namespace infermark::results
