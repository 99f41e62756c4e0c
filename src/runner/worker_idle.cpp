#include "runner/worker_idle.hpp"

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "runner/probe_get.hpp"
#include "runner/stop_signal.hpp"

namespace infermark::runner {
namespace {

// One worker's requests in flight, or why it cannot tell.
std::optional<double> Probe(const WorkerEndpoint& w, std::string& why) {
  const http::FetchResult r = ProbeGet(w.host, w.port, "/metrics");
  if (!r.result.ok() || r.head.status != 200) {
    why = w.name + " does not answer /metrics";
    return std::nullopt;
  }
  const auto n = RequestsInFlight(r.body);
  if (!n) why = w.name + "'s /metrics has no running/waiting gauges";
  return n;
}

}  // namespace

std::optional<double> RequestsInFlight(const std::string& metrics_text) {
  static const char* const kGauges[] = {"vllm:num_requests_running", "vllm:num_requests_waiting",
                                        "sglang:num_running_reqs", "sglang:num_queue_reqs"};
  std::optional<double> total;
  std::istringstream lines(metrics_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.front() == '#') continue;
    const auto name_end = line.find_first_of("{ ");
    if (name_end == std::string::npos) continue;
    const std::string name = line.substr(0, name_end);
    for (const char* g : kGauges) {
      if (name != g) continue;
      const auto value_at = line.find_last_of(line.find('}') != std::string::npos ? '}' : ' ');
      total = total.value_or(0) + std::strtod(line.c_str() + value_at + 1, nullptr);
    }
  }
  return total;
}

std::string WaitWorkersIdle(const std::vector<WorkerEndpoint>& workers, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    std::string busy;
    for (const WorkerEndpoint& w : workers) {
      std::string why;
      const auto n = Probe(w, why);
      if (!n) {
        busy += (busy.empty() ? "" : "; ") + why;
      } else if (*n > 0) {
        std::ostringstream s;
        s << w.name << " has " << *n << " request(s) running or waiting";
        busy += (busy.empty() ? "" : "; ") + s.str();
      }
    }
    if (busy.empty()) return {};
    if (StopRequested() != 0) return "interrupted by signal " + std::to_string(StopRequested());
    if (std::chrono::steady_clock::now() >= deadline) {
      std::ostringstream s;
      s << "workers not idle after " << timeout_s << " s: " << busy;
      return s.str();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace infermark::runner
