// `infermark predict --config-keys KEY…`: the rows of a sweep on the built-in engine's virtual
// clock instead of a live server — each row planned as a measured engine row would be (the same
// deployment, the same client settings), run through the load generator against src/sim's
// target, its result file, row state and store row written like a real run's and marked as
// predicted — in well under a second.
#pragma once

#include <string>
#include <vector>

#include "runner/sweep_command.hpp"
#include "sim/predict.hpp"

namespace infermark::runner {

/// One predicted row.
struct PredictedRow {
  matrix::MatrixRow row;          ///< The row.
  std::string result_filename;    ///< Its result file's stem.
  RowOutcome outcome;             ///< done, invalid or failed (with the reason).
  sim::PredictedFigures figures;  ///< Its figures (when it ran).
};

/// What a predicted sweep did.
struct PredictSummary {
  std::vector<PredictedRow> rows;  ///< In matrix order.
  int failed = 0;                  ///< Rows that could not be predicted.
  double seconds = 0;              ///< Wall time of the whole command's work.
  std::string result_dir;          ///< Where the result files went (`<result dir>/predicted`).
  SweepRunInfo store;              ///< The store run (when stored).
  bool stored = false;             ///< Points were stored.
  /// One line per deployment whose prediction extrapolates to kernel classes no calibration
  /// point exercised (perfmodel::TransferWarning).
  std::vector<std::string> warnings;
};

/// Predicts every selected row (`options` as for `sweep`: selection, site, result folder, store).
/// Throws InputError for bad input; a row that cannot be predicted is recorded as failed.
PredictSummary RunPredictSweep(const SweepCommandOptions& options);

}  // namespace infermark::runner
