#include "store/store_schema.hpp"

#include <string>

#include "core/diagnostic.hpp"
#include "store/postgres_db.hpp"
#include "store/sqlite_db.hpp"

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
      // 7: why the power aggregation judged a point's power not valid (its power_validation
      // sidecar's reasons, `; `-separated). Older points keep '': their sidecars were not read.
      R"sql(
ALTER TABLE points ADD COLUMN power_invalid_reasons TEXT NOT NULL DEFAULT '';
)sql",
      // 8: accuracy evaluations, one per (run, configuration, task, eval concurrency). The
      // configuration columns are a point key's, so that an evaluation is found from the points of
      // its configuration; isl and osl are 0 where the source does not say (InferenceX-app rows).
      // Scores are NULL unless the source had them; passed is NULL unless scored against a
      // threshold; reasons is a JSON array of text.
      R"sql(
CREATE TABLE evaluations (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  eval_key TEXT NOT NULL,
  model TEXT NOT NULL,
  model_prefix TEXT NOT NULL DEFAULT '',
  hw TEXT NOT NULL,
  framework TEXT NOT NULL,
  precision TEXT NOT NULL,
  spec_decoding TEXT NOT NULL,
  disagg INTEGER NOT NULL CHECK (disagg IN (0, 1)),
  is_multinode INTEGER NOT NULL CHECK (is_multinode IN (0, 1)),
  topology TEXT NOT NULL,
  isl INTEGER NOT NULL,
  osl INTEGER NOT NULL,
  conc INTEGER NOT NULL,
  runner TEXT NOT NULL DEFAULT '',
  task TEXT NOT NULL,
  metric TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('scored', 'not_run', 'invalid', 'incomplete')),
  reasons TEXT NOT NULL DEFAULT '[]',
  score REAL,
  score_stderr REAL,
  flexible_score REAL,
  flexible_stderr REAL,
  n INTEGER,
  threshold REAL,
  threshold_source TEXT NOT NULL DEFAULT '',
  passed INTEGER CHECK (passed IN (0, 1)),
  eval_concurrency INTEGER NOT NULL DEFAULT 0,
  eval_date TEXT NOT NULL DEFAULT '',
  duration_s REAL,
  origin TEXT NOT NULL CHECK (origin IN ('infermark', 'lm-eval', 'inferencex-app')),
  source_path TEXT NOT NULL DEFAULT '',
  results_file TEXT NOT NULL DEFAULT '',
  result_filename TEXT NOT NULL DEFAULT '',
  server TEXT NOT NULL DEFAULT '',
  run_url TEXT NOT NULL DEFAULT '',
  raw_sha256 TEXT NOT NULL,
  raw_json TEXT NOT NULL,
  ingested_at TEXT NOT NULL,
  updated_at TEXT NOT NULL DEFAULT '',
  CHECK (status = 'scored' OR passed IS NULL),
  UNIQUE (run_id, eval_key)
);
CREATE INDEX evaluations_configuration ON evaluations (model, hw, framework, precision, conc);
)sql",
      // 9: what the host added to each figure (the result's host error, its kind and the marks of
      // the statistics over the tolerance) as JSON text; '' for points without one.
      R"sql(
ALTER TABLE points ADD COLUMN host_error TEXT NOT NULL DEFAULT '';
)sql",
      // 10, repeats: a point measured several times keeps how many (`repeats`, 1 for a point
      // measured once) and how (`repeat_server`: `same` or `fresh`, '' when measured once) beside its
      // combined record, and each repeat's own result and record as a row of point_repeats. Stored
      // points were measured once.
      R"sql(
ALTER TABLE points ADD COLUMN repeats INTEGER NOT NULL DEFAULT 1 CHECK (repeats >= 1);
ALTER TABLE points ADD COLUMN repeat_server TEXT NOT NULL DEFAULT '';
CREATE TABLE point_repeats (
  id INTEGER PRIMARY KEY,
  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
  repeat_index INTEGER NOT NULL CHECK (repeat_index >= 1),
  verdict TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL DEFAULT '',
  ended_at TEXT NOT NULL DEFAULT '',
  source_path TEXT NOT NULL DEFAULT '',
  raw_sha256 TEXT NOT NULL,
  raw_json TEXT NOT NULL,
  agg_json TEXT NOT NULL,
  UNIQUE (point_id, repeat_index)
);
)sql",
      // 11, prediction bands: a predicted point's band group and the p10/p90 band of its
      // hot figures, as its record's prediction_band holds them (NULL and '' for measured points
      // and for predictions made before bands existed: no earlier record carries one).
      R"sql(
