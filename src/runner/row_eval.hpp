// The accuracy eval of a matrix row, as InferenceX's workflows run it: a `run-eval` row runs the
// eval after its throughput point against the same server, an `eval-only` row runs the eval alone
// on a server started with the eval context, and a multi-node row runs its EVAL_CONC values in
// turn on one deployment. The eval rows of one single-node configuration (the founding recipe's
// conc 64 and 256) are one batch on one server: the last of them runs every concurrency of the
// batch after its point (or alone), the others none (PlanRows). Several concurrencies on one
// server leave InferenceX's batched layout (core/eval_batch.hpp). Command targets are evaluated
// in process (src/eval, the client engine of `bench serve`); launcher scripts run `infermark eval`
// themselves through benchmark_lib.sh's run_eval and the runner judges what they leave; the
// built-in engine has no weights, so its evals are recorded as not run. Every eval gets a status
// file beside its lm-eval files and meta_env.json (docs/evals.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "eval/eval_status.hpp"
#include "matrix/matrix_row.hpp"

namespace infermark::runner {

struct RowPlan;

/// The reason an eval against the built-in engine is recorded as not run.
inline constexpr const char* kEngineNotRun =
    "the built-in engine has no weights: it models speed, not answers, so accuracy cannot be measured against it";

/// A row's eval step, planned.
struct EvalPlan {
  std::string task = "gsm8k";  ///< The task (built-in name or task file).
  /// EVAL_CONC: the request concurrencies this row evaluates, in turn on its one server (several:
  /// a batch); empty when another row's batch runs this row's eval (`batched_with`).
  std::vector<int> concs;
  /// `<result-dir>/evals/<RESULT_FILENAME>`; a batch of single-node rows: `<RESULT_FILENAME>` over
  /// the batch's concurrency list (`…_conc64x256_…`).
  std::string dir;
  std::vector<int> own_concs;  ///< The row's own eval concurrencies (EvalConcs).
  std::string batched_with;    ///< The row whose batch runs this row's eval (its RESULT_FILENAME); empty: this one.
  bool only = false;           ///< An eval-only row: no throughput point.
  long long max_model_len = 16384;   ///< EVAL_MAX_MODEL_LEN.
  std::optional<std::size_t> limit;  ///< EVAL_LIMIT: only the first N documents.
  std::string model;                 ///< The served model's name.
  std::string model_prefix;          ///< The row's model prefix (the threshold's override key).
  std::string thresholds;            ///< Thresholds file (empty: the built-in data/evals/thresholds.yaml).
  bool in_process = false;           ///< The runner runs it (command targets); else the launcher does.
  std::string not_run;               ///< Why it cannot run at this target (the built-in engine); empty: it can.
  std::string server;                ///< What answers, for the status file.

  /// The row runs its eval step (it is not batched with another row).
  [[nodiscard]] bool RunsHere() const { return batched_with.empty(); }
  /// Several concurrencies in `dir`: InferenceX's batched layout, a status file per concurrency.
  [[nodiscard]] bool Batched() const { return concs.size() > 1; }
  /// The concurrency naming `conc`'s files in a batched folder; nullopt in a single eval's folder.
  [[nodiscard]] std::optional<long long> BatchedConc(int conc) const;
};

/// A row's part in its configuration's eval batch (EvalBatchRoles).
struct EvalBatchRole {
  std::vector<int> concs;         ///< What the row evaluates (empty: another row runs its eval).
  std::optional<std::size_t> by;  ///< In a batch: the index of the row that runs it (itself for that row).
};

/// The eval batches of `rows`: single-node, non-agentic eval rows of one configuration (every
/// field equal but `conc` and the eval marking; eval-only rows apart from run-eval rows), two or
/// more of them, are one batch, run by the last of them in `rows`' order with every concurrency of
/// the batch in order; the others evaluate nothing. Rows in no batch evaluate their own
/// concurrencies (EvalConcs) and have no `by`. One entry per row.
std::vector<EvalBatchRole> EvalBatchRoles(const std::vector<matrix::MatrixRow>& rows);

/// A row with `run-eval: true` or `eval-only: true`.
bool IsEvalRow(const matrix::MatrixRow& row);

/// An eval-only row.
bool IsEvalOnlyRow(const matrix::MatrixRow& row);

/// The eval's concurrencies: single-node rows their CONC; multi-node rows every concurrency with
/// `eval-all-concs`, else `eval-conc`, else the largest of the list.
std::vector<int> EvalConcs(const matrix::MatrixRow& row);

/// EVAL_MAX_MODEL_LEN for the row: InferenceX's compute_eval_context_length without a model
/// config to cap it: an eval-only row's ISL + OSL + 256 (setup_eval_context), else the row's
/// max-model-len, else that same sum.
long long EvalMaxModelLen(const matrix::MatrixRow& row);

/// Runs (or records) the row's evals after its throughput point, the server still up: command
/// targets in process against `http://127.0.0.1:<port>`, the built-in engine as not run, launcher
/// targets judged from the folders their run_eval left. Writes every folder's eval_status.json.
/// `deadline_s` (seconds from now) bounds in-process evals; a stop signal ends them (incomplete).
std::vector<eval::EvalStatus> RunRowEvals(const RowPlan& plan, double deadline_s);

/// Records every eval of the row as not run with `reason` (meta_env.json and the status files).
std::vector<eval::EvalStatus> RecordEvalsNotRun(const RowPlan& plan, const std::string& reason);

/// Whether every eval of the row has a status file that needs no re-run (scored and passed, or
/// not run because the target cannot answer).
bool EvalsComplete(const RowPlan& plan);

/// How the row's eval meets its server, for progress lines and reasons: "evals at conc 64 256 on
/// this row's server" for a row that runs a batch, "eval at conc 64 in the batch of <RF>, on that
/// row's server" for a row whose eval another row runs; "" otherwise.
std::string EvalBatchNote(const RowPlan& plan);

/// The failed evals' reasons joined ("gsm8k 0.62 < 0.92 (minimaxm2.5)"; "INVALID: …"), or "".
std::string EvalFailures(const std::vector<eval::EvalStatus>& evals);

}  // namespace infermark::runner
