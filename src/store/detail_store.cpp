// ResultStore's row attempts, point details and evaluation samples, written once for both stores
// on their SqlSession: the SQL below runs unchanged on SQLite and PostgreSQL.
#include <algorithm>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "store/result_store.hpp"
#include "store/sql_session.hpp"
#include "store/store_rows.hpp"
#include "store/store_schema.hpp"

namespace infermark::results {
namespace {

// Rows per multi-row INSERT of samples: well under both databases' parameter limits.
constexpr std::size_t kSampleBatch = 200;

constexpr const char* kAttemptColumns =
    "a.id, a.run_id, r.run_key, a.result_filename, a.attempt, a.outcome, a.failure_class, a.row_status, a.reason, "
    "a.runner_label, a.hw, a.executor, a.target, a.host, a.model, a.framework, a.precision, a.isl, a.osl, a.conc, "
    "a.config_key, a.started_at, a.duration_s, a.recorded_at";

RowAttempt ReadAttemptRow(const SqlRow& q) {
  RowAttempt a;
  int c = 0;
  a.id = q.Int(c++);
  a.run_id = q.Int(c++);
  a.run_key = q.Text(c++);
  a.result_filename = q.Text(c++);
  a.attempt = static_cast<int>(q.Int(c++));
  a.outcome = ParseAttemptOutcome(q.Text(c++)).value_or(AttemptOutcome::kFailed);
  a.failure = ParseFailureClass(q.Text(c++)).value_or(FailureClass::kNone);
  a.row_status = q.Text(c++);
  a.reason = q.Text(c++);
  a.runner_label = q.Text(c++);
  a.hw = q.Text(c++);
  a.executor = q.Text(c++);
  a.target = q.Text(c++);
  a.host = q.Text(c++);
  a.model = q.Text(c++);
  a.framework = q.Text(c++);
  a.precision = q.Text(c++);
  a.isl = q.Int(c++);
  a.osl = q.Int(c++);
  a.conc = q.Int(c++);
  a.config_key = q.Text(c++);
  a.started_at = q.Text(c++);
  if (!q.IsNull(c)) a.duration_s = q.Double(c);
  ++c;
  a.recorded_at = q.Text(c++);
  return a;
}

StoreValue OptionalBool(const std::optional<bool>& v) {
  return v ? StoreValue(std::int64_t{*v ? 1 : 0}) : StoreValue();
}

std::optional<bool> ReadOptionalBool(const SqlRow& q, int i) {
  if (q.IsNull(i)) return std::nullopt;
  return q.Int(i) != 0;
}

// `text` as a LIKE pattern that matches it anywhere, its wildcards escaped with '\'.
std::string ContainsPattern(const std::string& text) {
  std::string pattern = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') pattern += '\\';
    pattern += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  return pattern + "%";
}

}  // namespace

int DetailsSchemaVersion() {
  static const int version = SchemaVersionOf("CREATE TABLE row_attempts");
  return version;
}

namespace {

// The store's schema has the detail tables; otherwise an InputError for a write.
bool HasDetails(ResultStore& store) {
  return store.SchemaVersion() >= DetailsSchemaVersion();
}

void RequireDetails(ResultStore& store, SqlSession& session) {
  if (HasDetails(store)) return;
  throw InputError(Diagnostic{{session.Name(), 0, 0},
                              "",
                              "",
                              "this store's schema (" + std::to_string(store.SchemaVersion()) +
                                  ") keeps no row attempts, point details or eval samples; open it without a "
                                  "target version to migrate it"});
}

// The id of run `run`, inserted when new (as both stores' ingest does).
std::int64_t EnsureRun(SqlSession& session, const RunInfo& run) {
  if (run.run_key.empty()) throw std::invalid_argument("a run needs a key");
  session.Query(
      "INSERT INTO runs (run_key, label, recipe, host, infermark_version, source, created_at) "
      "VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (run_key) DO NOTHING",
      {run.run_key, run.label.empty() ? run.run_key : run.label, run.recipe, run.host, run.infermark_version,
       run.source, IsoUtcNow()});
  std::int64_t id = 0;
  session.Query("SELECT id FROM runs WHERE run_key = $1", {run.run_key}, [&](const SqlRow& r) { id = r.Int(0); });
  if (id == 0) throw std::runtime_error("results store " + session.Name() + ": run vanished after insert");
  return id;
}

// The id of the row of `table` with `key_column` = `key` in run `run_key`, 0 when none.
std::int64_t FindInRun(SqlSession& session, const char* table, const char* key_column, const std::string& run_key,
                       const std::string& key) {
  std::int64_t id = 0;
  session.Query(std::string("SELECT t.id FROM ") + table +
                    " t JOIN runs r ON r.id = t.run_id WHERE r.run_key = $1 AND t." + key_column + " = $2",
                {run_key, key}, [&](const SqlRow& r) { id = r.Int(0); });
  return id;
}

}  // namespace

IngestOutcome ResultStore::IngestAttempts(const RunInfo& run, const std::vector<RowAttempt>& attempts) {
  SqlSession& session = Session();
  RequireDetails(*this, session);
  IngestOutcome outcome;
  session.Transaction([&] {
    outcome = IngestOutcome{};
    outcome.run_id = EnsureRun(session, run);
    const std::string now = IsoUtcNow();
    for (const RowAttempt& a : attempts) {
      if (a.started_at.empty()) throw std::invalid_argument("a row attempt needs its start time");
      if ((a.outcome == AttemptOutcome::kFailed) != (a.failure != FailureClass::kNone)) {
        throw std::invalid_argument("a row attempt has a failure class exactly when it failed");
      }
      const std::string key = a.AttemptKey();
      std::int64_t existing = 0;
      session.Query("SELECT id FROM row_attempts WHERE run_id = $1 AND attempt_key = $2", {outcome.run_id, key},
                    [&](const SqlRow& r) { existing = r.Int(0); });
      const std::vector<StoreValue> values = {outcome.run_id,
                                              key,
                                              a.result_filename,
                                              std::int64_t{a.attempt},
                                              std::string(AttemptOutcomeName(a.outcome)),
                                              std::string(FailureClassName(a.failure)),
                                              a.row_status,
                                              a.reason,
                                              a.runner_label,
                                              a.hw,
                                              a.executor,
                                              a.target,
                                              a.host,
                                              a.model,
                                              a.framework,
                                              a.precision,
                                              std::int64_t{a.isl},
                                              std::int64_t{a.osl},
                                              std::int64_t{a.conc},
                                              a.config_key,
                                              a.started_at,
                                              OptionalValue(a.duration_s),
                                              a.result_json,
                                              a.client_log_tail,
                                              a.server_log_tail,
                                              now};
      const char* columns =
          "run_id, attempt_key, result_filename, attempt, outcome, failure_class, row_status, reason, runner_label, "
          "hw, executor, target, host, model, framework, precision, isl, osl, conc, config_key, started_at, "
          "duration_s, result_json, client_log_tail, server_log_tail, recorded_at";
      if (existing == 0) {
        session.Query(std::string("INSERT INTO row_attempts (") + columns +
                          ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, "
                          "$18, $19, $20, $21, $22, $23, $24, $25, $26)",
                      values);
        ++outcome.added;
      } else {
        std::vector<StoreValue> with_id = values;
        with_id.emplace_back(existing);
        session.Query(
            "UPDATE row_attempts SET run_id = $1, attempt_key = $2, result_filename = $3, attempt = $4, outcome = $5, "
            "failure_class = $6, row_status = $7, reason = $8, runner_label = $9, hw = $10, executor = $11, "
            "target = $12, host = $13, model = $14, framework = $15, precision = $16, isl = $17, osl = $18, "
            "conc = $19, config_key = $20, started_at = $21, duration_s = $22, result_json = $23, "
            "client_log_tail = $24, server_log_tail = $25, recorded_at = $26 WHERE id = $27",
            with_id);
        ++outcome.updated;
      }
    }
  });
  return outcome;
}

std::vector<RowAttempt> ResultStore::Attempts() {
  SqlSession& session = Session();
  std::vector<RowAttempt> attempts;
  if (!HasDetails(*this)) return attempts;
  session.Read([&] {
    attempts.clear();
    session.Query(std::string("SELECT ") + kAttemptColumns +
                      " FROM row_attempts a JOIN runs r ON r.id = a.run_id ORDER BY a.started_at, a.id",
                  {}, [&](const SqlRow& r) { attempts.push_back(ReadAttemptRow(r)); });
  });
  return attempts;
}

std::string ResultStore::AttemptsStamp() {
  SqlSession& session = Session();
  std::string stamp;
  if (!HasDetails(*this)) return stamp;
  session.Read([&] {
    session.Query("SELECT COUNT(*), COALESCE(MAX(id), 0), COALESCE(MAX(recorded_at), '') FROM row_attempts", {},
                  [&](const SqlRow& r) { stamp = r.Text(0) + ":" + r.Text(1) + ":" + r.Text(2); });
  });
  return stamp;
}

std::optional<std::int64_t> ResultStore::CommitCounter() {
  return Session().CommitCounter();
}

std::optional<RowAttempt> ResultStore::FindAttempt(std::int64_t id) {
  SqlSession& session = Session();
  std::optional<RowAttempt> found;
  if (!HasDetails(*this)) return found;
  session.Read([&] {
    session.Query(std::string("SELECT ") + kAttemptColumns +
                      ", a.result_json, a.client_log_tail, a.server_log_tail FROM row_attempts a "
                      "JOIN runs r ON r.id = a.run_id WHERE a.id = $1",
                  {id}, [&](const SqlRow& r) {
                    found = ReadAttemptRow(r);
                    found->result_json = r.Text(24);
                    found->client_log_tail = r.Text(25);
                    found->server_log_tail = r.Text(26);
                  });
  });
  return found;
}

bool ResultStore::StorePointDetails(const RunInfo& run, const std::string& point_key, const PointDetails& details) {
  SqlSession& session = Session();
  RequireDetails(*this, session);
  bool stored = false;
  session.Transaction([&] {
    const std::int64_t point_id = FindInRun(session, "points", "point_key", run.run_key, point_key);
    stored = point_id != 0;
    if (!stored) return;
    session.Query("DELETE FROM point_details WHERE point_id = $1", {point_id});
    session.Query("DELETE FROM gpu_samples WHERE point_id = $1", {point_id});
    session.Query(
        "INSERT INTO point_details (point_id, timeline, server_log_tail, client_log_tail, dcgm_manifest, stored_at) "
        "VALUES ($1, $2, $3, $4, $5, $6)",
        {point_id, details.timeline, details.server_log_tail, details.client_log_tail, details.dcgm_manifest,
         IsoUtcNow()});
    for (const GpuSeries& s : details.gpus) {
      session.Query(
          "INSERT INTO gpu_samples (point_id, source, host, gpu, start_unix, samples, series) "
          "VALUES ($1, $2, $3, $4, $5, $6, $7)",
          {point_id, s.source, s.host, s.gpu, s.start_unix, static_cast<std::int64_t>(s.t_s.size()),
           DumpJson(GpuSamplesJson(s), kCompactJson)});
    }
  });
  return stored;
}

std::optional<Point> ResultStore::FindPoint(std::int64_t id) {
  SqlSession& session = Session();
  const int schema = SchemaVersion();
  std::optional<Point> found;
  session.Read([&] {
    session.Query("SELECT " + PointSelectList(schema, true) + " FROM points p JOIN runs r ON r.id = p.run_id " +
                      "WHERE p.id = $1",
                  {id}, [&](const SqlRow& r) { found = ReadPointRow(r, schema); });
  });
  return found;
}

PointDetails ResultStore::FindPointDetails(std::int64_t id, bool timeline, bool samples) {
  SqlSession& session = Session();
  PointDetails d;
  if (!HasDetails(*this)) return d;
  session.Read([&] {
    d = PointDetails{};
    session.Query(std::string("SELECT ") + (timeline ? "timeline" : "''") +
                      ", server_log_tail, client_log_tail, dcgm_manifest FROM point_details WHERE point_id = $1",
                  {id}, [&](const SqlRow& r) {
                    d.timeline = r.Text(0);
                    d.server_log_tail = r.Text(1);
                    d.client_log_tail = r.Text(2);
                    d.dcgm_manifest = r.Text(3);
                  });
    if (!samples) return;
    session.Query("SELECT source, host, gpu, start_unix, series FROM gpu_samples WHERE point_id = $1 ORDER BY id", {id},
                  [&](const SqlRow& r) {
                    GpuSeries s;
                    s.source = r.Text(0);
                    s.host = r.Text(1);
                    s.gpu = r.Text(2);
                    s.start_unix = r.Double(3);
                    ReadGpuSamplesJson(r.Text(4), s);
                    d.gpus.push_back(std::move(s));
                  });
  });
  return d;
}

std::pair<bool, std::size_t> ResultStore::PointDetailsExtent(std::int64_t id) {
  SqlSession& session = Session();
  std::pair<bool, std::size_t> extent{false, 0};
  if (!HasDetails(*this)) return extent;
  session.Read([&] {
    extent = {false, 0};
    session.Query("SELECT length(timeline) > 0 FROM point_details WHERE point_id = $1", {id},
                  [&](const SqlRow& r) { extent.first = r.Text(0) == "1" || r.Text(0) == "t"; });
    session.Query("SELECT COUNT(*) FROM gpu_samples WHERE point_id = $1", {id},
                  [&](const SqlRow& r) { extent.second = static_cast<std::size_t>(r.Int(0)); });
  });
  return extent;
}

bool ResultStore::StoreEvalSamples(const RunInfo& run, const std::string& eval_key,
                                   const std::vector<StoredEvalSample>& samples) {
  SqlSession& session = Session();
  RequireDetails(*this, session);
  bool stored = false;
  session.Transaction([&] {
    const std::int64_t evaluation_id = FindInRun(session, "evaluations", "eval_key", run.run_key, eval_key);
    stored = evaluation_id != 0;
    if (!stored) return;
    session.Query("DELETE FROM eval_samples WHERE evaluation_id = $1", {evaluation_id});
    for (std::size_t begin = 0; begin < samples.size(); begin += kSampleBatch) {
      const std::size_t end = std::min(samples.size(), begin + kSampleBatch);
      std::string sql =
          "INSERT INTO eval_samples (evaluation_id, doc_id, question, response, strict_answer, flexible_answer, "
          "target, correct, flexible_correct, error) VALUES ";
      std::vector<StoreValue> params;
      for (std::size_t i = begin; i < end; ++i) {
        const StoredEvalSample& s = samples[i];
        const StoreValue row[] = {evaluation_id, std::int64_t{s.doc_id},  s.question,
                                  s.response,    s.strict_answer,         s.flexible_answer,
                                  s.target,      OptionalBool(s.correct), OptionalBool(s.flexible_correct),
                                  s.error};
        sql += i == begin ? "(" : ", (";
        for (std::size_t c = 0; c < std::size(row); ++c) {
          params.push_back(row[c]);
          sql += (c ? ", $" : "$") + std::to_string(params.size());
        }
        sql += ")";
      }
      session.Query(sql, params);
    }
  });
  return stored;
}

EvalSamplePage ResultStore::EvalSamples(const EvalSampleQuery& query) {
  SqlSession& session = Session();
  EvalSamplePage page;
  if (!HasDetails(*this)) return page;
  std::string where = "evaluation_id = $1";
  std::vector<StoreValue> params = {query.evaluation_id};
  if (query.wrong_only) where += " AND (correct IS NULL OR correct = 0)";
  if (!query.text.empty()) {
    params.emplace_back(ContainsPattern(query.text));
    where +=
        " AND (lower(question) LIKE $2 ESCAPE '\\' OR lower(response) LIKE $2 ESCAPE '\\' OR lower(target) LIKE $2 "
        "ESCAPE '\\')";
  }
  session.Read([&] {
    page = EvalSamplePage{};
    session.Query(
        "SELECT COUNT(*), COALESCE(SUM(CASE WHEN correct = 1 THEN 0 ELSE 1 END), 0) FROM eval_samples "
        "WHERE evaluation_id = $1",
        {query.evaluation_id}, [&](const SqlRow& r) {
          page.total = r.Int(0);
          page.wrong = r.Int(1);
        });
    session.Query("SELECT COUNT(*) FROM eval_samples WHERE " + where, params,
                  [&](const SqlRow& r) { page.matched = r.Int(0); });
    std::vector<StoreValue> paged = params;
    paged.emplace_back(static_cast<std::int64_t>(std::max(0LL, query.limit)));
    paged.emplace_back(static_cast<std::int64_t>(std::max(0LL, query.offset)));
    const std::string limit = "$" + std::to_string(paged.size() - 1);
    const std::string offset = "$" + std::to_string(paged.size());
    session.Query(
        "SELECT doc_id, question, response, strict_answer, flexible_answer, target, correct, flexible_correct, error "
        "FROM eval_samples WHERE " +
            where + " ORDER BY doc_id LIMIT " + limit + " OFFSET " + offset,
        paged, [&](const SqlRow& r) {
          StoredEvalSample s;
          s.doc_id = r.Int(0);
          s.question = r.Text(1);
          s.response = r.Text(2);
          s.strict_answer = r.Text(3);
          s.flexible_answer = r.Text(4);
          s.target = r.Text(5);
          s.correct = ReadOptionalBool(r, 6);
          s.flexible_correct = ReadOptionalBool(r, 7);
          s.error = r.Text(8);
          page.samples.push_back(std::move(s));
        });
  });
  return page;
}

}  // namespace infermark::results
