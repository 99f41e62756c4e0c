// The results store: runs (one sweep, prediction or ingest), their points and their accuracy
// evaluations, with provenance.
// `OpenStore` gives the SQLite implementation; the interface is what a PostgreSQL store for teams
// would implement too. The runner stores each finished row in-process through `Ingest`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results/eval_samples.hpp"
#include "results/evaluation.hpp"
#include "results/point.hpp"
#include "results/point_details.hpp"
#include "results/row_attempt.hpp"

namespace infermark::results {

class SqlSession;

/// What identifies and describes a run. Points are unique per (run, point key).
struct RunInfo {
  std::string run_key;            ///< Natural key of the run (a sweep id, or derived from the ingested files).
  std::string label;              ///< Name shown in lists and reports (default: the key).
  std::string recipe;             ///< Recipe / config keys the run covered.
  std::string host;               ///< Host that ran it.
  std::string infermark_version;  ///< infermark version that ran it.
  std::string source;             ///< How it entered the store: `ingest`, `sweep`, `predict`…
};

/// A run as listed from the store.
struct RunSummary {
  std::int64_t id = 0;        ///< Store id (what `results show 3` takes).
  RunInfo info;               ///< Key, label and provenance.
  std::string created_at;     ///< When its first point was stored (ISO 8601 UTC).
  int points = 0;             ///< Points stored.
  int predicted_points = 0;   ///< Of which predicted.
  double max_time_scale = 1;  ///< Largest time scale among its points (1: all real time).
  int evaluations = 0;        ///< Evaluations stored (schema 8 on).
};

/// Which evaluations to read; empty fields select all.
struct EvaluationQuery {
  std::optional<std::int64_t> run_id;  ///< One run's.
  std::string model;                   ///< Model id.
  std::string model_prefix;            ///< InferenceX model prefix.
  std::string hw;                      ///< Hardware.
  std::string framework;               ///< Serving framework.
  std::string precision;               ///< Precision.
  std::string task;                    ///< Task (`gsm8k`).
  std::string status;                  ///< `scored`, `not_run`, `invalid` or `incomplete`.
};

/// What one Ingest call did, point by point.
struct IngestOutcome {
  std::int64_t run_id = 0;  ///< The run's store id.
  int added = 0;            ///< New points.
  int updated = 0;          ///< Points whose key existed with a different result (replaced).
  int unchanged = 0;        ///< Points already stored with the same result (nothing written).
};

/// A store of runs and points. Every method throws std::runtime_error on a database fault.
class ResultStore {
 public:
  virtual ~ResultStore() = default;

  /// Stores `points` under `run` in one transaction, creating the run if needed. Idempotent: a point
  /// whose key and raw result are already stored changes nothing; the same key with another result
  /// replaces the stored one.
  virtual IngestOutcome Ingest(const RunInfo& run, const std::vector<Point>& points) = 0;
  /// All runs, oldest first.
  virtual std::vector<RunSummary> ListRuns() = 0;
  /// The run named by `ref`: its id, its exact key or label, a unique key prefix, or `latest`.
  /// Throws InputError when nothing or several runs match.
  virtual RunSummary FindRun(const std::string& ref) = 0;
  /// The points of run `run_id`, in natural-key order.
  virtual std::vector<Point> Points(std::int64_t run_id) = 0;
  /// Every point of every run in one read (what a dashboard loads): ordered by run id, then as
  /// Points orders them; each carries its run's id and key. `raw_json` is left empty (the client's
  /// result file, often large; Points reads it); `raw_sha256` names it.
  virtual std::vector<Point> AllPoints() = 0;
  /// Stores `evaluations` under `run` in one transaction, creating the run if needed; idempotent on
  /// (run, Evaluation::EvalKey) as Ingest is on point keys. Throws InputError on a store older than
  /// schema 8 (opened with a target version).
  virtual IngestOutcome IngestEvaluations(const RunInfo& run, const std::vector<Evaluation>& evaluations) = 0;
  /// The evaluations `query` selects, ordered by run id, then configuration, task and eval
  /// concurrency; each carries its run's id and key. Empty on a store older than schema 8.
  virtual std::vector<Evaluation> Evaluations(const EvaluationQuery& query) = 0;
  /// The schema version of the open store.
  virtual int SchemaVersion() = 0;
  /// How stored point `point_id` differs from `point` (with its `run_id`) as this store would write
  /// it now: one line per column whose stored value is not `point`'s, e.g. `tput_per_gpu: stored
  /// 1300, expected 1234.5` (timestamps aside). Empty when every column agrees; one line when the
  /// point is gone. What `results verify` compares a point's bundle with.
  virtual std::vector<std::string> DiffStoredPoint(std::int64_t point_id, const Point& point) = 0;

