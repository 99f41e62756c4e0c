#include "store/postgres_store.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>
#include <utility>
#include <variant>
#include <vector>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "store/evaluation_rows.hpp"
#include "store/postgres_db.hpp"
#include "store/sql_session.hpp"
#include "store/store_rows.hpp"
#include "store/store_schema.hpp"

namespace infermark::results {
namespace {

// A transaction that meets a deadlock or a serialization failure with another writer is retried
// this many times in all.
constexpr int kIngestAttempts = 5;
// PostgreSQL takes at most 65535 parameters per statement.
constexpr std::size_t kMaxParameters = 65535;
constexpr std::size_t kMaxBatchRows = 500;

PgParam Param(const StoreValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, *d).ptr;  // shortest text that reads back exactly
    return std::string(text, end);
  }
  if (const auto* t = std::get_if<std::string>(&value)) return *t;
  return std::nullopt;
}

bool Retryable(const PgError& e) {
  return e.sqlstate() == "40P01" || e.sqlstate() == "40001";
}

class PostgresStore final : public ResultStore {
 public:
  PostgresStore(const std::string& url, const StoreOptions& options) : db_(url) {
    // Records this session writes are compressed with lz4 where the server has it (PostgreSQL 14+
    // built with lz4, as Debian's is): pglz took most of the server's time in an ingest. Elsewhere
    // the server's default stays.
    try {
      db_.Exec("SET default_toast_compression = 'lz4'");
    } catch (const PgError&) {
      // An older server or one without lz4: pglz, as before.
    }
    MigratePostgresStore(db_, options.target_schema_version);
    schema_version_ = ReadPostgresSchemaVersion(db_);
  }

  IngestOutcome Ingest(const RunInfo& run, const std::vector<Point>& points) override {
    return InTransaction(run, [&](IngestOutcome& outcome) { StorePoints(outcome, points); });
  }

  IngestOutcome IngestEvaluations(const RunInfo& run, const std::vector<Evaluation>& evaluations) override {
    if (run.run_key.empty()) throw std::invalid_argument("a run needs a key");
    if (schema_version_ < kEvaluationsSchemaVersion) {
      throw InputError(Diagnostic{{db_.name(), 0, 0},
                                  "",
                                  "",
                                  "this store's schema (" + std::to_string(schema_version_) +
                                      ") has no evaluations table; open it without a "
                                      "target version to migrate it"});
    }
    return InTransaction(run, [&](IngestOutcome& outcome) {
      for (const Evaluation& e : evaluations) StoreEvaluation(outcome, e);
    });
  }

  // Runs `store_rows` for `run` in one transaction. A lost connection (a restarted server) is made
  // again and the whole transaction repeated: nothing of it was committed, or all of it was and
  // the repeat finds the rows unchanged.
  template <class StoreRows>
  IngestOutcome InTransaction(const RunInfo& run, const StoreRows& store_rows) {
    for (int attempt = 1;; ++attempt) {
      try {
        db_.Exec("BEGIN");
        IngestOutcome outcome;
        outcome.run_id = EnsureRun(run);
        store_rows(outcome);
        db_.Exec("COMMIT");
        return outcome;
      } catch (const PgError& e) {
        const bool lost = db_.Broken();
        if (lost) {
          db_.Reconnect();
        } else {
          db_.Exec("ROLLBACK");
        }
        if (!(lost || Retryable(e)) || attempt == kIngestAttempts) throw;
      } catch (...) {
        if (!db_.Broken()) db_.Exec("ROLLBACK");
        throw;
      }
    }
  }

  std::vector<Evaluation> Evaluations(const EvaluationQuery& query) override {
    if (schema_version_ < kEvaluationsSchemaVersion) return {};
    return Reading([&] {
      std::vector<StoreValue> values;
      const std::string where = EvaluationWhere(
          query, [](int n) { return "$" + std::to_string(n); }, values);
      std::vector<PgParam> params;
      for (const StoreValue& v : values) params.push_back(Param(v));
      const PgResult q = db_.Query(
          "SELECT " + EvaluationSelectList() + " FROM evaluations e JOIN runs r ON r.id = e.run_id" + where, params);
      std::vector<Evaluation> evaluations;
      for (int i = 0; i < q.Rows(); ++i) evaluations.push_back(ReadEvaluationRow(PgResult::Row(q, i)));
      SortEvaluations(evaluations);
      return evaluations;
    });
  }