ALTER TABLE points ADD COLUMN band_scope TEXT NOT NULL DEFAULT '';
ALTER TABLE points ADD COLUMN tput_per_gpu_band_p10 REAL;
ALTER TABLE points ADD COLUMN tput_per_gpu_band_p90 REAL;
ALTER TABLE points ADD COLUMN median_intvty_band_p10 REAL;
ALTER TABLE points ADD COLUMN median_intvty_band_p90 REAL;
ALTER TABLE points ADD COLUMN median_e2el_band_p10 REAL;
ALTER TABLE points ADD COLUMN median_e2el_band_p90 REAL;
)sql",
      // 12, measurement receipts (ReceiptsSchemaVersion): the receipt id of the bundle a point was
      // ingested from ('' for a point stored without one), so that `results verify` finds its
      // bundle and the API shows it.
      R"sql(
ALTER TABLE points ADD COLUMN receipt_id TEXT NOT NULL DEFAULT '';
CREATE INDEX points_receipt ON points (receipt_id);
)sql",
      // 13, the dashboard in depth (DetailsSchemaVersion): every attempt at a row, whatever became
      // of it (a point, a failure and its class, measured again for the host's sake, skipped), with
      // where and how it ran and, when it left no point, its result and its logs' tails; each
      // point's details (its request timeline, its logs' tails, a DCGM package's manifest) and every
      // GPU telemetry sample of its row, one document per GPU; each evaluation's answers document by
      // document.
      R"sql(
CREATE TABLE row_attempts (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  attempt_key TEXT NOT NULL,
  result_filename TEXT NOT NULL,
  attempt INTEGER NOT NULL CHECK (attempt >= 1),
  outcome TEXT NOT NULL CHECK (outcome IN ('completed', 'invalid', 'failed', 'retried', 'skipped')),
  failure_class TEXT NOT NULL DEFAULT '' CHECK (failure_class IN ('', 'startup', 'readiness', 'client_error',
    'server_exit', 'timeout', 'killed', 'store')),
  row_status TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '',
  runner_label TEXT NOT NULL DEFAULT '',
  hw TEXT NOT NULL DEFAULT '',
  executor TEXT NOT NULL DEFAULT '',
  target TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  framework TEXT NOT NULL DEFAULT '',
  precision TEXT NOT NULL DEFAULT '',
  isl INTEGER NOT NULL DEFAULT 0,
  osl INTEGER NOT NULL DEFAULT 0,
  conc INTEGER NOT NULL DEFAULT 0,
  config_key TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL,
  duration_s REAL,
  result_json TEXT NOT NULL DEFAULT '',
  client_log_tail TEXT NOT NULL DEFAULT '',
  server_log_tail TEXT NOT NULL DEFAULT '',
  recorded_at TEXT NOT NULL,
  CHECK ((outcome = 'failed') = (failure_class <> '')),
  UNIQUE (run_id, attempt_key)
);
CREATE INDEX row_attempts_started ON row_attempts (started_at);
CREATE INDEX row_attempts_recorded ON row_attempts (recorded_at);
CREATE TABLE point_details (
  point_id INTEGER PRIMARY KEY REFERENCES points(id) ON DELETE CASCADE,
  timeline TEXT NOT NULL DEFAULT '',
  server_log_tail TEXT NOT NULL DEFAULT '',
  client_log_tail TEXT NOT NULL DEFAULT '',
  dcgm_manifest TEXT NOT NULL DEFAULT '',
  stored_at TEXT NOT NULL
);
CREATE TABLE gpu_samples (
  id INTEGER PRIMARY KEY,
  point_id INTEGER NOT NULL REFERENCES points(id) ON DELETE CASCADE,
  source TEXT NOT NULL CHECK (source IN ('nvml', 'dcgm')),
  host TEXT NOT NULL DEFAULT '',
  gpu TEXT NOT NULL,
  start_unix REAL NOT NULL,
  samples INTEGER NOT NULL,
  series TEXT NOT NULL,
  UNIQUE (point_id, source, host, gpu)
);
CREATE TABLE eval_samples (
  id INTEGER PRIMARY KEY,
  evaluation_id INTEGER NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  doc_id INTEGER NOT NULL,
  question TEXT NOT NULL DEFAULT '',
  response TEXT NOT NULL DEFAULT '',
  strict_answer TEXT NOT NULL DEFAULT '',
  flexible_answer TEXT NOT NULL DEFAULT '',
  target TEXT NOT NULL DEFAULT '',
  correct INTEGER CHECK (correct IN (0, 1)),
  flexible_correct INTEGER CHECK (flexible_correct IN (0, 1)),
  error TEXT NOT NULL DEFAULT '',
  UNIQUE (evaluation_id, doc_id)
);
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

