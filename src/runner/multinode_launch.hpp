// The processes of a multi-node row's built-in deployment once its workers are placed: each
// worker's node, GPUs, port, URL, log and `engine serve` command line, and the router's on the
// head node in front of them. The run starts exactly these (on the allocation's nodes and their
// addresses); `run --dry-run` shows them on the nodes an allocation would hold, before any exists.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runner/multinode_plan.hpp"
#include "runner/worker_placement.hpp"

namespace infermark::runner {

/// One process of a multi-node deployment, placed.
struct LaunchStep {
  std::string role;                ///< "prefill", "decode" or "router".
  int index = 0;                   ///< Worker number within its role, from 0 (0 for the router).
  std::vector<std::string> nodes;  ///< Its nodes; the first runs it (more when its tp spans nodes).
  std::string devices;             ///< Its CUDA_VISIBLE_DEVICES on each of its nodes ("0,1,2,3"); empty for the router.
  int port = 0;                    ///< The port it listens on (on all interfaces).
  std::string url;                 ///< How the others reach it: `http://<node address>:<port>`.
  std::vector<std::string> argv;   ///< Its command line.
  std::string log_path;            ///< Its log.
};

/// The workers and the router of a multi-node row.
struct MultiNodeLaunch {
  std::vector<LaunchStep> workers;  ///< Prefill workers, then decode workers, in placement order.
  LaunchStep router;                ///< The router on the head node, at the row's port.
};

/// The launch of `engine` on `placement`: worker k (prefill first) listens on `port` + 1 + k on its
/// first node, the router on `port` on the head node; `address` maps a node name to the address
/// the others reach it at; logs go to `log_dir` (`<role>-<index>.log`) and `router_log`.
MultiNodeLaunch PlanMultiNodeLaunch(const std::string& infermark, const MultiNodeEngine& engine,
                                    const WorkerPlacement& placement, int port, const std::string& log_dir,
                                    const std::string& router_log,
                                    const std::function<std::string(const std::string&)>& address);

/// Stand-in names of an allocation's `count` nodes before Slurm grants one: `<node0>` (the head)
/// to `<node{count-1}>`, in allocation order.
std::vector<std::string> PlannedNodeNames(int count);

}  // namespace infermark::runner
