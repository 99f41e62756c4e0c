// ResultStore on one SQLite file (WAL, so a report can read while a sweep writes).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "core/sha256.hpp"
#include "results/agentic_record.hpp"
#include "results/multinode_fields.hpp"
#include "results/power_fields.hpp"
#include "results/result_store.hpp"
#include "results/sqlite_db.hpp"
#include "results/store_schema.hpp"

namespace infermark::results {
namespace {

double Number(const Json& agg, const char* field) {
  const auto it = agg.find(field);
  return it != agg.end() && it->is_number() ? it->get<double>() : 0.0;
}

// A column's value; monostate is NULL.
using Value = std::variant<std::monostate, std::int64_t, double, std::string>;

void BindValue(SqliteStatement& statement, int index, const Value& value) {
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

// Migration 6's columns for `agg`: NULL for a single-node record; for a multi-node one what the
// record holds (pipeline and context sizes it lacks were 1, dp_attention 1/0).
void AddMultiNodeColumns(const Json& agg, std::vector<std::pair<const char*, Value>>& columns) {
  const auto multinode = agg.find("is_multinode");
  const bool is_multinode = multinode != agg.end() && multinode->is_boolean() && multinode->get<bool>();
  columns.emplace_back("is_multinode", std::int64_t{is_multinode ? 1 : 0});
  const auto count = [&](const char* column, std::optional<std::int64_t> fallback) {
    const auto it = agg.find(column);
    if (is_multinode && it != agg.end() && it->is_number()) {
      columns.emplace_back(column, Value(static_cast<std::int64_t>(std::llround(it->get<double>()))));
    } else {
      columns.emplace_back(column, is_multinode && fallback ? Value(*fallback) : Value());
    }
  };
  const auto text = [&](const char* column) {
    const auto it = agg.find(column);
    columns.emplace_back(column,
                         is_multinode && it != agg.end() && it->is_string() ? Value(it->get<std::string>()) : Value());
  };
  count("num_prefill_gpu", std::nullopt);
  count("num_decode_gpu", std::nullopt);
  const std::optional<MultiNodeFields> f = MultiNodeFieldsOf(agg);
  count("prefill_num_workers", std::nullopt);
  count("prefill_tp", std::nullopt);
  count("prefill_pp", 1);
  count("prefill_dcp_size", 1);
  count("prefill_pcp_size", 1);
  count("prefill_ep", std::nullopt);
  columns.emplace_back("prefill_dp_attention", f ? Value(std::int64_t{f->prefill.dp_attention ? 1 : 0}) : Value());
  count("decode_num_workers", std::nullopt);
  count("decode_tp", std::nullopt);
  count("decode_pp", 1);
  count("decode_dcp_size", 1);
  count("decode_pcp_size", 1);
  count("decode_ep", std::nullopt);
  columns.emplace_back("decode_dp_attention", f ? Value(std::int64_t{f->decode.dp_attention ? 1 : 0}) : Value());
  text("prefill_hw");
  text("decode_hw");
}

constexpr const char* kPointColumns =
    "p.id, r.run_key, p.model, p.hw, p.framework, p.precision, p.spec_decoding, p.disagg, p.topology, p.isl, "
    "p.osl, p.conc, p.kind, p.time_scale, p.config_key, p.matrix_row, p.image, p.engine_flags, p.host, "
    "p.infermark_version, p.metrics_version, p.verdict, p.started_at, p.ended_at, p.source_path, p.raw_sha256, "
    "p.raw_json, p.agg_json, p.ingested_at";

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
      db_.Exec("COMMIT");
    } catch (...) {
      db_.Exec("ROLLBACK");
      throw;
    }
    return outcome;
  }

