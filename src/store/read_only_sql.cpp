#include "store/read_only_sql.hpp"

#include <sqlite3.h>

#include <cmath>
#include <memory>

#include "core/diagnostic.hpp"
#include "store/postgres_db.hpp"
#include "store/store_url.hpp"

namespace infermark::results {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void Refuse(const std::string& store, const std::string& why) {
  throw InputError(Diagnostic{{store, 0, 0}, "", "sql", why});
}

struct SqliteCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
struct StatementFinalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

// Called by SQLite every few thousand virtual-machine steps: non-zero interrupts the statement.
int PastDeadline(void* deadline) {
  return Clock::now() >= *static_cast<const Clock::time_point*>(deadline) ? 1 : 0;
}

SqlTable RunSqlite(const std::string& path, const std::string& sql, std::size_t max_rows,
                   std::chrono::milliseconds timeout) {
  sqlite3* raw = nullptr;
  // Read-only and never created: a store that is not there is an error, not a new empty file.
  if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    const std::string reason = raw != nullptr ? sqlite3_errmsg(raw) : "cannot open";
    sqlite3_close(raw);
    Refuse(path, "cannot open the store read-only: " + reason);
  }
  const std::unique_ptr<sqlite3, SqliteCloser> db(raw);
  sqlite3_busy_timeout(db.get(), static_cast<int>(timeout.count()));
  sqlite3_exec(db.get(), "PRAGMA query_only = ON", nullptr, nullptr, nullptr);
  const Clock::time_point deadline = Clock::now() + timeout;
  sqlite3_progress_handler(db.get(), 1000, &PastDeadline, const_cast<Clock::time_point*>(&deadline));
  sqlite3_stmt* prepared = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db.get(), sql.c_str(), static_cast<int>(sql.size()), &prepared, &tail) != SQLITE_OK) {
    Refuse(path, std::string("the statement does not compile: ") + sqlite3_errmsg(db.get()));
  }
  const std::unique_ptr<sqlite3_stmt, StatementFinalizer> statement(prepared);
  if (!statement) Refuse(path, "no statement given");
  for (const char* p = tail; p != nullptr && *p != '\0'; ++p) {
    if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r' && *p != ';') Refuse(path, "give one statement at a time");
  }
  if (sqlite3_stmt_readonly(statement.get()) == 0)
    Refuse(path, "the store is read-only here: the statement would write");
  SqlTable table;
  const int columns = sqlite3_column_count(statement.get());
  for (int c = 0; c < columns; ++c) table.columns.emplace_back(sqlite3_column_name(statement.get(), c));
  for (;;) {
    const int rc = sqlite3_step(statement.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      if (rc == SQLITE_INTERRUPT) {
        Refuse(path, "the statement ran past its time limit of " + std::to_string(timeout.count()) + " ms");
      }
      Refuse(path, std::string("the statement failed: ") + sqlite3_errmsg(db.get()));
    }
    if (table.rows.size() == max_rows) {
      table.truncated = true;
      break;
    }
    std::vector<Json> row;
    row.reserve(static_cast<std::size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      switch (sqlite3_column_type(statement.get(), c)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(statement.get(), c)));
          break;
        case SQLITE_FLOAT: {
          const double v = sqlite3_column_double(statement.get(), c);
          row.emplace_back(std::isfinite(v) ? Json(v) : Json(nullptr));
          break;
        }
        case SQLITE_NULL:
          row.emplace_back(nullptr);
          break;
        case SQLITE_BLOB:
          row.emplace_back("<blob of " + std::to_string(sqlite3_column_bytes(statement.get(), c)) + " bytes>");
          break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), c));
          row.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement.get(), c))));
        }
      }
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

SqlTable RunPostgres(const std::string& url, const std::string& sql, std::size_t max_rows,
                     std::chrono::milliseconds timeout) {
  PgConnection db(url);
  try {
    db.Exec("SET default_transaction_read_only = on");
    db.Exec("SET statement_timeout = " + std::to_string(std::max<long long>(1, timeout.count())));
    db.Exec("BEGIN READ ONLY");
    // The extended protocol takes one statement: a second one (`…; COMMIT; …`) is refused by the server.
    const PgResult result = db.Query(sql);
    db.Exec("ROLLBACK");
    SqlTable table;
    for (int c = 0; c < result.Columns(); ++c) table.columns.push_back(result.ColumnName(c));
    for (int r = 0; r < result.Rows(); ++r) {
      if (table.rows.size() == max_rows) {
        table.truncated = true;
        break;
      }
      std::vector<Json> row;
      for (int c = 0; c < result.Columns(); ++c) {
        if (result.IsNull(r, c)) {
          row.emplace_back(nullptr);
        } else if (result.ColumnIsNumeric(c)) {
          const double v = result.Double(r, c);
          row.emplace_back(std::isfinite(v) ? Json(v) : Json(nullptr));
        } else {
          row.emplace_back(result.Text(r, c));
        }
      }
      table.rows.push_back(std::move(row));
    }
    return table;
  } catch (const PgError& e) {
    if (e.sqlstate() == "57014") {
      Refuse(db.name(), "the statement ran past its time limit of " + std::to_string(timeout.count()) + " ms");
    }
    if (e.sqlstate() == "25006") Refuse(db.name(), "the store is read-only here: the statement would write");
    Refuse(db.name(), std::string("the statement failed: ") + e.what());
  }
}

}  // namespace

SqlTable RunReadOnlySql(const std::string& url, const std::string& sql, std::size_t max_rows,
                        std::chrono::milliseconds timeout) {
  const StoreUrl parsed = ParseStoreUrl(url);
  if (parsed.kind == StoreKind::kPostgres) return RunPostgres(parsed.location, sql, max_rows, timeout);
  return RunSqlite(parsed.location, sql, max_rows, timeout);
}

}  // namespace infermark::results
