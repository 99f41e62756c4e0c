#include "runner/worker_placement.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace infermark::runner {
namespace {

/// A worker's place by node index: `span` nodes from `node`.
struct Spot {
  std::string role;
  int index = 0;
  int node = 0;
  int span = 1;
  int first_gpu = 0;
  int gpus = 0;
};

struct Layout {
  std::vector<Spot> spots;
  int nodes_used = 0;
};

Layout Lay(const matrix::MatrixRow& row, int gpus_per_node) {
  if (gpus_per_node < 1) {
    throw std::invalid_argument("gpus-per-node must be at least 1, not " + std::to_string(gpus_per_node));
  }
  if (!row.prefill || !row.decode) throw std::invalid_argument("the row has no prefill and decode worker pools");
  Layout layout;
  int node = 0;       // the node being filled
  int used_gpus = 0;  // GPUs taken on it
  const std::pair<const char*, const matrix::WorkerPool*> pools[] = {{"prefill", &*row.prefill},
                                                                     {"decode", &*row.decode}};
  for (const auto& [role, pool] : pools) {
    if (pool->tp < 1) throw std::invalid_argument(std::string(role) + " tp must be at least 1");
    for (int i = 0; i < pool->num_worker; ++i) {
      if (pool->tp <= gpus_per_node) {
        if (used_gpus + pool->tp > gpus_per_node) {
          ++node;
          used_gpus = 0;
        }
        layout.spots.push_back({role, i, node, 1, used_gpus, pool->tp});
        used_gpus += pool->tp;
      } else {
        if (used_gpus > 0) {
          ++node;
          used_gpus = 0;
        }
        const int span = (pool->tp + gpus_per_node - 1) / gpus_per_node;
        layout.spots.push_back({role, i, node, span, 0, pool->tp});
        node += span;
      }
    }
  }
  layout.nodes_used = used_gpus > 0 ? node + 1 : node;
  return layout;
}

}  // namespace

int PlacementNodes(const matrix::MatrixRow& row, int gpus_per_node) {
  if (!row.prefill || !row.decode) return 1;
  return std::max(1, Lay(row, gpus_per_node).nodes_used);
}

WorkerPlacement PlaceWorkers(const matrix::MatrixRow& row, int gpus_per_node, const std::vector<std::string>& nodes) {
  const Layout layout = Lay(row, gpus_per_node);
  if (nodes.empty() || layout.nodes_used > static_cast<int>(nodes.size())) {
    throw std::invalid_argument("the row's workers need " + std::to_string(layout.nodes_used) + " node(s) of " +
                                std::to_string(gpus_per_node) + " GPUs, the allocation has " +
                                std::to_string(nodes.size()));
  }
  WorkerPlacement placement;
  placement.head_node = nodes.front();
  placement.nodes_used = layout.nodes_used;
  for (const Spot& s : layout.spots) {
    PlacedWorker w;
    w.role = s.role;
    w.index = s.index;
    w.first_gpu = s.first_gpu;
    w.gpus = s.gpus;
    w.nodes.assign(nodes.begin() + s.node, nodes.begin() + s.node + s.span);
    placement.workers.push_back(std::move(w));
  }
  return placement;
}

}  // namespace infermark::runner