const std::vector<std::string_view>& PostgresStoreMigrations() {
  // The SQLite migrations in PostgreSQL's dialect: BIGINT ids from identity columns, DOUBLE
  // PRECISION for REAL, text in the "C" collation so that points sort byte-wise as in SQLite, JSON
  // read with jsonb operators. Records stay text (agg_json, raw_json), byte for byte as written.
  static const std::vector<std::string_view> kMigrations = {
      // 1: runs and points.
      R"sql(
CREATE TABLE runs (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  run_key TEXT COLLATE "C" NOT NULL UNIQUE,
  label TEXT COLLATE "C" NOT NULL,
  recipe TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  infermark_version TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL
);
CREATE TABLE points (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  point_key TEXT COLLATE "C" NOT NULL,
  model TEXT COLLATE "C" NOT NULL,
  hw TEXT COLLATE "C" NOT NULL,
  framework TEXT COLLATE "C" NOT NULL,
  precision TEXT COLLATE "C" NOT NULL,
  spec_decoding TEXT COLLATE "C" NOT NULL,
  disagg BIGINT NOT NULL,
  topology TEXT COLLATE "C" NOT NULL,
  isl BIGINT NOT NULL,
  osl BIGINT NOT NULL,
  conc BIGINT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('measured', 'predicted')),
  time_scale DOUBLE PRECISION NOT NULL CHECK (time_scale > 0),
  tput_per_gpu DOUBLE PRECISION,
  median_intvty DOUBLE PRECISION,
  median_e2el DOUBLE PRECISION,
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
      // 2: when a point was last replaced, and the scenario index.
      R"sql(
ALTER TABLE points ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';
CREATE INDEX points_scenario ON points (model, isl, osl, hw, framework, precision);
)sql",
      // 3: the git commit infermark was built from.
      R"sql(
ALTER TABLE points ADD COLUMN git_commit TEXT NOT NULL DEFAULT '';
)sql",
      // 4: agentic-coding points: isl and osl NULL for them, their hot columns (no rebuild needed).
      R"sql(
ALTER TABLE points ADD COLUMN scenario_type TEXT COLLATE "C" NOT NULL DEFAULT 'fixed-seq-len'
  CHECK (scenario_type IN ('fixed-seq-len', 'agentic-coding'));
ALTER TABLE points ALTER COLUMN isl DROP NOT NULL;
ALTER TABLE points ALTER COLUMN osl DROP NOT NULL;
ALTER TABLE points ADD COLUMN users BIGINT;
ALTER TABLE points ADD COLUMN kv_offloading TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE points ADD COLUMN kv_offload_backend TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE points ADD COLUMN allocated_cpu_dram_gb DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN duration_s DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN median_e2e_norm_intvty DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN p90_e2e_norm_intvty DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN median_full_response_intvty DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN p90_full_response_intvty DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN theoretical_cache_hit_rate DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN server_cache_hit_rate DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN server_gpu_cache_hit_rate DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN server_cpu_cache_hit_rate DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN kv_cache_pool_tokens BIGINT;
ALTER TABLE points ADD COLUMN requests_total BIGINT;
ALTER TABLE points ADD COLUMN requests_successful BIGINT;
ALTER TABLE points ADD COLUMN requests_error BIGINT;
ALTER TABLE points ADD CONSTRAINT points_agentic_shape
  CHECK ((scenario_type = 'agentic-coding') = (isl IS NULL AND osl IS NULL AND users IS NOT NULL));
DROP INDEX points_scenario;
CREATE INDEX points_scenario ON points (scenario_type, model, isl, osl, hw, framework, precision);
)sql",
      // 5: measured GPU power and energy, filled from the stored records.
      R"sql(
