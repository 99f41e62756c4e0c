#include "results/store_schema.hpp"

#include <string>

#include "core/diagnostic.hpp"
#include "results/sqlite_db.hpp"

namespace infermark::results {

const std::vector<std::string_view>& StoreMigrations() {
  static const std::vector<std::string_view> kMigrations = {
      // 1: runs and points. Hot metric columns are as measured (time-scaled runs are de-scaled on
      // read); the whole processed record and the client's raw result are kept as text.
      R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  run_key TEXT NOT NULL UNIQUE,
  label TEXT NOT NULL,
  recipe TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  infermark_version TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL
);
CREATE TABLE points (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  point_key TEXT NOT NULL,
  model TEXT NOT NULL,
  hw TEXT NOT NULL,
  framework TEXT NOT NULL,
  precision TEXT NOT NULL,
  spec_decoding TEXT NOT NULL,
  disagg INTEGER NOT NULL,
  topology TEXT NOT NULL,
  isl INTEGER NOT NULL,
  osl INTEGER NOT NULL,
  conc INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('measured', 'predicted')),
  time_scale REAL NOT NULL CHECK (time_scale > 0),
  tput_per_gpu REAL,
  median_intvty REAL,
  median_e2el REAL,
  config_key TEXT NOT NULL DEFAULT '',
  matrix_row TEXT NOT NULL DEFAULT '',
  image TEXT NOT NULL DEFAULT '',
  engine_flags TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  infermark_version TEXT NOT NULL DEFAULT '',
  metrics_version TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL DEFAULT '',
  ended_at TEXT NOT NULL DEFAULT '',
  source_path TEXT NOT NULL DEFAULT '',
  raw_sha256 TEXT NOT NULL,
  raw_json TEXT NOT NULL,
  agg_json TEXT NOT NULL,
  ingested_at TEXT NOT NULL,
  UNIQUE (run_id, point_key)
);
)sql",
      // 2: when a point was last replaced by a different result, and an index for cross-run
      // lookups by scenario (compare, report).
      R"sql(
ALTER TABLE points ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
CREATE INDEX points_scenario ON points (model, isl, osl, hw, framework, precision);
)sql",
      // 3: the git commit infermark was built from, beside its version (provenance of a point).
      R"sql(
ALTER TABLE points ADD COLUMN git_commit TEXT NOT NULL DEFAULT '';
)sql",
      // 4: agentic-coding points. The table is rebuilt (SQLite cannot drop NOT NULL) so that isl
      // and osl are NULL for agentic points, as the dashboard stores them; every older row is a
      // fixed-length point and keeps its id, key and values. New hot columns hold what agentic
      // points are charted, listed and filtered by (as measured, like the others).
      R"sql(