  std::vector<RunSummary> ListRuns() override {
    SqliteStatement q(db_,
                      "SELECT r.id, r.run_key, r.label, r.recipe, r.host, r.infermark_version, r.source, r.created_at, "
                      "COUNT(p.id), COALESCE(SUM(p.kind = 'predicted'), 0), COALESCE(MAX(p.time_scale), 1) "
                      "FROM runs r LEFT JOIN points p ON p.run_id = r.id GROUP BY r.id ORDER BY r.id");
    std::vector<RunSummary> runs;
    while (q.Step()) {
      RunSummary s;
      s.id = q.Int(0);
      s.info = {q.Text(1), q.Text(2), q.Text(3), q.Text(4), q.Text(5), q.Text(6)};
      s.created_at = q.Text(7);
      s.points = static_cast<int>(q.Int(8));
      s.predicted_points = static_cast<int>(q.Int(9));
      s.max_time_scale = q.Double(10);
      runs.push_back(std::move(s));
    }
    return runs;
  }

  RunSummary FindRun(const std::string& ref) override {
    const std::vector<RunSummary> runs = ListRuns();
    const auto fail = [&](const std::string& rule) -> RunSummary {
      throw InputError(Diagnostic{{db_.path(), 0, 0}, "", "run '" + ref + "'", rule});
    };
    if (runs.empty()) return fail("the store holds no runs");
    if (ref == "latest") return runs.back();
    if (!ref.empty() && std::all_of(ref.begin(), ref.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      for (const auto& r : runs) {
        if (std::to_string(r.id) == ref) return r;
      }
    }
    for (const auto& r : runs) {
      if (r.info.run_key == ref) return r;
    }
    std::vector<const RunSummary*> matches;
    for (const auto& r : runs) {
      if (r.info.label == ref || r.info.run_key.rfind(ref, 0) == 0) matches.push_back(&r);
    }
    if (matches.size() == 1) return *matches.front();
    if (matches.empty()) return fail("no run has this id, key, key prefix or label (see `infermark results list`)");
    std::string names;
    for (const auto* r : matches) names += (names.empty() ? "" : ", ") + std::to_string(r->id) + " " + r->info.run_key;
    return fail("matches several runs: " + names);
  }

  std::vector<Point> Points(std::int64_t run_id) override {
    SqliteStatement q(db_, PointQuery("WHERE p.run_id = ?1", "", true));
    q.Bind(1, run_id);
    return ReadPoints(q);
  }

  std::vector<Point> AllPoints() override {
    SqliteStatement q(db_, PointQuery("", "p.run_id, ", false));
    return ReadPoints(q);
  }

  int SchemaVersion() override { return ReadSchemaVersion(db_); }

 private:
  // The point columns (kPointColumns, then the newer ones the store has, then p.run_id) of the
  // points `where` selects, in natural-key order after `order_first`; `raw` false reads no raw_json.
  std::string PointQuery(const std::string& where, const std::string& order_first, bool raw) const {
    std::string columns = kPointColumns;
    if (!raw) columns.replace(columns.find("p.raw_json"), std::string("p.raw_json").size(), "''");
    return std::string("SELECT ") + columns + (schema_version_ >= 3 ? ", p.git_commit" : ", ''") +
           (schema_version_ >= 4 ? ", p.scenario_type, p.kv_offloading, p.kv_offload_backend" : ", '', '', ''") +
           ", p.run_id FROM points p JOIN runs r ON r.id = p.run_id " + where + " ORDER BY " + order_first +
           (schema_version_ >= 4 ? "p.scenario_type DESC, " : "") +
           "p.model, p.isl, p.osl, p.hw, p.framework, p.precision, p.spec_decoding, p.topology, " +
           (schema_version_ >= 4 ? "p.kv_offloading, p.kv_offload_backend, " : "") + "p.conc";
  }

  // The rows of a PointQuery statement as points.
  std::vector<Point> ReadPoints(SqliteStatement& q) const {
    std::vector<Point> points;
    while (q.Step()) {
      Point p;
      p.id = q.Int(0);
      p.run_key = q.Text(1);
      p.key.model = q.Text(2);
      p.key.hw = q.Text(3);
      p.key.framework = q.Text(4);
      p.key.precision = q.Text(5);
      p.key.spec_decoding = q.Text(6);
      p.key.disagg = q.Int(7) != 0;
      p.key.topology = q.Text(8);
      p.key.isl = q.Int(9);
      p.key.osl = q.Int(10);
      p.key.conc = q.Int(11);
      Provenance& v = p.provenance;
      v.kind = q.Text(12) == "predicted" ? PointKind::kPredicted : PointKind::kMeasured;
      v.time_scale = q.Double(13);
      v.config_key = q.Text(14);
      const std::string row = q.Text(15);
      v.matrix_row = row.empty() ? Json() : Json::parse(row, nullptr, false);
      v.image = q.Text(16);
      v.engine_flags = q.Text(17);
      v.host = q.Text(18);
      v.infermark_version = q.Text(19);
      v.metrics_version = q.Text(20);
      v.verdict = q.Text(21);
      v.started_at = q.Text(22);
      v.ended_at = q.Text(23);
      v.source_path = q.Text(24);
      p.raw_sha256 = q.Text(25);
      p.raw_json = q.Text(26);
      p.agg = Json::parse(q.Text(27), nullptr, false);
      p.ingested_at = q.Text(28);
      v.git_commit = q.Text(29);
      if (schema_version_ >= 4) {
        p.key.scenario_type = q.Text(30);
        p.key.kv_offloading = q.Text(31);
        p.key.kv_offload_backend = q.Text(32);
      }
      p.run_id = q.Int(33);
      points.push_back(std::move(p));
    }
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
    const std::string key = point.key.Canonical();
    const std::string agg = DumpJson(point.agg, kCompactJson);
    const std::string matrix_row =
        point.provenance.matrix_row.is_null() ? "" : DumpJson(point.provenance.matrix_row, kCompactJson);
    const std::string sha = point.raw_sha256.empty() ? Sha256Hex(point.raw_json) : point.raw_sha256;
    SqliteStatement existing(db_,
                             "SELECT id, raw_sha256, agg_json, kind, time_scale FROM points "
                             "WHERE run_id = ?1 AND point_key = ?2");
    existing.Bind(1, outcome.run_id).Bind(2, key);
    std::int64_t id = 0;
    if (existing.Step()) {
      id = existing.Int(0);
      if (existing.Text(1) == sha && existing.Text(2) == agg &&
          existing.Text(3) == PointKindName(point.provenance.kind) &&
          existing.Double(4) == point.provenance.time_scale) {
        ++outcome.unchanged;
        return;
      }
    }
    const std::string now = IsoUtcNow();
    const Provenance& v = point.provenance;
    // A store kept at an older schema (migration tests) lacks the newer columns.
    const bool agentic_columns = schema_version_ >= 4;
    const bool agentic = point.key.Agentic() && agentic_columns;
    std::vector<std::pair<const char*, Value>> columns = {
        {"run_id", outcome.run_id},
        {"point_key", key},
        {"model", point.key.model},
        {"hw", point.key.hw},
        {"framework", point.key.framework},
        {"precision", point.key.precision},
        {"spec_decoding", point.key.spec_decoding},
        {"disagg", std::int64_t{point.key.disagg ? 1 : 0}},
        {"topology", point.key.topology},
        {"isl", agentic ? Value() : Value(std::int64_t{point.key.isl})},
        {"osl", agentic ? Value() : Value(std::int64_t{point.key.osl})},
        {"conc", std::int64_t{point.key.conc}},
        {"kind", std::string(PointKindName(v.kind))},
        {"time_scale", v.time_scale},
        {"tput_per_gpu", Number(point.agg, "tput_per_gpu")},
        {"median_intvty", Number(point.agg, "median_intvty")},
        {"median_e2el", Number(point.agg, "median_e2el")},
        {"config_key", v.config_key},
        {"matrix_row", matrix_row},
        {"image", v.image},
        {"engine_flags", v.engine_flags},
        {"host", v.host},
        {"infermark_version", v.infermark_version},
        {"metrics_version", v.metrics_version},
        {"verdict", v.verdict},
        {"started_at", v.started_at},
        {"ended_at", v.ended_at},
        {"source_path", v.source_path},
        {"raw_sha256", sha},
        {"raw_json", point.raw_json},
        {"agg_json", agg},
    };
    columns.emplace_back(id == 0 ? "ingested_at" : "updated_at", now);
    if (schema_version_ >= 3) columns.emplace_back("git_commit", v.git_commit);
    if (agentic_columns) {
      columns.emplace_back("scenario_type", point.key.scenario_type);
      columns.emplace_back("kv_offloading", point.key.kv_offloading);
      columns.emplace_back("kv_offload_backend", point.key.kv_offload_backend);
      const AgenticFields f = AgenticFieldsOf(point.agg);
      const auto optional = [&](const char* column, const auto& value) {
        columns.emplace_back(column, agentic && value ? Value(*value) : Value());
      };
      const auto metric = [&](const char* column, const char* field) {
        columns.emplace_back(column, agentic && point.agg.contains(field) ? Value(Number(point.agg, field)) : Value());
      };
      columns.emplace_back("users", agentic ? Value(std::int64_t{f.users}) : Value());
      optional("allocated_cpu_dram_gb", f.allocated_cpu_dram_gb);
      optional("duration_s", f.duration_s);
      metric("median_e2e_norm_intvty", "median_e2e_norm_intvty");
      metric("p90_e2e_norm_intvty", "p90_e2e_norm_intvty");
      metric("median_full_response_intvty", "median_full_response_intvty");
      metric("p90_full_response_intvty", "p90_full_response_intvty");
      optional("theoretical_cache_hit_rate", f.theoretical_cache_hit_rate);
      optional("server_cache_hit_rate", f.server_cache_hit_rate);
      optional("server_gpu_cache_hit_rate", f.server_gpu_cache_hit_rate);
      optional("server_cpu_cache_hit_rate", f.server_cpu_cache_hit_rate);
      optional("kv_cache_pool_tokens", f.kv_cache_pool_tokens);
      optional("requests_total", f.requests_total);
      optional("requests_successful", f.requests_successful);
      optional("requests_error", f.requests_error);
    }
    if (schema_version_ >= 5) {
      const PowerFields f = PowerFieldsOf(point.agg);
      const auto optional = [&](const char* column, const auto& value) {
        columns.emplace_back(column, value ? Value(*value) : Value());
      };
      optional("avg_power_w", f.avg_power_w);
      optional("joules_per_output_token", f.joules_per_output_token);
      optional("joules_per_input_token", f.joules_per_input_token);
      optional("joules_per_total_token", f.joules_per_total_token);
      optional("total_gpu_energy_j", f.total_gpu_energy_j);
      columns.emplace_back("power_valid", f.Valid()     ? Value(std::int64_t{1})
                                          : f.Invalid() ? Value(std::int64_t{0})
                                                        : Value());
      optional("power_metric_schema_version", f.power_metric_schema_version);
    }
    if (schema_version_ >= 6) AddMultiNodeColumns(point.agg, columns);
    std::string names, values, sets;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string param = "?" + std::to_string(i + 1);
      names += (i ? ", " : "") + std::string(columns[i].first);
      values += (i ? ", " : "") + param;
      sets += (i ? ", " : "") + std::string(columns[i].first) + " = " + param;
    }
    const std::string id_param = "?" + std::to_string(columns.size() + 1);
    SqliteStatement write(db_, id == 0 ? "INSERT INTO points (" + names + ") VALUES (" + values + ")"
                                       : "UPDATE points SET " + sets + " WHERE id = " + id_param);
    for (std::size_t i = 0; i < columns.size(); ++i) BindValue(write, static_cast<int>(i + 1), columns[i].second);
    if (id != 0) write.Bind(static_cast<int>(columns.size() + 1), id);
    write.Step();
    ++(id == 0 ? outcome.added : outcome.updated);
  }

  SqliteDb db_;
  int schema_version_ = 0;  // as migrated at open
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