ALTER TABLE points ADD COLUMN avg_power_w DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN joules_per_output_token DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN joules_per_input_token DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN joules_per_total_token DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN total_gpu_energy_j DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN power_valid BIGINT CHECK (power_valid IN (0, 1));
ALTER TABLE points ADD COLUMN power_metric_schema_version BIGINT;
UPDATE points SET
  avg_power_w = CASE WHEN jsonb_typeof(a -> 'avg_power_w') = 'number' THEN (a ->> 'avg_power_w')::float8 END,
  joules_per_output_token = CASE WHEN jsonb_typeof(a -> 'joules_per_output_token') = 'number'
    THEN (a ->> 'joules_per_output_token')::float8 END,
  joules_per_input_token = CASE WHEN jsonb_typeof(a -> 'joules_per_input_token') = 'number'
    THEN (a ->> 'joules_per_input_token')::float8 END,
  joules_per_total_token = CASE WHEN jsonb_typeof(a -> 'joules_per_total_token') = 'number'
    THEN (a ->> 'joules_per_total_token')::float8 END,
  total_gpu_energy_j = CASE WHEN jsonb_typeof(a -> 'total_gpu_energy_j') = 'number'
    THEN (a ->> 'total_gpu_energy_j')::float8 END,
  power_valid = CASE WHEN jsonb_typeof(a -> 'power_valid') = 'boolean' THEN (a ->> 'power_valid')::boolean::int
    WHEN jsonb_typeof(a -> 'power_valid') = 'number' AND (a ->> 'power_valid')::numeric IN (0, 1)
    THEN (a ->> 'power_valid')::numeric::int END,
  power_metric_schema_version = CASE WHEN jsonb_typeof(a -> 'power_metric_schema_version') = 'number'
    AND (a ->> 'power_metric_schema_version')::numeric = trunc((a ->> 'power_metric_schema_version')::numeric)
    THEN (a ->> 'power_metric_schema_version')::numeric::bigint END
FROM (SELECT id AS record_id, agg_json::jsonb AS a FROM points) records
WHERE records.record_id = points.id AND jsonb_typeof(records.a) = 'object';
)sql",
      // 6: multi-node points, filled from the stored records.
      R"sql(
ALTER TABLE points ADD COLUMN is_multinode BIGINT NOT NULL DEFAULT 0 CHECK (is_multinode IN (0, 1));
ALTER TABLE points ADD COLUMN num_prefill_gpu BIGINT;
ALTER TABLE points ADD COLUMN num_decode_gpu BIGINT;
ALTER TABLE points ADD COLUMN prefill_num_workers BIGINT;
ALTER TABLE points ADD COLUMN prefill_tp BIGINT;
ALTER TABLE points ADD COLUMN prefill_pp BIGINT;
ALTER TABLE points ADD COLUMN prefill_dcp_size BIGINT;
ALTER TABLE points ADD COLUMN prefill_pcp_size BIGINT;
ALTER TABLE points ADD COLUMN prefill_ep BIGINT;
ALTER TABLE points ADD COLUMN prefill_dp_attention BIGINT CHECK (prefill_dp_attention IN (0, 1));
ALTER TABLE points ADD COLUMN decode_num_workers BIGINT;
ALTER TABLE points ADD COLUMN decode_tp BIGINT;
ALTER TABLE points ADD COLUMN decode_pp BIGINT;
ALTER TABLE points ADD COLUMN decode_dcp_size BIGINT;
ALTER TABLE points ADD COLUMN decode_pcp_size BIGINT;
ALTER TABLE points ADD COLUMN decode_ep BIGINT;
ALTER TABLE points ADD COLUMN decode_dp_attention BIGINT CHECK (decode_dp_attention IN (0, 1));
ALTER TABLE points ADD COLUMN prefill_hw TEXT;
ALTER TABLE points ADD COLUMN decode_hw TEXT;
CREATE FUNCTION pg_temp.infermark_count(a jsonb, field text, fallback bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE AS
  $$ SELECT CASE WHEN jsonb_typeof(a -> field) = 'number' THEN round((a ->> field)::numeric)::bigint
     ELSE fallback END $$;
UPDATE points SET
  is_multinode = 1,
  num_prefill_gpu = pg_temp.infermark_count(a, 'num_prefill_gpu', NULL),
  num_decode_gpu = pg_temp.infermark_count(a, 'num_decode_gpu', NULL),
  prefill_num_workers = pg_temp.infermark_count(a, 'prefill_num_workers', NULL),
  prefill_tp = pg_temp.infermark_count(a, 'prefill_tp', NULL),
  prefill_pp = pg_temp.infermark_count(a, 'prefill_pp', 1),
  prefill_dcp_size = pg_temp.infermark_count(a, 'prefill_dcp_size', 1),
  prefill_pcp_size = pg_temp.infermark_count(a, 'prefill_pcp_size', 1),
  prefill_ep = pg_temp.infermark_count(a, 'prefill_ep', NULL),
  prefill_dp_attention = CASE WHEN lower(a ->> 'prefill_dp_attention') = 'true' THEN 1 ELSE 0 END,
  decode_num_workers = pg_temp.infermark_count(a, 'decode_num_workers', NULL),
  decode_tp = pg_temp.infermark_count(a, 'decode_tp', NULL),
  decode_pp = pg_temp.infermark_count(a, 'decode_pp', 1),
  decode_dcp_size = pg_temp.infermark_count(a, 'decode_dcp_size', 1),
  decode_pcp_size = pg_temp.infermark_count(a, 'decode_pcp_size', 1),
  decode_ep = pg_temp.infermark_count(a, 'decode_ep', NULL),
  decode_dp_attention = CASE WHEN lower(a ->> 'decode_dp_attention') = 'true' THEN 1 ELSE 0 END,
  prefill_hw = CASE WHEN jsonb_typeof(a -> 'prefill_hw') = 'string' THEN a ->> 'prefill_hw' END,
  decode_hw = CASE WHEN jsonb_typeof(a -> 'decode_hw') = 'string' THEN a ->> 'decode_hw' END
FROM (SELECT id AS record_id, agg_json::jsonb AS a FROM points) records
WHERE records.record_id = points.id AND jsonb_typeof(records.a) = 'object'
  AND jsonb_typeof(records.a -> 'is_multinode') = 'boolean' AND (records.a ->> 'is_multinode')::boolean;
DROP FUNCTION pg_temp.infermark_count(jsonb, text, bigint);
)sql",
      // 7: why a point's power is not valid.
      R"sql(