CREATE TABLE points_v4 (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  point_key TEXT NOT NULL,
  scenario_type TEXT NOT NULL DEFAULT 'fixed-seq-len' CHECK (scenario_type IN ('fixed-seq-len', 'agentic-coding')),
  model TEXT NOT NULL,
  hw TEXT NOT NULL,
  framework TEXT NOT NULL,
  precision TEXT NOT NULL,
  spec_decoding TEXT NOT NULL,
  disagg INTEGER NOT NULL,
  topology TEXT NOT NULL,
  isl INTEGER,
  osl INTEGER,
  conc INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('measured', 'predicted')),
  time_scale REAL NOT NULL CHECK (time_scale > 0),
  tput_per_gpu REAL,
  median_intvty REAL,
  median_e2el REAL,
  config_key TEXT NOT NULL DEFAULT '',
  matrix_row TEXT NOT NULL DEFAULT '',
  image TEXT NOT NULL DEFAULT '',
  engine_flags TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  infermark_version TEXT NOT NULL DEFAULT '',
  metrics_version TEXT NOT NULL DEFAULT '',
  verdict TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL DEFAULT '',
  ended_at TEXT NOT NULL DEFAULT '',
  source_path TEXT NOT NULL DEFAULT '',
  raw_sha256 TEXT NOT NULL,
  raw_json TEXT NOT NULL,
  agg_json TEXT NOT NULL,
  ingested_at TEXT NOT NULL,
  updated_at TEXT NOT NULL DEFAULT '',
  git_commit TEXT NOT NULL DEFAULT '',
  users INTEGER,
  kv_offloading TEXT NOT NULL DEFAULT '',
  kv_offload_backend TEXT NOT NULL DEFAULT '',
  allocated_cpu_dram_gb REAL,
  duration_s REAL,
  median_e2e_norm_intvty REAL,
  p90_e2e_norm_intvty REAL,
  median_full_response_intvty REAL,
  p90_full_response_intvty REAL,
  theoretical_cache_hit_rate REAL,
  server_cache_hit_rate REAL,
  server_gpu_cache_hit_rate REAL,
  server_cpu_cache_hit_rate REAL,
  kv_cache_pool_tokens INTEGER,
  requests_total INTEGER,
  requests_successful INTEGER,
  requests_error INTEGER,
  CHECK ((scenario_type = 'agentic-coding') = (isl IS NULL AND osl IS NULL AND users IS NOT NULL)),
  UNIQUE (run_id, point_key)
);
INSERT INTO points_v4 (id, run_id, point_key, model, hw, framework, precision, spec_decoding, disagg, topology, isl,
  osl, conc, kind, time_scale, tput_per_gpu, median_intvty, median_e2el, config_key, matrix_row, image, engine_flags,
  host, infermark_version, metrics_version, verdict, started_at, ended_at, source_path, raw_sha256, raw_json,
  agg_json, ingested_at, updated_at, git_commit)
SELECT id, run_id, point_key, model, hw, framework, precision, spec_decoding, disagg, topology, isl, osl, conc, kind,
  time_scale, tput_per_gpu, median_intvty, median_e2el, config_key, matrix_row, image, engine_flags, host,
  infermark_version, metrics_version, verdict, started_at, ended_at, source_path, raw_sha256, raw_json, agg_json,
  ingested_at, updated_at, git_commit FROM points;
DROP TABLE points;
ALTER TABLE points_v4 RENAME TO points;
CREATE INDEX points_scenario ON points (scenario_type, model, isl, osl, hw, framework, precision);
)sql",
      // 5: measured GPU power and energy of a point, as the power aggregation wrote them into its
      // record (NULL where the record has none: older records, or power not valid); power_valid is
      // 1 or 0, NULL when power was never aggregated. Stored points get them from their records.
      R"sql(
ALTER TABLE points ADD COLUMN avg_power_w REAL;
ALTER TABLE points ADD COLUMN joules_per_output_token REAL;
ALTER TABLE points ADD COLUMN joules_per_input_token REAL;
ALTER TABLE points ADD COLUMN joules_per_total_token REAL;
ALTER TABLE points ADD COLUMN total_gpu_energy_j REAL;
ALTER TABLE points ADD COLUMN power_valid INTEGER CHECK (power_valid IN (0, 1));
ALTER TABLE points ADD COLUMN power_metric_schema_version INTEGER;
UPDATE points SET
  avg_power_w = CASE WHEN json_type(agg_json, '$.avg_power_w') IN ('integer', 'real')
    THEN json_extract(agg_json, '$.avg_power_w') END,
  joules_per_output_token = CASE WHEN json_type(agg_json, '$.joules_per_output_token') IN ('integer', 'real')
    THEN json_extract(agg_json, '$.joules_per_output_token') END,
  joules_per_input_token = CASE WHEN json_type(agg_json, '$.joules_per_input_token') IN ('integer', 'real')
    THEN json_extract(agg_json, '$.joules_per_input_token') END,
  joules_per_total_token = CASE WHEN json_type(agg_json, '$.joules_per_total_token') IN ('integer', 'real')
    THEN json_extract(agg_json, '$.joules_per_total_token') END,
  total_gpu_energy_j = CASE WHEN json_type(agg_json, '$.total_gpu_energy_j') IN ('integer', 'real')
    THEN json_extract(agg_json, '$.total_gpu_energy_j') END,
  power_valid = CASE WHEN json_type(agg_json, '$.power_valid') = 'true' THEN 1
    WHEN json_type(agg_json, '$.power_valid') = 'false' THEN 0
    WHEN json_type(agg_json, '$.power_valid') IN ('integer', 'real') AND json_extract(agg_json, '$.power_valid') IN (0, 1)
    THEN CAST(json_extract(agg_json, '$.power_valid') AS INTEGER) END,
  power_metric_schema_version = CASE WHEN json_type(agg_json, '$.power_metric_schema_version') = 'integer'
    THEN json_extract(agg_json, '$.power_metric_schema_version') END
