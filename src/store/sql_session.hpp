// One statement language for both stores: SQL with `$1…$n` parameters run on the store's own
// connection, rows handed to a callback as they are read, and a transaction that the PostgreSQL
// store repeats after a deadlock, a serialization failure or a lost connection. The queries both
// stores share beyond points and evaluations (row attempts, point details, samples) are written
// once against it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/store_rows.hpp"

namespace infermark::results {

class SqliteDb;
class PgConnection;

/// The current row of a query, read by 0-based column.
class SqlRow {
 public:
  virtual ~SqlRow() = default;
  /// Column `i` as text ("" for NULL).
  [[nodiscard]] virtual std::string Text(int i) const = 0;
  /// Column `i` as an integer (0 for NULL).
  [[nodiscard]] virtual std::int64_t Int(int i) const = 0;
  /// Column `i` as a double (0 for NULL).
  [[nodiscard]] virtual double Double(int i) const = 0;
  /// Whether column `i` is NULL.
  [[nodiscard]] virtual bool IsNull(int i) const = 0;
};

/// Called once per row, in order.
using SqlRowCallback = std::function<void(const SqlRow& row)>;

/// A store's connection, as the shared queries use it. One thread at a time.
class SqlSession {
 public:
  virtual ~SqlSession() = default;
  /// Runs `sql` (placeholders `$1`, `$2`… numbered in order of first use) with `params`, calling
  /// `each` for every row it returns. Throws std::runtime_error (PgError for PostgreSQL) on failure.
  virtual void Query(std::string_view sql, const std::vector<StoreValue>& params, const SqlRowCallback& each = {}) = 0;
  /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws.
  /// PostgreSQL runs it again after a deadlock, a serialization failure or a lost connection.
  virtual void Transaction(const std::function<void()>& body) = 0;
  /// Runs a read; PostgreSQL runs it once more on a new connection when the connection was lost.
  virtual void Read(const std::function<void()>& body) = 0;
  /// The store's name as messages show it (a file, or a URL without its password).
  [[nodiscard]] virtual std::string Name() const = 0;
  /// A number that changes whenever another connection commits to the store (SQLite's
  /// `PRAGMA data_version`), or nullopt where the store keeps none (PostgreSQL).
  virtual std::optional<std::int64_t> CommitCounter() { return std::nullopt; }
};

/// A session on SQLite connection `db` (which must outlive it).
std::unique_ptr<SqlSession> SqliteSession(SqliteDb& db);
/// A session on PostgreSQL connection `db` (which must outlive it).
std::unique_ptr<SqlSession> PostgresSession(PgConnection& db);

}  // namespace infermark::results