  std::vector<RunSummary> ListRuns() override {
    return Reading([&] { return ReadRuns(); });
  }

  RunSummary FindRun(const std::string& ref) override { return FindRunIn(ListRuns(), ref, db_.name()); }

  std::vector<Point> Points(std::int64_t run_id) override {
    return Reading([&] {
      std::vector<Point> points =
          ReadPoints(db_.Query(PointQuery("WHERE p.run_id = $1", true), {std::to_string(run_id)}));
      AttachRepeats(points, run_id);
      return points;
    });
  }

  std::vector<Point> AllPoints() override {
    return Reading([&] { return ReadPoints(db_.Query(PointQuery("", false))); });
  }

  int SchemaVersion() override {
    return Reading([&] { return ReadPostgresSchemaVersion(db_); });
  }

  std::vector<std::string> DiffStoredPoint(std::int64_t point_id, const Point& point) override {
    return Reading([&]() -> std::vector<std::string> {
      const PointRow expected = MakePointRow(point, point.run_id, schema_version_);
      const PgResult q = db_.Query(PointColumnsQuery(expected, "$1"), {std::to_string(point_id)});
      if (q.Rows() == 0) return {"the point is no longer in the store"};
      return DiffPointRow(PgResult::Row(q, 0), expected);
    });
  }

 protected:
  SqlSession& Session() override { return *session_; }

 private:
  // `read()`, once more on a new connection when the connection was lost.
  template <typename F>
  auto Reading(F read) -> decltype(read()) {
    try {
      return read();
    } catch (const PgError&) {
      if (!db_.Broken()) throw;
      db_.Reconnect();
      return read();
    }
  }

  std::vector<RunSummary> ReadRuns() {
    const std::string evaluations = schema_version_ >= kEvaluationsSchemaVersion
                                        ? "(SELECT COUNT(*) FROM evaluations e WHERE e.run_id = r.id)"
                                        : "0";
    const PgResult q = db_.Query(
        "SELECT r.id, r.run_key, r.label, r.recipe, r.host, r.infermark_version, r.source, r.created_at, "
        "COUNT(p.id), COUNT(p.id) FILTER (WHERE p.kind = 'predicted'), COALESCE(MAX(p.time_scale), 1), " +
        evaluations + " FROM runs r LEFT JOIN points p ON p.run_id = r.id GROUP BY r.id ORDER BY r.id");
    std::vector<RunSummary> runs;
    for (int i = 0; i < q.Rows(); ++i) {
      RunSummary s;
      s.id = q.Int(i, 0);
      s.info = {q.Text(i, 1), q.Text(i, 2), q.Text(i, 3), q.Text(i, 4), q.Text(i, 5), q.Text(i, 6)};
      s.created_at = q.Text(i, 7);
      s.points = static_cast<int>(q.Int(i, 8));
      s.predicted_points = static_cast<int>(q.Int(i, 9));
      s.max_time_scale = q.Double(i, 10);
      s.evaluations = static_cast<int>(q.Int(i, 11));
      runs.push_back(std::move(s));
    }
    return runs;
  }

  // The points `where` selects (PointSelectList), unordered.
  std::string PointQuery(const std::string& where, bool raw) const {
    return "SELECT " + PointSelectList(schema_version_, raw) + " FROM points p JOIN runs r ON r.id = p.run_id " + where;
  }

  // The rows of a PointQuery result as points, records parsed on the thread budget, sorted by run
  // and natural key (in memory: an ORDER BY over every point spills to disk at the default
  // work_mem and took a second for 100,000 points).
  std::vector<Point> ReadPoints(const PgResult& q) const {
    std::vector<Point> points;
    std::vector<PointRecordText> texts(static_cast<std::size_t>(q.Rows()));
    points.reserve(texts.size());
    for (int i = 0; i < q.Rows(); ++i) {
      points.push_back(ReadPointRow(PgResult::Row(q, i), schema_version_, &texts[static_cast<std::size_t>(i)]));
    }
    ParsePointRecords(points, texts);
    SortPointsByRunAndKey(points);
    return points;
  }