ALTER TABLE points ADD COLUMN power_invalid_reasons TEXT NOT NULL DEFAULT '';
)sql",
      // 8: accuracy evaluations.
      R"sql(
CREATE TABLE evaluations (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  eval_key TEXT COLLATE "C" NOT NULL,
  model TEXT COLLATE "C" NOT NULL,
  model_prefix TEXT COLLATE "C" NOT NULL DEFAULT '',
  hw TEXT COLLATE "C" NOT NULL,
  framework TEXT COLLATE "C" NOT NULL,
  precision TEXT COLLATE "C" NOT NULL,
  spec_decoding TEXT COLLATE "C" NOT NULL,
  disagg BIGINT NOT NULL CHECK (disagg IN (0, 1)),
  is_multinode BIGINT NOT NULL CHECK (is_multinode IN (0, 1)),
  topology TEXT COLLATE "C" NOT NULL,
  isl BIGINT NOT NULL,
  osl BIGINT NOT NULL,
  conc BIGINT NOT NULL,
  runner TEXT NOT NULL DEFAULT '',
  task TEXT COLLATE "C" NOT NULL,
  metric TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK (status IN ('scored', 'not_run', 'invalid', 'incomplete')),
  reasons TEXT NOT NULL DEFAULT '[]',
  score DOUBLE PRECISION,
  score_stderr DOUBLE PRECISION,
  flexible_score DOUBLE PRECISION,
  flexible_stderr DOUBLE PRECISION,
  n BIGINT,
  threshold DOUBLE PRECISION,
  threshold_source TEXT NOT NULL DEFAULT '',
  passed BIGINT CHECK (passed IN (0, 1)),
  eval_concurrency BIGINT NOT NULL DEFAULT 0,
  eval_date TEXT NOT NULL DEFAULT '',
  duration_s DOUBLE PRECISION,
  origin TEXT NOT NULL CHECK (origin IN ('infermark', 'lm-eval', 'inferencex-app')),
  source_path TEXT NOT NULL DEFAULT '',
  results_file TEXT NOT NULL DEFAULT '',
  result_filename TEXT NOT NULL DEFAULT '',
  server TEXT NOT NULL DEFAULT '',
  run_url TEXT NOT NULL DEFAULT '',
  raw_sha256 TEXT NOT NULL,
  raw_json TEXT NOT NULL,
  ingested_at TEXT NOT NULL,
  updated_at TEXT NOT NULL DEFAULT '',
  CHECK (status = 'scored' OR passed IS NULL),
  UNIQUE (run_id, eval_key)
);
CREATE INDEX evaluations_configuration ON evaluations (model, hw, framework, precision, conc);
)sql",
      // 9: what the host added to each figure.
      R"sql(
