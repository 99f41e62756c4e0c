// Where the workers of a multi-node row run on its allocation: prefill workers first, then decode
// workers, each on the GPUs of one node when its tensor-parallel group fits a node (packed in
// order, a worker never split across two nodes), else on whole nodes of its own. The router and
// the client run on the head node, the allocation's first.
#pragma once

#include <string>
#include <vector>

#include "matrix/matrix_row.hpp"

namespace infermark::runner {

/// One worker of a multi-node row, placed.
struct PlacedWorker {
  std::string role;                ///< "prefill" or "decode".
  int index = 0;                   ///< Worker number within its role, from 0.
  std::vector<std::string> nodes;  ///< Its nodes (more than one when its tp exceeds a node's GPUs); the first leads.
  int first_gpu = 0;               ///< Its first GPU on each of its nodes.
  int gpus = 0;                    ///< GPUs it uses in all (its tp).
};

/// A multi-node row's workers on an allocation.
struct WorkerPlacement {
  std::vector<PlacedWorker> workers;  ///< Prefill workers, then decode workers.
  std::string head_node;              ///< Router and client.
  int nodes_used = 0;                 ///< Nodes the workers occupy (from the allocation's first).
};

/// Nodes the workers of `row` need with `gpus_per_node` GPUs per node, placed as PlaceWorkers
/// places them (1 for a row without worker pools).
int PlacementNodes(const matrix::MatrixRow& row, int gpus_per_node);

/// Places the workers of `row` on `nodes` (in allocation order) with `gpus_per_node` GPUs each.
/// Throws std::invalid_argument saying how many nodes the workers need when `nodes` are fewer, or
/// when `gpus_per_node` is not positive or the row has no worker pools.
WorkerPlacement PlaceWorkers(const matrix::MatrixRow& row, int gpus_per_node, const std::vector<std::string>& nodes);

}  // namespace infermark::runner
