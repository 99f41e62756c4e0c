// `infermark engine serve --role router`: the front of a disaggregated deployment. It serves the
// OpenAI API and sends each generation request first to a prefill worker (the policy's pick) with
// `max_tokens: 1` and `kv_transfer_params: {do_remote_decode: true}` (vLLM's disaggregated proxy
// shape), then the original request plus the prefill's `kv_transfer_params` to a decode worker
// (least loaded, or in turn under round-robin), whose answer (SSE bytes or JSON) goes to the
// client unchanged, so the client's TTFT includes the prefill and the modelled KV transfer.
//
// GET /health is 200 only when every worker answers its own /health, else 503 with a JSON body
// naming each unreachable worker. A worker that fails mid-request gives the client an
// OpenAI-style 502 naming it (inside the stream, as an SSE error event, once the stream has
// started); the router goes on serving. GET /v1/models is the first decode worker's. GET /metrics
// is the router's own: requests in flight per worker, its queue, and histograms of the prefill
// round trip, the modelled KV transfer and the router's own overhead.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace infermark::engine {

/// Settings of the router.
struct RouterOptions {
  std::vector<std::string> prefill;                ///< Prefill workers' base URLs (http://host:port).
  std::vector<std::string> decode;                 ///< Decode workers' base URLs.
  std::string policy = "round-robin";              ///< Prefill pick: round-robin, least-loaded or kv-aware.
  std::string model;                               ///< The served model's name (labels the metrics).
  std::string host = "127.0.0.1";                  ///< Address to listen on.
  std::uint16_t port = 0;                          ///< Port (0: pick one).
  std::size_t threads = 1;                         ///< HTTP event-loop threads.
  std::chrono::milliseconds health_timeout{2000};  ///< A worker's /health must answer within this.
};

/// The router. Construct (InputError for a bad URL, an empty pool or an unknown policy), Start(),
/// Stop().
class RouterServer {
 public:
  /// Checks the options and connects nothing yet.
  explicit RouterServer(RouterOptions options);
  /// Stops the router if it runs.
  ~RouterServer();
  RouterServer(const RouterServer&) = delete;
  RouterServer& operator=(const RouterServer&) = delete;

  /// Binds and starts serving; throws std::runtime_error when it cannot listen.
  void Start();
  /// Closes every connection and joins the loops. Idempotent; not from a loop thread.
  void Stop();
  /// The port listened on (after Start).
  [[nodiscard]] std::uint16_t port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infermark::engine
