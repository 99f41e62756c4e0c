#include "runner/multinode_launch.hpp"

#include <filesystem>

namespace infermark::runner {

MultiNodeLaunch PlanMultiNodeLaunch(const std::string& infermark, const MultiNodeEngine& engine,
                                    const WorkerPlacement& placement, int port, const std::string& log_dir,
                                    const std::string& router_log,
                                    const std::function<std::string(const std::string&)>& address) {
  MultiNodeLaunch launch;
  std::vector<std::string> prefill_urls;
  std::vector<std::string> decode_urls;
  int k = 0;
  for (const PlacedWorker& w : placement.workers) {
    LaunchStep s;
    s.role = w.role;
    s.index = w.index;
    s.nodes = w.nodes;
    // A worker wider than a node takes the same GPUs on each of its nodes, its tp split evenly.
    const int nodes = static_cast<int>(w.nodes.size());
    s.devices = VisibleDevices(w.first_gpu, (w.gpus + nodes - 1) / nodes);
    s.port = port + 1 + k++;
    s.url = "http://" + address(w.nodes.front()) + ":" + std::to_string(s.port);
    s.argv = WorkerArgv(infermark, engine, w.role, "0.0.0.0", s.port);
    s.log_path = (std::filesystem::path(log_dir) / (w.role + "-" + std::to_string(w.index) + ".log")).string();
    (w.role == "prefill" ? prefill_urls : decode_urls).push_back(s.url);
    launch.workers.push_back(std::move(s));
  }
  LaunchStep& r = launch.router;
  r.role = "router";
  r.nodes = {placement.head_node};
  r.port = port;
  r.url = "http://" + address(placement.head_node) + ":" + std::to_string(port);
  r.argv = RouterArgv(infermark, engine, prefill_urls, decode_urls, "0.0.0.0", port);
  r.log_path = router_log;
  return launch;
}

std::vector<std::string> PlannedNodeNames(int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back("<node" + std::to_string(i) + ">");
  return names;
}

}  // namespace infermark::runner