WHERE json_valid(agg_json);
)sql",
      // 6: multi-node points (prefill and decode worker pools): whether a point is one, the GPUs
      // of each role and each pool's workers and parallelism, as its record holds them (NULL for
      // single-node points; pipeline and context sizes a record lacks were 1; dp_attention 1/0 from
      // InferenceX's "true"/"false"); the hardware of
      // each role when the record names it. Stored points get them from their records.
      R"sql(
ALTER TABLE points ADD COLUMN is_multinode INTEGER NOT NULL DEFAULT 0 CHECK (is_multinode IN (0, 1));
ALTER TABLE points ADD COLUMN num_prefill_gpu INTEGER;
ALTER TABLE points ADD COLUMN num_decode_gpu INTEGER;
ALTER TABLE points ADD COLUMN prefill_num_workers INTEGER;
ALTER TABLE points ADD COLUMN prefill_tp INTEGER;
ALTER TABLE points ADD COLUMN prefill_pp INTEGER;
ALTER TABLE points ADD COLUMN prefill_dcp_size INTEGER;
ALTER TABLE points ADD COLUMN prefill_pcp_size INTEGER;
ALTER TABLE points ADD COLUMN prefill_ep INTEGER;
ALTER TABLE points ADD COLUMN prefill_dp_attention INTEGER CHECK (prefill_dp_attention IN (0, 1));
ALTER TABLE points ADD COLUMN decode_num_workers INTEGER;
ALTER TABLE points ADD COLUMN decode_tp INTEGER;
ALTER TABLE points ADD COLUMN decode_pp INTEGER;
ALTER TABLE points ADD COLUMN decode_dcp_size INTEGER;
ALTER TABLE points ADD COLUMN decode_pcp_size INTEGER;
ALTER TABLE points ADD COLUMN decode_ep INTEGER;
ALTER TABLE points ADD COLUMN decode_dp_attention INTEGER CHECK (decode_dp_attention IN (0, 1));
ALTER TABLE points ADD COLUMN prefill_hw TEXT;
ALTER TABLE points ADD COLUMN decode_hw TEXT;
UPDATE points SET
  is_multinode = 1,
  num_prefill_gpu = CASE WHEN json_type(agg_json, '$.num_prefill_gpu') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.num_prefill_gpu') AS INTEGER) END,
  num_decode_gpu = CASE WHEN json_type(agg_json, '$.num_decode_gpu') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.num_decode_gpu') AS INTEGER) END,
  prefill_num_workers = CASE WHEN json_type(agg_json, '$.prefill_num_workers') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.prefill_num_workers') AS INTEGER) END,
  prefill_tp = CASE WHEN json_type(agg_json, '$.prefill_tp') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.prefill_tp') AS INTEGER) END,
  prefill_pp = CASE WHEN json_type(agg_json, '$.prefill_pp') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.prefill_pp') AS INTEGER) ELSE 1 END,
  prefill_dcp_size = CASE WHEN json_type(agg_json, '$.prefill_dcp_size') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.prefill_dcp_size') AS INTEGER) ELSE 1 END,
  prefill_pcp_size = CASE WHEN json_type(agg_json, '$.prefill_pcp_size') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.prefill_pcp_size') AS INTEGER) ELSE 1 END,
  prefill_ep = CASE WHEN json_type(agg_json, '$.prefill_ep') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.prefill_ep') AS INTEGER) END,
  prefill_dp_attention = CASE WHEN json_type(agg_json, '$.prefill_dp_attention') = 'true'
    OR lower(json_extract(agg_json, '$.prefill_dp_attention')) = 'true' THEN 1 ELSE 0 END,
  decode_num_workers = CASE WHEN json_type(agg_json, '$.decode_num_workers') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.decode_num_workers') AS INTEGER) END,
  decode_tp = CASE WHEN json_type(agg_json, '$.decode_tp') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.decode_tp') AS INTEGER) END,
  decode_pp = CASE WHEN json_type(agg_json, '$.decode_pp') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.decode_pp') AS INTEGER) ELSE 1 END,
  decode_dcp_size = CASE WHEN json_type(agg_json, '$.decode_dcp_size') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.decode_dcp_size') AS INTEGER) ELSE 1 END,
  decode_pcp_size = CASE WHEN json_type(agg_json, '$.decode_pcp_size') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.decode_pcp_size') AS INTEGER) ELSE 1 END,
  decode_ep = CASE WHEN json_type(agg_json, '$.decode_ep') IN ('integer', 'real')
    THEN CAST(json_extract(agg_json, '$.decode_ep') AS INTEGER) END,
  decode_dp_attention = CASE WHEN json_type(agg_json, '$.decode_dp_attention') = 'true'
    OR lower(json_extract(agg_json, '$.decode_dp_attention')) = 'true' THEN 1 ELSE 0 END,
  prefill_hw = CASE WHEN json_type(agg_json, '$.prefill_hw') = 'text' THEN json_extract(agg_json, '$.prefill_hw') END,
  decode_hw = CASE WHEN json_type(agg_json, '$.decode_hw') = 'text' THEN json_extract(agg_json, '$.decode_hw') END
