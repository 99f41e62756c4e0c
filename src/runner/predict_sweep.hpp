// `infermark predict --config-keys KEY…`: the rows of a sweep on the built-in engine's virtual
// clock instead of a live server — result files, row states and store rows like a real run,
// marked as predicted — in seconds.
#pragma once

#include "runner/sweep_command.hpp"

namespace infermark::runner {

/// Predicts every selected row (`options` as for `sweep`: selection, site, result folder, store),
/// prints a table and the time taken; returns the exit code (1 when a row could not be predicted).
/// Result files go to `<result dir>/predicted/`.
int RunPredictSweep(const SweepCommandOptions& options, bool table);

}  // namespace infermark::runner
