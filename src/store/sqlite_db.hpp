// A thin RAII layer over the sqlite3 C API: one connection, prepared statements with typed binds,
// and errors that name the database file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace infermark::results {

/// An open SQLite connection.
class SqliteDb {
 public:
  /// Opens or creates `path`; throws InputError when it cannot be opened.
  explicit SqliteDb(const std::string& path);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  /// Runs one or more statements without results; throws on failure (InputError when the file is
  /// not a database, std::runtime_error otherwise).
  void Exec(std::string_view sql);
  /// The raw handle, for statements.
  sqlite3* handle() const { return db_; }
  /// The file it was opened from.
  const std::string& path() const { return path_; }
  /// Throws the error for result code `rc` with `what` as context.
  [[noreturn]] void Throw(int rc, std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// A prepared statement; bind with 1-based indexes, then Step until it returns false.
class SqliteStatement {
 public:
  /// Prepares `sql` on `db`; throws on a syntax error.
  SqliteStatement(SqliteDb& db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  /// Binds text (copied).
  SqliteStatement& Bind(int index, std::string_view text);
  /// Binds an integer.
  SqliteStatement& Bind(int index, std::int64_t value);
  /// Binds a double.
  SqliteStatement& Bind(int index, double value);
  /// Binds NULL.
  SqliteStatement& BindNull(int index);
  /// Advances; true while a row is available.
  bool Step();
  /// Resets for another execution (bindings are kept).
  void Reset();
  /// Column `i` (0-based) of the current row as text ("" for NULL).
  std::string Text(int i) const;
  /// Column `i` as an integer.
  std::int64_t Int(int i) const;
  /// Column `i` as a double.
  double Double(int i) const;
  /// Whether column `i` is NULL.
  bool IsNull(int i) const;

 private:
  SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace infermark::results
