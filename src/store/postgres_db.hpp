// A thin RAII layer over libpq: one connection, statements with text parameters ($1, $2…), and
// errors that name the server (password hidden) and carry PostgreSQL's SQLSTATE.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct pg_conn;
struct pg_result;

namespace infermark::results {

/// A failed statement; `sqlstate()` is PostgreSQL's five-character error code ("" when none).
class PgError : public std::runtime_error {
 public:
  /// An error with `message` and SQLSTATE `sqlstate`.
  PgError(const std::string& message, std::string sqlstate)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  /// PostgreSQL's error code, e.g. `40P01` for a deadlock.
  [[nodiscard]] const std::string& sqlstate() const { return sqlstate_; }

 private:
  std::string sqlstate_;
};

/// A statement parameter in text form; nullopt is NULL.
using PgParam = std::optional<std::string>;

/// The rows of one statement, read as text (NULL reads as "").
class PgResult {
 public:
  /// Takes ownership of `result`.
  explicit PgResult(pg_result* result);
  ~PgResult();
  PgResult(PgResult&& other) noexcept;
  PgResult& operator=(PgResult&&) = delete;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;

  /// Rows returned.
  [[nodiscard]] int Rows() const;
  /// Column `c` of row `r` as text ("" for NULL).
  [[nodiscard]] std::string Text(int r, int c) const;
  /// Column `c` of row `r` as an integer (0 for NULL).
  [[nodiscard]] std::int64_t Int(int r, int c) const;
  /// Column `c` of row `r` as a double (0 for NULL).
  [[nodiscard]] double Double(int r, int c) const;
  /// Whether column `c` of row `r` is NULL.
  [[nodiscard]] bool IsNull(int r, int c) const;
  /// Columns returned.
  [[nodiscard]] int Columns() const;
  /// Column `c`'s name.
  [[nodiscard]] std::string ColumnName(int c) const;
  /// Whether column `c` holds numbers (an integer, floating-point or numeric type).
  [[nodiscard]] bool ColumnIsNumeric(int c) const;

  /// One row, read with the column accessors SqliteStatement has (Text, Int, Double, IsNull).
  class Row {
   public:
    /// Row `r` of `result`.
    Row(const PgResult& result, int r) : result_(result), r_(r) {}
    /// Column `c` as text.
    [[nodiscard]] std::string Text(int c) const { return result_.Text(r_, c); }
    /// Column `c` as an integer.
    [[nodiscard]] std::int64_t Int(int c) const { return result_.Int(r_, c); }
    /// Column `c` as a double.
    [[nodiscard]] double Double(int c) const { return result_.Double(r_, c); }
    /// Whether column `c` is NULL.
    [[nodiscard]] bool IsNull(int c) const { return result_.IsNull(r_, c); }

   private:
    const PgResult& result_;
    int r_;
  };

 private:
  pg_result* result_ = nullptr;
};

/// An open connection to a PostgreSQL server.
class PgConnection {
 public:
  /// Connects to `url` (a `postgresql://` URI or libpq keyword string); a non-empty `dbname`
  /// replaces the database the URL names. Throws InputError naming the URL (password hidden) and
  /// the server's reason when it cannot connect, std::runtime_error when libpq is missing.
  explicit PgConnection(const std::string& url, const std::string& dbname = "");
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  /// Runs one or more statements without parameters; throws PgError on failure.
  void Exec(std::string_view sql);
  /// Runs one statement with text parameters `$1…`; throws PgError on failure.
  PgResult Query(std::string_view sql, const std::vector<PgParam>& params = {});
  /// Whether the connection was lost (the server restarted, the session was ended).
  [[nodiscard]] bool Broken() const;
  /// Connects again with the same settings; throws PgError when the server still cannot be reached.
  void Reconnect();
  /// The URL, password hidden: what messages name.
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  // `raw` as a result; throws PgError with the server's reason when `sql` failed.
  PgResult Checked(pg_result* raw, const std::string& sql) const;

  pg_conn* conn_ = nullptr;
  std::string name_;
};

/// `url` with any password replaced by `***` (in `scheme://user:password@` and `password=`).
std::string HidePassword(const std::string& url);

}  // namespace infermark::results
