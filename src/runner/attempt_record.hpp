// Every attempt at a row, recorded as it ends for the store's reliability history: a point (VALID or
// INVALID), a failure with its class, an attempt the host spoiled and the sweep measured again, or
// a row skipped because it was complete. The sweep hands each attempt to an AttemptSink (a few lines
// in its loop); the row state lists the row's attempts of that sweep, so `results ingest` of a
// result folder stores the same attempts again, as the same rows.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "matrix/matrix_row.hpp"
#include "results/row_attempt.hpp"
#include "runner/row_plan.hpp"
#include "runner/row_runner.hpp"

namespace infermark::runner {

/// The class of a failure, from how the row ended and the reason the runner gave (its own words:
/// "server not ready after…", "row timeout:…", "client … without a result"…). kNone unless
/// `status` is failed or interrupted; a stop signal is kKilled. `was_ready`: the server had
/// answered, so an unrecognised failure is the client's rather than the start-up's.
results::FailureClass ClassifyFailure(RowStatus status, const std::string& reason, bool was_ready);

/// What the sweep knows of one attempt when it ends.
struct AttemptEnd {
  int attempt = 1;                        ///< 1-based within the row in this sweep.
  std::string started_at{};               ///< When the sweep started it, ISO 8601 UTC.
  double seconds = 0;                     ///< Its own wall time.
  RowStatus status = RowStatus::kFailed;  ///< How it ended.
  std::string reason{};                   ///< Why, in the runner's words.
  double ready_s = 0;                     ///< Seconds until its server was ready (0: never).
  bool retried = false;                   ///< The host spoiled it and the sweep measures the row again.
  std::string result_path{};              ///< Its result file now (the kept `attempt-<k>.json` when retried).
  std::string client_log{};               ///< Its client log now ("" when the target runs its own client).
  std::string result_filename{};          ///< A multi-node point's own stem (empty: the row's).
  long long conc = 0;                     ///< A multi-node point's concurrency (0: the row's).
};

/// The attempt `end` of `row` as `plan` ran it, with the result and the logs' tails of an attempt
/// that left no stored point (failed or retried). The executor is `slurm` inside a Slurm job
/// (SLURM_JOB_ID set) even though the job runs the row with the local executor.
results::RowAttempt MakeAttempt(const matrix::MatrixRow& row, const RowPlan& plan, const AttemptEnd& end);

/// Stores one attempt (e.g. in the results database); returns "" or why it could not.
using AttemptSink = std::function<std::string(const results::RowAttempt& attempt)>;

/// Makes attempt `end` (MakeAttempt) and hands it to `sink` when there is one (a sink's failure is
/// reported on `progress` and does not stop the sweep); returns it without its result and logs'
/// tails, as the row state lists it.
results::RowAttempt RecordAttempt(const AttemptSink& sink, std::FILE* progress, const matrix::MatrixRow& row,
                                  const RowPlan& plan, const AttemptEnd& end);

/// An attempt as the row state lists it (everything but the result and the logs' tails).
Json AttemptStateJson(const results::RowAttempt& attempt);

/// The attempts the row state at `state_path` lists, with the result and logs' tails of those that
/// left no point read back from the row's folder when they are still there. A state written before
/// states listed attempts gives one attempt for how the row ended (and one retried attempt per
/// earlier attempt it names). Throws InputError naming the file when it is not a row state.
std::vector<results::RowAttempt> AttemptsFromRowState(const std::string& state_path);

/// The attempts of every row state (`*.row.json`) at or below `paths` (files or folders), in path
/// order. Throws one InputError listing every state that cannot be read.
std::vector<results::RowAttempt> AttemptsFromRowStates(const std::vector<std::string>& paths);

}  // namespace infermark::runner
