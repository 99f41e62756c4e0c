// ResultStore on one SQLite file (WAL, so a report can read while a sweep writes).
#include <filesystem>
#include <map>
#include <memory>
#include <utility>
#include <variant>
#include <vector>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "store/evaluation_rows.hpp"
#include "store/result_store.hpp"
#include "store/sql_session.hpp"
#include "store/sqlite_db.hpp"
#include "store/store_rows.hpp"
#include "store/store_schema.hpp"

namespace infermark::results {
namespace {

void BindValue(SqliteStatement& statement, int index, const StoreValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    statement.Bind(index, *i);
  } else if (const auto* d = std::get_if<double>(&value)) {
    statement.Bind(index, *d);
  } else if (const auto* t = std::get_if<std::string>(&value)) {
    statement.Bind(index, *t);
  } else {
    statement.BindNull(index);
  }
}

class SqliteStore final : public ResultStore {
 public:
  SqliteStore(const std::string& path, const StoreOptions& options) : db_(path) {
    // WAL lets readers (report, list) run beside a writer (a sweep storing its rows).
    {
      SqliteStatement wal(db_, "PRAGMA journal_mode = WAL");
      if (wal.Step() && wal.Text(0) != "wal") {
        throw std::runtime_error("results store " + path + ": cannot switch to WAL mode (" + wal.Text(0) + ")");
      }
    }
    db_.Exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;");
    MigrateStore(db_, options.target_schema_version);
    schema_version_ = ReadSchemaVersion(db_);
  }

  IngestOutcome Ingest(const RunInfo& run, const std::vector<Point>& points) override {
    IngestOutcome outcome;
    db_.Exec("BEGIN IMMEDIATE");
    try {
      outcome.run_id = EnsureRun(run);
      for (const Point& point : points) StorePoint(outcome, point);
      for (auto& [sql, statement] : statements_) statement->Reset();
      db_.Exec("COMMIT");
    } catch (...) {
      for (auto& [sql, statement] : statements_) statement->Reset();
      db_.Exec("ROLLBACK");
      throw;
    }
    return outcome;
  }

  IngestOutcome IngestEvaluations(const RunInfo& run, const std::vector<Evaluation>& evaluations) override {
    RequireEvaluations();
    IngestOutcome outcome;
    db_.Exec("BEGIN IMMEDIATE");
    try {
      outcome.run_id = EnsureRun(run);
      for (const Evaluation& e : evaluations) StoreEvaluation(outcome, e);
      for (auto& [sql, statement] : statements_) statement->Reset();
      db_.Exec("COMMIT");
    } catch (...) {
      for (auto& [sql, statement] : statements_) statement->Reset();
      db_.Exec("ROLLBACK");
      throw;
    }
    return outcome;
  }

  std::vector<Evaluation> Evaluations(const EvaluationQuery& query) override {
    if (schema_version_ < kEvaluationsSchemaVersion) return {};
    std::vector<StoreValue> params;
    const std::string where = EvaluationWhere(
        query, [](int n) { return "?" + std::to_string(n); }, params);
    SqliteStatement q(
        db_, "SELECT " + EvaluationSelectList() + " FROM evaluations e JOIN runs r ON r.id = e.run_id" + where);
    for (std::size_t i = 0; i < params.size(); ++i) BindValue(q, static_cast<int>(i + 1), params[i]);
    std::vector<Evaluation> evaluations;
    while (q.Step()) evaluations.push_back(ReadEvaluationRow(q));
    SortEvaluations(evaluations);
    return evaluations;
  }

  std::vector<RunSummary> ListRuns() override {
    const std::string evaluations = schema_version_ >= kEvaluationsSchemaVersion
                                        ? "(SELECT COUNT(*) FROM evaluations e WHERE e.run_id = r.id)"
                                        : "0";
    SqliteStatement q(db_,
                      "SELECT r.id, r.run_key, r.label, r.recipe, r.host, r.infermark_version, r.source, r.created_at, "
                      "COUNT(p.id), COALESCE(SUM(p.kind = 'predicted'), 0), COALESCE(MAX(p.time_scale), 1), " +
                          evaluations +
                          " FROM runs r LEFT JOIN points p ON p.run_id = r.id GROUP BY r.id ORDER BY r.id");
    std::vector<RunSummary> runs;
    while (q.Step()) {
      RunSummary s;
      s.id = q.Int(0);
      s.info = {q.Text(1), q.Text(2), q.Text(3), q.Text(4), q.Text(5), q.Text(6)};
      s.created_at = q.Text(7);
      s.points = static_cast<int>(q.Int(8));
      s.predicted_points = static_cast<int>(q.Int(9));
      s.max_time_scale = q.Double(10);
      s.evaluations = static_cast<int>(q.Int(11));
      runs.push_back(std::move(s));
    }
    return runs;
  }

