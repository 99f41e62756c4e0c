// Sends an eval's requests through the load generator's HTTP target (the client `bench serve`
// uses: its event loops, keep-alive pool, streaming reader and failure classes), at most
// `concurrency` in flight, retrying a failed request as lm-evaluation-harness does (max_retries
// attempts in all, exponential waits between them), and keeping each answer's text.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "loadgen/api_driver.hpp"

namespace infermark::eval {

/// Where and how to send.
struct EvalClientOptions {
  std::string base_url;                               ///< `http[s]://host:port`.
  loadgen::Api api = loadgen::Api::kChatCompletions;  ///< Wire protocol.
  std::string endpoint;                               ///< Path (empty: the API's default).
  std::size_t concurrency = 64;                       ///< Requests in flight at most.
  int max_retries = 5;                                ///< Attempts per request in all (lm-eval's max_retries).
  double retry_wait_min_s = 1.0;                      ///< Shortest wait before a retry (tenacity's min).
  double retry_wait_max_s = 10.0;                     ///< Longest wait (tenacity's max).
  std::chrono::seconds timeout{1800};                 ///< A request silent this long fails ("stall").
};

/// What became of one request.
struct EvalOutcome {
  bool ok = false;         ///< An answer came back.
  bool sent = false;       ///< It was sent at least once (false: the run stopped first).
  std::string text;        ///< The answer's text.
  int attempts = 0;        ///< Times it was sent.
  std::string error_kind;  ///< The last failure's class ("http_status", "timeout", …) when not ok.
  std::string error;       ///< The last failure's details.
};

/// Sends `bodies` (JSON request bodies) and returns one outcome each, in order. `stop`, when set,
/// ends the run early: nothing new is sent and requests in flight are cancelled. `progress` is
/// called with the number of finished requests every few milliseconds. Throws
/// loadgen::ServerUnreachable when the server cannot be reached at all.
std::vector<EvalOutcome> SendAll(const EvalClientOptions& options, std::vector<std::string> bodies,
                                 const std::atomic<bool>* stop = nullptr,
                                 const std::function<void(std::size_t)>& progress = {});

/// tenacity's wait_exponential(multiplier=0.5, min, max) before attempt `failed + 1`.
double RetryWait(int failed_attempts, double min_s, double max_s);

}  // namespace infermark::eval
