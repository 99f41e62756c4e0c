// Waiting for a deployment's workers to be idle between the points of a multi-node row: every
// worker's Prometheus `/metrics` shows no request running and none waiting (vLLM's
// num_requests_running/num_requests_waiting, SGLang's num_running_reqs/num_queue_reqs), as
// InferenceX's multi-node jobs wait before each concurrency.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace infermark::runner {

/// A worker's address.
struct WorkerEndpoint {
  std::string name;  ///< For reasons ("decode worker 0 on n2").
  std::string host;  ///< Address the runner reaches it at.
  int port = 0;      ///< Its port.
};

/// Requests running plus waiting in a `/metrics` text, summed over every series of the gauges
/// above; nullopt when the text has none of them.
std::optional<double> RequestsInFlight(const std::string& metrics_text);

/// Waits up to `timeout_s` until every worker's `/metrics` shows nothing in flight. Returns ""
/// when they are idle, else why not (the workers still busy or not answering, named), or the
/// stop signal when one arrives.
std::string WaitWorkersIdle(const std::vector<WorkerEndpoint>& workers, double timeout_s);

}  // namespace infermark::runner