  RunSummary FindRun(const std::string& ref) override { return FindRunIn(ListRuns(), ref, db_.path()); }

  std::vector<Point> Points(std::int64_t run_id) override {
    SqliteStatement q(db_, PointQuery("WHERE p.run_id = ?1", true));
    q.Bind(1, run_id);
    std::vector<Point> points = ReadPoints(q);
    AttachRepeats(points, "WHERE p.run_id = ?1", run_id);
    return points;
  }

  std::vector<Point> AllPoints() override {
    SqliteStatement q(db_, PointQuery("", false));
    return ReadPoints(q);
  }

  int SchemaVersion() override { return ReadSchemaVersion(db_); }

  std::vector<std::string> DiffStoredPoint(std::int64_t point_id, const Point& point) override {
    const PointRow expected = MakePointRow(point, point.run_id, schema_version_);
    SqliteStatement q(db_, PointColumnsQuery(expected, "?1"));
    q.Bind(1, point_id);
    if (!q.Step()) return {"the point is no longer in the store"};
    return DiffPointRow(q, expected);
  }

 protected:
  SqlSession& Session() override { return *session_; }

 private:
  // The points `where` selects (PointSelectList), unordered.
  std::string PointQuery(const std::string& where, bool raw) const {
    return "SELECT " + PointSelectList(schema_version_, raw) + " FROM points p JOIN runs r ON r.id = p.run_id " + where;
  }

  // The rows of a PointQuery statement as points, records parsed on the thread budget, sorted by
  // run and natural key (in memory: cheaper than the database's sort for many points).
  std::vector<Point> ReadPoints(SqliteStatement& q) const {
    std::vector<Point> points;
    std::vector<PointRecordText> texts;
    while (q.Step()) points.push_back(ReadPointRow(q, schema_version_, &texts.emplace_back()));
    ParsePointRecords(points, texts);
    SortPointsByRunAndKey(points);
    return points;
  }

  std::int64_t EnsureRun(const RunInfo& run) {
    if (run.run_key.empty()) throw std::invalid_argument("a run needs a key");
    SqliteStatement insert(db_,
                           "INSERT OR IGNORE INTO runs (run_key, label, recipe, host, infermark_version, source, "
                           "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    insert.Bind(1, run.run_key)
        .Bind(2, run.label.empty() ? run.run_key : run.label)
        .Bind(3, run.recipe)
        .Bind(4, run.host)
        .Bind(5, run.infermark_version)
        .Bind(6, run.source)
        .Bind(7, IsoUtcNow());
    insert.Step();
    SqliteStatement select(db_, "SELECT id FROM runs WHERE run_key = ?1");
    select.Bind(1, run.run_key);
    if (!select.Step()) throw std::runtime_error("results store " + db_.path() + ": run vanished after insert");
    return select.Int(0);
  }

  void StorePoint(IngestOutcome& outcome, const Point& point) {
    PointRow row = MakePointRow(point, outcome.run_id, schema_version_);
    // A point stored again from a bundle (or no longer from one) records its receipt.
    const bool receipts = schema_version_ >= ReceiptsSchemaVersion();
    SqliteStatement& existing =
        Cached(std::string("SELECT id, raw_sha256, agg_json, kind, time_scale, ") + (receipts ? "receipt_id" : "''") +
               " FROM points WHERE run_id = ?1 AND point_key = ?2");
    existing.Bind(1, outcome.run_id).Bind(2, row.key);
    std::int64_t id = 0;
    if (existing.Step()) {
      id = existing.Int(0);
      if (existing.Text(1) == row.sha256 && existing.Text(2) == row.agg &&
          existing.Text(3) == PointKindName(point.provenance.kind) &&
          existing.Double(4) == point.provenance.time_scale && (!receipts || existing.Text(5) == point.receipt_id)) {
        ++outcome.unchanged;
        return;
      }
    }
    std::vector<std::pair<const char*, StoreValue>>& columns = row.columns;
    columns.emplace_back(id == 0 ? "ingested_at" : "updated_at", IsoUtcNow());
    WriteRow("points", id, columns, outcome);
    if (schema_version_ < RepeatsSchemaVersion()) return;
    if (id == 0) {
      SqliteStatement& inserted = Cached("SELECT id FROM points WHERE run_id = ?1 AND point_key = ?2");
      inserted.Bind(1, outcome.run_id).Bind(2, row.key);
      if (inserted.Step()) id = inserted.Int(0);
    }
    StoreRepeats(id, point.repeats);
  }

  // A point's repeats replace whatever an earlier result under its key had.
  void StoreRepeats(std::int64_t point_id, const std::vector<PointRepeat>& repeats) {
    SqliteStatement& clear = Cached("DELETE FROM point_repeats WHERE point_id = ?1");
    clear.Bind(1, point_id);
    clear.Step();
    IngestOutcome ignored;
    for (const PointRepeat& r : repeats) WriteRow("point_repeats", 0, MakeRepeatColumns(r, point_id), ignored);
  }

  // Each point's repeats, read in one query over `where` (a condition on `p`, the points table).
  void AttachRepeats(std::vector<Point>& points, const std::string& where, std::int64_t run_id) {
    if (schema_version_ < RepeatsSchemaVersion() || points.empty()) return;
    std::map<std::int64_t, Point*> by_id;
    for (Point& p : points) by_id[p.id] = &p;
    SqliteStatement q(db_, std::string("SELECT ") + kRepeatSelectList +
                               " FROM point_repeats WHERE point_id IN (SELECT p.id FROM points p " + where +
                               ") ORDER BY point_id, repeat_index");
    q.Bind(1, run_id);
    while (q.Step()) {
      const auto it = by_id.find(q.Int(0));
      if (it != by_id.end()) it->second->repeats.push_back(ReadRepeatRow(q));
    }
  }

  // Inserts `columns` into `table` (id 0) or updates row `id` there, and counts it in `outcome`.
  void WriteRow(const char* table, std::int64_t id, const std::vector<std::pair<const char*, StoreValue>>& columns,
                IngestOutcome& outcome) {
    std::string names, values, sets;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string param = "?" + std::to_string(i + 1);
      names += (i ? ", " : "") + std::string(columns[i].first);
      values += (i ? ", " : "") + param;
      sets += (i ? ", " : "") + std::string(columns[i].first) + " = " + param;
    }
    const std::string id_param = "?" + std::to_string(columns.size() + 1);
    const std::string name = table;
    SqliteStatement& write = Cached(id == 0 ? "INSERT INTO " + name + " (" + names + ") VALUES (" + values + ")"
                                            : "UPDATE " + name + " SET " + sets + " WHERE id = " + id_param);
    for (std::size_t i = 0; i < columns.size(); ++i) BindValue(write, static_cast<int>(i + 1), columns[i].second);
    if (id != 0) write.Bind(static_cast<int>(columns.size() + 1), id);
    write.Step();
    ++(id == 0 ? outcome.added : outcome.updated);
  }

