#include "store/sqlite_db.hpp"

#include <sqlite3.h>

#include <stdexcept>

#include "core/diagnostic.hpp"

namespace infermark::results {

SqliteDb::SqliteDb(const std::string& path) : path_(path) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    const std::string reason = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw InputError(Diagnostic{{path, 0, 0}, "", "", "cannot open the results store: " + reason});
  }
  sqlite3_extended_result_codes(db_, 1);
  // A runner writing while a report reads waits instead of failing.
  sqlite3_busy_timeout(db_, 10000);
}

SqliteDb::~SqliteDb() {
  sqlite3_close(db_);
}

void SqliteDb::Throw(int rc, std::string_view what) const {
  const std::string message = std::string(what) + ": " + sqlite3_errmsg(db_);
  if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
    throw InputError(Diagnostic{{path_, 0, 0}, "", "", "not an infermark results store (" + message + ")"});
  }
  throw std::runtime_error("results store " + path_ + ": " + message);
}

void SqliteDb::Exec(std::string_view sql) {
  const std::string text(sql);
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) Throw(rc, "executing " + text.substr(0, 60));
}

SqliteStatement::SqliteStatement(SqliteDb& db, std::string_view sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) db.Throw(rc, "preparing " + std::string(sql.substr(0, 60)));
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::Bind(int index, std::string_view text) {
  const int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) db_.Throw(rc, "binding text");
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_.Throw(rc, "binding an integer");
  return *this;
}

SqliteStatement& SqliteStatement::Bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_.Throw(rc, "binding a number");
  return *this;
}

SqliteStatement& SqliteStatement::BindNull(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_.Throw(rc, "binding NULL");
  return *this;
}

bool SqliteStatement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.Throw(rc, "running a statement");
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
}

std::string SqliteStatement::Text(int i) const {
  const auto* text = sqlite3_column_text(stmt_, i);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i)));
}

std::int64_t SqliteStatement::Int(int i) const {
  return sqlite3_column_int64(stmt_, i);
}

double SqliteStatement::Double(int i) const {
  return sqlite3_column_double(stmt_, i);
}

bool SqliteStatement::IsNull(int i) const {
  return sqlite3_column_type(stmt_, i) == SQLITE_NULL;
}

}  // namespace infermark::results