ALTER TABLE points ADD COLUMN host_error TEXT NOT NULL DEFAULT '';
)sql",
      // 10, repeats: how many and how a point was measured, and each repeat's own result.
      R"sql(
ALTER TABLE points ADD COLUMN repeats BIGINT NOT NULL DEFAULT 1 CHECK (repeats >= 1);
ALTER TABLE points ADD COLUMN repeat_server TEXT NOT NULL DEFAULT '';
CREATE TABLE point_repeats (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  point_id BIGINT NOT NULL REFERENCES points(id) ON DELETE CASCADE,
  repeat_index BIGINT NOT NULL CHECK (repeat_index >= 1),
  verdict TEXT NOT NULL DEFAULT '',
  started_at TEXT NOT NULL DEFAULT '',
  ended_at TEXT NOT NULL DEFAULT '',
  source_path TEXT NOT NULL DEFAULT '',
  raw_sha256 TEXT NOT NULL,
  raw_json TEXT NOT NULL,
  agg_json TEXT NOT NULL,
  UNIQUE (point_id, repeat_index)
);
)sql",
      // 11, prediction bands.
      R"sql(
ALTER TABLE points ADD COLUMN band_scope TEXT NOT NULL DEFAULT '';
ALTER TABLE points ADD COLUMN tput_per_gpu_band_p10 DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN tput_per_gpu_band_p90 DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN median_intvty_band_p10 DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN median_intvty_band_p90 DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN median_e2el_band_p10 DOUBLE PRECISION;
ALTER TABLE points ADD COLUMN median_e2el_band_p90 DOUBLE PRECISION;
)sql",
      // 12, measurement receipts (ReceiptsSchemaVersion): the receipt id of the bundle a point was
      // ingested from ('' for a point stored without one), so that `results verify` finds its
      // bundle and the API shows it.
      R"sql(
ALTER TABLE points ADD COLUMN receipt_id TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX points_receipt ON points (receipt_id);
)sql",
      // 13, the dashboard in depth (DetailsSchemaVersion): row attempts, point details, GPU samples
      // and eval samples.
      R"sql(
CREATE TABLE row_attempts (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  attempt_key TEXT COLLATE "C" NOT NULL,
  result_filename TEXT COLLATE "C" NOT NULL,
  attempt BIGINT NOT NULL CHECK (attempt >= 1),
  outcome TEXT NOT NULL CHECK (outcome IN ('completed', 'invalid', 'failed', 'retried', 'skipped')),
  failure_class TEXT NOT NULL DEFAULT '' CHECK (failure_class IN ('', 'startup', 'readiness', 'client_error',
    'server_exit', 'timeout', 'killed', 'store')),
  row_status TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '',
  runner_label TEXT COLLATE "C" NOT NULL DEFAULT '',
  hw TEXT COLLATE "C" NOT NULL DEFAULT '',
  executor TEXT NOT NULL DEFAULT '',
  target TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  model TEXT COLLATE "C" NOT NULL DEFAULT '',
  framework TEXT COLLATE "C" NOT NULL DEFAULT '',
  precision TEXT COLLATE "C" NOT NULL DEFAULT '',
  isl BIGINT NOT NULL DEFAULT 0,
  osl BIGINT NOT NULL DEFAULT 0,
  conc BIGINT NOT NULL DEFAULT 0,
  config_key TEXT NOT NULL DEFAULT '',
  started_at TEXT COLLATE "C" NOT NULL,
  duration_s DOUBLE PRECISION,
  result_json TEXT NOT NULL DEFAULT '',
  client_log_tail TEXT NOT NULL DEFAULT '',
  server_log_tail TEXT NOT NULL DEFAULT '',
  recorded_at TEXT NOT NULL,
  CHECK ((outcome = 'failed') = (failure_class <> '')),
  UNIQUE (run_id, attempt_key)
);
CREATE INDEX row_attempts_started ON row_attempts (started_at);
CREATE INDEX row_attempts_recorded ON row_attempts (recorded_at);
CREATE TABLE point_details (
  point_id BIGINT PRIMARY KEY REFERENCES points(id) ON DELETE CASCADE,
  timeline TEXT NOT NULL DEFAULT '',
  server_log_tail TEXT NOT NULL DEFAULT '',
  client_log_tail TEXT NOT NULL DEFAULT '',
  dcgm_manifest TEXT NOT NULL DEFAULT '',
  stored_at TEXT NOT NULL
);
CREATE TABLE gpu_samples (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  point_id BIGINT NOT NULL REFERENCES points(id) ON DELETE CASCADE,
  source TEXT NOT NULL CHECK (source IN ('nvml', 'dcgm')),
  host TEXT COLLATE "C" NOT NULL DEFAULT '',
  gpu TEXT COLLATE "C" NOT NULL,
  start_unix DOUBLE PRECISION NOT NULL,
  samples BIGINT NOT NULL,
  series TEXT NOT NULL,
  UNIQUE (point_id, source, host, gpu)
);
CREATE TABLE eval_samples (
  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  evaluation_id BIGINT NOT NULL REFERENCES evaluations(id) ON DELETE CASCADE,
  doc_id BIGINT NOT NULL,
  question TEXT NOT NULL DEFAULT '',
  response TEXT NOT NULL DEFAULT '',
  strict_answer TEXT NOT NULL DEFAULT '',
  flexible_answer TEXT NOT NULL DEFAULT '',
  target TEXT NOT NULL DEFAULT '',
  correct BIGINT CHECK (correct IN (0, 1)),
  flexible_correct BIGINT CHECK (flexible_correct IN (0, 1)),
  error TEXT NOT NULL DEFAULT '',
  UNIQUE (evaluation_id, doc_id)
);
)sql",
  };
  return kMigrations;
}

