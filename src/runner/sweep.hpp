// A sweep: matrix rows run one after another at this site, each recorded in a row-state file
// beside its result so that a sweep started again (even after SIGKILL) skips what is complete,
// stores what was measured but not yet stored, and runs the rest. A failed row is recorded with
// its reason and the sweep goes on.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "matrix/matrix_row.hpp"
#include "runner/attempt_record.hpp"
#include "runner/row_plan.hpp"
#include "runner/row_runner.hpp"
#include "runner/site_config.hpp"

namespace infermark::runner {

/// Stores a finished row's result (e.g. in the results database); returns "" or why it failed.
using StoreResult =
    std::function<std::string(const matrix::MatrixRow& row, const RowPlan& plan, const RowOutcome& outcome)>;

/// Runs a planned row (the local executor by default; Slurm and tests substitute their own).
using RowExecutor = std::function<RowOutcome(const RowPlan& plan, const RowLimits& limits)>;

/// How to run a sweep.
struct SweepSettings {
  PlanOptions plan;              ///< Per-run overrides of the site defaults.
  RowLimits limits;              ///< Timeouts (filled from the site defaults by the caller).
  bool resume = true;            ///< Skip rows with a complete result.
  bool progress_tty = false;     ///< Draw a redrawn progress bar (else one line per row).
  std::FILE* progress = stderr;  ///< Where progress goes (nullptr: nowhere).
  StoreResult store;             ///< Called for each row with a result; empty: files only.
  RowExecutor executor;          ///< Empty: RunRowLocally.
  /// Times a row runs again when its point is INVALID only because the host moved a headline
  /// figure beyond the tolerance (every reason is a host error): a measurement the host spoiled is
  /// repeated, never judged more leniently. 0: never.
  int host_retries = 0;
  /// Where each attempt at a row goes as it ends (runner/attempt_record.hpp); empty: row states only.
  AttemptSink attempts;
};

/// Whether the result file at `path` is INVALID for reasons of the host alone (see
/// SweepSettings::host_retries); false when it is VALID, unreadable or has any other reason.
bool InvalidForTheHostAlone(const std::string& path);

/// One row of the summary.
struct SweepRow {
  std::string result_filename;  ///< The row's stem.
  RowOutcome outcome;           ///< How it ended.
};

/// What a sweep did.
struct SweepSummary {
  std::vector<SweepRow> rows;  ///< In matrix order (rows not reached after a stop are absent).
  int done = 0;                ///< Rows run to a result (done or invalid).
  int skipped = 0;             ///< Rows already complete.
  int failed = 0;              ///< Rows without a result.
  int eval_failed = 0;         ///< Rows whose eval failed its threshold or was INVALID (counted in done too).
  int stop_signal = 0;         ///< Signal that stopped the sweep, or 0.
  bool slurm = false;          ///< Rows ran as Slurm jobs.

  /// Counts `outcome` and keeps it.
  void Add(const std::string& result_filename, RowOutcome outcome);
};

/// Plans every row first (so a site-file gap is reported before anything starts; throws
/// InputError listing every row that cannot be planned), then runs them.
SweepSummary RunSweep(const std::vector<matrix::MatrixRow>& rows, const SiteConfig& site,
                      const SweepSettings& settings);

/// Whether `plan`'s row already has a complete result (state file says done or invalid and the
/// result file is there; an eval row's evals scored and passed, or not runnable at its target;
/// an eval-only row needs no result file).
bool RowComplete(const RowPlan& plan);

/// Writes the row-state file of `plan` (atomically), with the row as generated.
void WriteRowState(const RowPlan& plan, const matrix::MatrixRow& row, const RowOutcome& outcome);

}  // namespace infermark::runner