  // The run's id, inserting it when new. A run another writer inserts meanwhile is found, not duplicated.
  std::int64_t EnsureRun(const RunInfo& run) {
    const std::string select = "SELECT id FROM runs WHERE run_key = $1";
    if (const PgResult found = db_.Query(select, {run.run_key}); found.Rows() == 1) return found.Int(0, 0);
    const PgResult inserted = db_.Query(
        "INSERT INTO runs (run_key, label, recipe, host, infermark_version, source, created_at) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (run_key) DO NOTHING RETURNING id",
        {run.run_key, run.label.empty() ? run.run_key : run.label, run.recipe, run.host, run.infermark_version,
         run.source, IsoUtcNow()});
    if (inserted.Rows() == 1) return inserted.Int(0, 0);
    const PgResult found = db_.Query(select, {run.run_key});
    if (found.Rows() != 1) throw std::runtime_error("results store " + db_.name() + ": run vanished after insert");
    return found.Int(0, 0);
  }

  // Writes `points` in multi-row INSERT … ON CONFLICT statements. Points go in natural-key order,
  // so that concurrent writers lock rows in one order (no deadlock); a key met twice starts a new
  // statement, so a later point replaces an earlier one as in a point-by-point ingest.
  void StorePoints(IngestOutcome& outcome, const std::vector<Point>& points) {
    if (points.empty()) return;
    std::vector<PointRow> rows;
    rows.reserve(points.size());
    for (const Point& p : points) rows.push_back(MakePointRow(p, outcome.run_id, schema_version_));
    std::vector<std::size_t> order(rows.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return rows[a].key < rows[b].key; });
    const std::size_t width = rows.front().columns.size() + 1;  // with ingested_at
    const std::size_t batch_rows = std::min(kMaxBatchRows, kMaxParameters / width);
    const std::string now = IsoUtcNow();
    std::vector<const PointRow*> batch;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const PointRow& row = rows[order[i]];
      if (!batch.empty() && (batch.size() == batch_rows || batch.back()->key == row.key)) {
        StoreBatch(outcome, batch, now);
        batch.clear();
      }
      batch.push_back(&row);
    }
    StoreBatch(outcome, batch, now);
  }

  void StoreBatch(IngestOutcome& outcome, const std::vector<const PointRow*>& batch, const std::string& now) {
    const auto& columns = batch.front()->columns;
    std::string names, sets, values;
    for (const auto& [name, value] : columns) {
      names += std::string(name) + ", ";
      sets += std::string(name) + " = EXCLUDED." + name + ", ";
    }
    names += "ingested_at";
    // A replaced point keeps its first ingest time; stores from version 2 on say when it changed.
    sets += schema_version_ >= 2 ? "updated_at = EXCLUDED.ingested_at" : "ingested_at = points.ingested_at";
    std::vector<PgParam> params;
    params.reserve(batch.size() * (columns.size() + 1));
    for (const PointRow* row : batch) {
      values += values.empty() ? "(" : ", (";
      for (std::size_t c = 0; c <= columns.size(); ++c) {
        params.push_back(c < columns.size() ? Param(row->columns[c].second) : PgParam(now));
        values += (c ? ", $" : "$") + std::to_string(params.size());
      }
      values += ")";
    }
    // An unchanged point (same raw result, record, kind, time scale and receipt) is left alone and
    // returns no row; xmax is 0 on a row this statement inserted, not on one it updated.
    const PgResult written = db_.Query(
        "INSERT INTO points (" + names + ") VALUES " + values + " ON CONFLICT (run_id, point_key) DO UPDATE SET " +
            sets +
            " WHERE NOT (points.raw_sha256 = EXCLUDED.raw_sha256 AND points.agg_json = EXCLUDED.agg_json AND "
            "points.kind = EXCLUDED.kind AND points.time_scale = EXCLUDED.time_scale" +
            (schema_version_ >= ReceiptsSchemaVersion() ? " AND points.receipt_id = EXCLUDED.receipt_id" : "") +
            ") RETURNING (xmax = 0), id, point_key",
        params);
    int added = 0;
    for (int i = 0; i < written.Rows(); ++i) added += written.Text(i, 0) == "t" ? 1 : 0;
    if (schema_version_ >= RepeatsSchemaVersion()) {
      // A written point's repeats replace whatever an earlier result under its key had.
      for (int i = 0; i < written.Rows(); ++i) {
        const std::string key = written.Text(i, 2);
        const auto row = std::find_if(batch.begin(), batch.end(), [&](const PointRow* r) { return r->key == key; });
        if (row != batch.end() && (*row)->repeats != nullptr) StoreRepeats(written.Int(i, 1), *(*row)->repeats);
      }
    }
    outcome.added += added;
    outcome.updated += written.Rows() - added;
    outcome.unchanged += static_cast<int>(batch.size()) - written.Rows();
  }

  void StoreRepeats(std::int64_t point_id, const std::vector<PointRepeat>& repeats) {
    db_.Query("DELETE FROM point_repeats WHERE point_id = $1", {std::to_string(point_id)});
    for (const PointRepeat& r : repeats) {
      const auto columns = MakeRepeatColumns(r, point_id);
      std::string names, values;
      std::vector<PgParam> params;
      for (const auto& [name, value] : columns) {
        names += (names.empty() ? "" : ", ") + std::string(name);
        params.push_back(Param(value));
        values += (values.empty() ? "$" : ", $") + std::to_string(params.size());
      }
      db_.Query("INSERT INTO point_repeats (" + names + ") VALUES (" + values + ")", params);
    }
  }

  // Each point's repeats, read in one query for the points of run `run_id`.
  void AttachRepeats(std::vector<Point>& points, std::int64_t run_id) {
    if (schema_version_ < RepeatsSchemaVersion() || points.empty()) return;
    std::map<std::int64_t, Point*> by_id;
    for (Point& p : points) by_id[p.id] = &p;
    const PgResult q = db_.Query(std::string("SELECT ") + kRepeatSelectList +
                                     " FROM point_repeats WHERE point_id IN (SELECT id FROM points WHERE run_id = $1) "
                                     "ORDER BY point_id, repeat_index",
                                 {std::to_string(run_id)});
    for (int i = 0; i < q.Rows(); ++i) {
      const auto it = by_id.find(q.Int(i, 0));
      if (it != by_id.end()) it->second->repeats.push_back(ReadRepeatRow(PgResult::Row(q, i)));
    }
  }

  // One evaluation: inserted, replaced when its raw text changed, else left alone (no row returned).
  void StoreEvaluation(IngestOutcome& outcome, const Evaluation& evaluation) {
    const EvaluationRow row = MakeEvaluationRow(evaluation, outcome.run_id);
    std::string names, values, sets;
    std::vector<PgParam> params;
    for (const auto& [name, value] : row.columns) {
      params.push_back(Param(value));
      names += std::string(name) + ", ";
      values += "$" + std::to_string(params.size()) + ", ";
      sets += std::string(name) + " = EXCLUDED." + name + ", ";
    }
    params.push_back(IsoUtcNow());
    names += "ingested_at";
    values += "$" + std::to_string(params.size());
    sets += "updated_at = EXCLUDED.ingested_at";
    const PgResult written = db_.Query("INSERT INTO evaluations (" + names + ") VALUES (" + values +
                                           ") ON CONFLICT (run_id, eval_key) DO UPDATE SET " + sets +
                                           " WHERE evaluations.raw_sha256 <> EXCLUDED.raw_sha256 RETURNING (xmax = 0)",
                                       params);
    if (written.Rows() == 0) {
      ++outcome.unchanged;
    } else if (written.Text(0, 0) == "t") {
      ++outcome.added;
    } else {
      ++outcome.updated;
    }
  }

  PgConnection db_;
  int schema_version_ = 0;  // as migrated at open
  std::unique_ptr<SqlSession> session_ = PostgresSession(db_);
};

}  // namespace

std::unique_ptr<ResultStore> OpenPostgresStore(const std::string& url, const StoreOptions& options) {
  return std::make_unique<PostgresStore>(url, options);
}

}  // namespace infermark::results
