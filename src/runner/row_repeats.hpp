// A row whose point is measured several times on a fresh server each (`--repeat-fresh-server`, and
// every launcher-script row with `--repeats`): the row is run once per repeat, each repeat's result
// kept beside the row's as `<stem>.repeat-<k>.json`, and the combined result (medians with their
// intervals, metrics/repeat_result.hpp) written as the row's own result file. Repeats with one
// server are the client's (`bench serve --repeats`); this file is not involved then.
#pragma once

#include <functional>

#include "runner/row_plan.hpp"
#include "runner/row_runner.hpp"

namespace infermark::runner {

/// Runs `plan` `plan.repeats` times through `run` (the local executor, or a test's). A repeat
/// INVALID for the host's reasons alone (InvalidForTheHostAlone) is run again up to `host_retries`
/// times, its spoiled result kept beside the row's as `<stem>.repeat-<k>.attempt-<a>.json`. An eval
/// row's eval runs with the first repeat only. A repeat that fails or a stop ends the row: failed
/// (interrupted) with the repeats measured so far kept and no combined result; else done or invalid
/// as the combined verdict says, with every repeat's power and warnings.
RowOutcome RunRowRepeats(const RowPlan& plan, const RowLimits& limits,
                         const std::function<RowOutcome(const RowPlan&, const RowLimits&)>& run, int host_retries);

}  // namespace infermark::runner
