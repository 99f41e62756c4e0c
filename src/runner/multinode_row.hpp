// Running one multi-node row on real Slurm: one allocation of the nodes its workers take, the
// prefill and decode workers started as job steps on their nodes (PlaceWorkers, each with its
// GPUs in CUDA_VISIBLE_DEVICES), the router and the client on the head node, then every
// concurrency of the row's list on that one deployment, in order, each after the workers are idle,
// each point stored as it finishes; at the end the allocation is released, which ends every step
// on every node. A launcher-script target runs instead as one step on the head node with the
// multi-node contract, starting its own workers inside the allocation.
#pragma once

#include <string>
#include <vector>

#include "matrix/matrix_row.hpp"
#include "runner/row_plan.hpp"
#include "runner/row_runner.hpp"
#include "runner/sweep.hpp"

namespace infermark::runner {

/// One point of a multi-node row, as it ended.
struct MultiNodePointOutcome {
  std::string result_filename;  ///< The point's stem.
  RowOutcome outcome;           ///< How it ended (skipped: not reached).
};

/// What a multi-node row did.
struct MultiNodeOutcome {
  RowOutcome row;                             ///< The whole row: done when every point is.
  std::vector<MultiNodePointOutcome> points;  ///< Each concurrency, in the row's order.
};

/// Runs the multi-node `row` planned as `plan` (plan.multinode set). `store` (may be empty) is
/// called for each point with a result, with the row narrowed to the point's concurrency and the
/// plan to its result file. With `resume`, points whose result file is already there are stored
/// without running again. Never throws for a failure of the row: a reason naming the worker,
/// node or Slurm's answer becomes the outcome. No process it started outlives it.
MultiNodeOutcome RunMultiNodeRow(const matrix::MatrixRow& row, const RowPlan& plan, const RowLimits& limits,
                                 const StoreResult& store, bool resume);

}  // namespace infermark::runner