WHERE json_valid(agg_json) AND json_type(agg_json, '$.is_multinode') = 'true';
)sql",
  };
  return kMigrations;
}

int ReadSchemaVersion(SqliteDb& db) {
  SqliteStatement has_table(db, "SELECT name FROM sqlite_master WHERE type = 'table'");
  bool versioned = false;
  bool any_table = false;
  while (has_table.Step()) {
    any_table = true;
    versioned = versioned || has_table.Text(0) == "schema_version";
  }
  if (!versioned) {
    if (any_table) {
      throw InputError(
          Diagnostic{{db.path(), 0, 0}, "", "", "not an infermark results store (no schema_version table)"});
    }
    return 0;
  }
  SqliteStatement version(db, "SELECT version FROM schema_version");
  if (!version.Step()) return 0;
  return static_cast<int>(version.Int(0));
}

void MigrateStore(SqliteDb& db, int target) {
  const auto& migrations = StoreMigrations();
  const int newest = static_cast<int>(migrations.size());
  if (target <= 0 || target > newest) target = newest;
  // The version check and the migration happen under one write lock, so two processes opening a
  // new store at once migrate it once.
  db.Exec("BEGIN IMMEDIATE");
  try {
    int version = ReadSchemaVersion(db);
    if (version > newest) {
      throw InputError(Diagnostic{{db.path(), 0, 0},
                                  "",
                                  "",
                                  "results store has schema version " + std::to_string(version) +
                                      ", newer than this infermark knows (" + std::to_string(newest) +
                                      "); use a newer infermark"});
    }
    if (version == 0)
      db.Exec("CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (0);");
    for (; version < target; ++version) {
      db.Exec(migrations[static_cast<std::size_t>(version)]);
      db.Exec("UPDATE schema_version SET version = " + std::to_string(version + 1));
    }
    db.Exec("COMMIT");
  } catch (...) {
    db.Exec("ROLLBACK");
    throw;
  }
}

}  // namespace infermark::results