int SchemaVersionOf(std::string_view marker) {
  const auto& migrations = StoreMigrations();
  for (std::size_t i = 0; i < migrations.size(); ++i) {
    if (migrations[i].find(marker) != std::string_view::npos) return static_cast<int>(i + 1);
  }
  return static_cast<int>(migrations.size() + 1);
}

int RepeatsSchemaVersion() {
  static const int version = SchemaVersionOf("CREATE TABLE point_repeats");
  return version;
}

int ReceiptsSchemaVersion() {
  static const int version = SchemaVersionOf("ADD COLUMN receipt_id");
  return version;
}

namespace {

// Taken for the migration's transaction: every infermark opening this database waits on it.
constexpr const char* kMigrationLock = "SELECT pg_advisory_xact_lock(7378443497183850853)";

bool PostgresTableExists(PgConnection& db, const char* table) {
  return db.Query("SELECT to_regclass($1) IS NOT NULL", {std::string(table)}).Text(0, 0) == "t";
}

}  // namespace

int ReadPostgresSchemaVersion(PgConnection& db) {
  if (!PostgresTableExists(db, "schema_migrations")) return 0;
  return static_cast<int>(db.Query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").Int(0, 0));
}

void MigratePostgresStore(PgConnection& db, int target) {
  const auto& migrations = PostgresStoreMigrations();
  const int newest = static_cast<int>(migrations.size());
  if (target <= 0 || target > newest) target = newest;
  db.Exec("BEGIN");
  try {
    db.Exec(kMigrationLock);
    if (!PostgresTableExists(db, "schema_migrations")) {
      if (PostgresTableExists(db, "runs") || PostgresTableExists(db, "points")) {
        throw InputError(Diagnostic{{db.name(), 0, 0},
                                    "",
                                    "",
                                    "not an infermark results store (tables runs or points, but no "
                                    "schema_migrations table); use an empty database"});
      }
      db.Exec(
          "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
          "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
    }
    int version = ReadPostgresSchemaVersion(db);
    if (version > newest) {
      throw InputError(Diagnostic{{db.name(), 0, 0},
                                  "",
                                  "",
                                  "results store has schema version " + std::to_string(version) +
                                      ", newer than this infermark knows (" + std::to_string(newest) +
                                      "); use a newer infermark"});
    }
    for (; version < target; ++version) {
      db.Exec(migrations[static_cast<std::size_t>(version)]);
      db.Query("INSERT INTO schema_migrations (version) VALUES ($1)", {std::to_string(version + 1)});
    }
    db.Exec("COMMIT");
  } catch (...) {
    db.Exec("ROLLBACK");
    throw;
  }
}

}  // namespace infermark::results