  // Row attempts, point details and evaluation samples: what the dashboard's reliability view and
  // point page read. Written once for both stores (store/detail_store.cpp) on Session(). A store
  // older than their migration (opened with a target version) reads none and refuses writes with
  // an InputError.

  /// Stores `attempts` under `run` in one transaction, creating the run if needed; idempotent on
  /// (run, RowAttempt::AttemptKey()): an attempt stored again replaces the stored one.
  IngestOutcome IngestAttempts(const RunInfo& run, const std::vector<RowAttempt>& attempts);
  /// Every attempt of every run, by start time then id, without its result and logs' tails.
  std::vector<RowAttempt> Attempts();
  /// Changes whenever an attempt is stored ("" when none can be): how a reader notices new attempts
  /// without reading them.
  std::string AttemptsStamp();
  /// Changes whenever another connection commits to the store, or nullopt where the store cannot
  /// tell (PostgreSQL): unchanged, nothing was written since it was last read.
  std::optional<std::int64_t> CommitCounter();
  /// Attempt `id` with its result and logs' tails, or nullopt.
  std::optional<RowAttempt> FindAttempt(std::int64_t id);
  /// Replaces the details (timeline, logs' tails, GPU samples) of the point `point_key` of `run`;
  /// false when the run has no such point.
  bool StorePointDetails(const RunInfo& run, const std::string& point_key, const PointDetails& details);
  /// Point `id` as stored, its raw result included, or nullopt.
  std::optional<Point> FindPoint(std::int64_t id);
  /// The stored details of point `id` (empty when there are none): its request timeline and its
  /// telemetry samples only when asked (each can be a megabyte), its logs' tails always.
  PointDetails FindPointDetails(std::int64_t id, bool timeline = true, bool samples = true);
  /// Whether point `id` has a stored request timeline, and its GPUs with telemetry samples.
  std::pair<bool, std::size_t> PointDetailsExtent(std::int64_t id);
  /// Replaces the samples of evaluation `eval_key` of `run`; false when the run has no such evaluation.
  bool StoreEvalSamples(const RunInfo& run, const std::string& eval_key, const std::vector<StoredEvalSample>& samples);
  /// The page of an evaluation's samples `query` selects.
  EvalSamplePage EvalSamples(const EvalSampleQuery& query);

 protected:
  /// The store's connection, for the queries both stores share (store/sql_session.hpp).
  virtual SqlSession& Session() = 0;
};

/// The schema version that added row attempts, point details and evaluation samples (found in
/// the migration list, so it follows the list's order).
int DetailsSchemaVersion();

/// Options for opening a store.
struct StoreOptions {
  /// Migrate up to this schema version only (tests of migrations); 0 = the newest.
  int target_schema_version = 0;
};

/// Opens (creating if needed, parent folders included) the SQLite store at `path` in WAL mode and
/// migrates it forward to the current schema. Throws InputError when `path` is not a store or was
/// written by a newer infermark.
std::unique_ptr<ResultStore> OpenStore(const std::string& path, const StoreOptions& options = {});

/// The current schema version (what a freshly opened store has).
int CurrentSchemaVersion();

/// The default store path, `results/infermark.db` under the current directory.
std::string DefaultStorePath();

}  // namespace infermark::results
