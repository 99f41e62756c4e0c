#include "store/sql_session.hpp"

#include <charconv>
#include <map>
#include <variant>

#include "store/postgres_db.hpp"
#include "store/sqlite_db.hpp"

namespace infermark::results {
namespace {

// `$n` placeholders as SQLite's `?n` (the shared SQL holds no `$` inside literals).
std::string SqliteText(std::string_view sql) {
  std::string out(sql);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == '$' && i + 1 < out.size() && out[i + 1] >= '0' && out[i + 1] <= '9') out[i] = '?';
  }
  return out;
}

class SqliteRow final : public SqlRow {
 public:
  explicit SqliteRow(const SqliteStatement& s) : s_(s) {}
  std::string Text(int i) const override { return s_.Text(i); }
  std::int64_t Int(int i) const override { return s_.Int(i); }
  double Double(int i) const override { return s_.Double(i); }
  bool IsNull(int i) const override { return s_.IsNull(i); }

 private:
  const SqliteStatement& s_;
};

class SqliteSessionImpl final : public SqlSession {
 public:
  explicit SqliteSessionImpl(SqliteDb& db) : db_(db) {}

  void Query(std::string_view sql, const std::vector<StoreValue>& params, const SqlRowCallback& each) override {
    std::unique_ptr<SqliteStatement>& cached = statements_[std::string(sql)];
    if (!cached) cached = std::make_unique<SqliteStatement>(db_, SqliteText(sql));
    SqliteStatement& s = *cached;
    s.Reset();
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i + 1);
      const StoreValue& v = params[i];
      if (const auto* n = std::get_if<std::int64_t>(&v)) {
        s.Bind(index, *n);
      } else if (const auto* d = std::get_if<double>(&v)) {
        s.Bind(index, *d);
      } else if (const auto* t = std::get_if<std::string>(&v)) {
        s.Bind(index, *t);
      } else {
        s.BindNull(index);
      }
    }
    const SqliteRow row(s);
    try {
      while (s.Step()) {
        if (each) each(row);
      }
    } catch (...) {
      s.Reset();
      throw;
    }
    s.Reset();  // a statement left mid-read would hold a read transaction open
  }

  void Transaction(const std::function<void()>& body) override {
    db_.Exec("BEGIN IMMEDIATE");
    try {
      body();
      db_.Exec("COMMIT");
    } catch (...) {
      db_.Exec("ROLLBACK");
      throw;
    }
  }

  void Read(const std::function<void()>& body) override { body(); }

  std::string Name() const override { return db_.path(); }

  std::optional<std::int64_t> CommitCounter() override {
    std::optional<std::int64_t> version;
    Query("PRAGMA data_version", {}, [&](const SqlRow& r) { version = r.Int(0); });
    return version;
  }

 private:
  SqliteDb& db_;
  std::map<std::string, std::unique_ptr<SqliteStatement>> statements_;
};

class PostgresRow final : public SqlRow {
 public:
  PostgresRow(const PgResult& result, int r) : result_(result), r_(r) {}
  std::string Text(int i) const override { return result_.Text(r_, i); }
  std::int64_t Int(int i) const override { return result_.Int(r_, i); }
  double Double(int i) const override { return result_.Double(r_, i); }
  bool IsNull(int i) const override { return result_.IsNull(r_, i); }

 private:
  const PgResult& result_;
  int r_;
};

// A transaction that meets a deadlock or a serialization failure with another writer is retried
// this many times in all (as the store's ingest is).
constexpr int kTransactionAttempts = 5;

class PostgresSessionImpl final : public SqlSession {
 public:
  explicit PostgresSessionImpl(PgConnection& db) : db_(db) {}

  void Query(std::string_view sql, const std::vector<StoreValue>& params, const SqlRowCallback& each) override {
    std::vector<PgParam> values;
    values.reserve(params.size());
    for (const StoreValue& v : params) {
      if (const auto* n = std::get_if<std::int64_t>(&v)) {
        values.emplace_back(std::to_string(*n));
      } else if (const auto* d = std::get_if<double>(&v)) {
        char text[32];
        const auto end = std::to_chars(text, text + sizeof text, *d).ptr;  // shortest text that reads back exactly
        values.emplace_back(std::string(text, end));
      } else if (const auto* t = std::get_if<std::string>(&v)) {
        values.emplace_back(*t);
      } else {
        values.emplace_back(std::nullopt);
      }
    }
    const PgResult result = db_.Query(sql, values);
    if (!each) return;
    for (int r = 0; r < result.Rows(); ++r) each(PostgresRow(result, r));
  }

  void Transaction(const std::function<void()>& body) override {
    for (int attempt = 1;; ++attempt) {
      try {
        db_.Exec("BEGIN");
        body();
        db_.Exec("COMMIT");
        return;
      } catch (const PgError& e) {
        const bool lost = db_.Broken();
        if (lost) {
          db_.Reconnect();
        } else {
          db_.Exec("ROLLBACK");
        }
        const bool retryable = e.sqlstate() == "40P01" || e.sqlstate() == "40001";
        if (!(lost || retryable) || attempt == kTransactionAttempts) throw;
      } catch (...) {
        if (!db_.Broken()) db_.Exec("ROLLBACK");
        throw;
      }
    }
  }

  void Read(const std::function<void()>& body) override {
    try {
      body();
    } catch (const PgError&) {
      if (!db_.Broken()) throw;
      db_.Reconnect();
      body();
    }
  }

  std::string Name() const override { return db_.name(); }

 private:
  PgConnection& db_;
};

}  // namespace

std::unique_ptr<SqlSession> SqliteSession(SqliteDb& db) {
  return std::make_unique<SqliteSessionImpl>(db);
}

std::unique_ptr<SqlSession> PostgresSession(PgConnection& db) {
  return std::make_unique<PostgresSessionImpl>(db);
}

}  // namespace infermark::results