  void RequireEvaluations() const {
    if (schema_version_ < kEvaluationsSchemaVersion) {
      throw InputError(Diagnostic{{db_.path(), 0, 0},
                                  "",
                                  "",
                                  "this store's schema (" + std::to_string(schema_version_) +
                                      ") has no evaluations table; open it without a "
                                      "target version to migrate it"});
    }
  }

  void StoreEvaluation(IngestOutcome& outcome, const Evaluation& evaluation) {
    EvaluationRow row = MakeEvaluationRow(evaluation, outcome.run_id);
    SqliteStatement& existing = Cached("SELECT id, raw_sha256 FROM evaluations WHERE run_id = ?1 AND eval_key = ?2");
    existing.Bind(1, outcome.run_id).Bind(2, row.key);
    std::int64_t id = 0;
    if (existing.Step()) {
      id = existing.Int(0);
      if (existing.Text(1) == row.sha256) {
        ++outcome.unchanged;
        return;
      }
    }
    auto& columns = row.columns;
    columns.emplace_back(id == 0 ? "ingested_at" : "updated_at", IsoUtcNow());
    WriteRow("evaluations", id, columns, outcome);
  }

  // The statement for `sql`, prepared once per store and reset for this use.
  SqliteStatement& Cached(const std::string& sql) {
    std::unique_ptr<SqliteStatement>& statement = statements_[sql];
    if (!statement) statement = std::make_unique<SqliteStatement>(db_, sql);
    statement->Reset();
    return *statement;
  }

  SqliteDb db_;
  int schema_version_ = 0;  // as migrated at open
  // Ingest's statements, prepared once (preparing them per point was a third of an ingest); reset
  // after each Ingest so that none keeps a read open. Declared after db_: finalized before it closes.
  std::map<std::string, std::unique_ptr<SqliteStatement>> statements_;
  std::unique_ptr<SqlSession> session_ = SqliteSession(db_);  // the shared queries' statements, also before db_
};

}  // namespace

std::unique_ptr<ResultStore> OpenStore(const std::string& path, const StoreOptions& options) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) throw InputError(Diagnostic{{path, 0, 0}, "", "", "cannot create the store's folder: " + ec.message()});
  return std::make_unique<SqliteStore>(path, options);
}

int CurrentSchemaVersion() {
  return static_cast<int>(StoreMigrations().size());
}

std::string DefaultStorePath() {
  return "results/infermark.db";
}

}  // namespace infermark::results
