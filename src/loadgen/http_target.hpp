// The target of a measured run: any OpenAI-compatible (or TensorRT-LLM) server over src/http's
// client. Request bodies are built before the clock starts; responses are read into the trackers
// as bytes arrive (api_driver.hpp); the client's own counters (connections, reads, how long bytes
// waited for their loop, real-time clock steps) and, when the server is infermark's built-in
// engine, the engine's own lateness over the measured window go into the report.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "http/event_loops.hpp"
#include "loadgen/api_driver.hpp"
#include "loadgen/target.hpp"

namespace infermark::loadgen {

/// The server could not be reached before the run started (nothing was measured).
class ServerUnreachable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Where and how to send.
struct HttpTargetOptions {
  std::string base_url;                       ///< `http[s]://host:port[/prefix]`.
  std::string url_flag = "--base-url";        ///< The setting base_url came from (named in errors).
  std::string endpoint;                       ///< Path after the prefix (e.g. /v1/completions).
  Api api = Api::kCompletions;                ///< Wire protocol.
  BodyOptions body;                           ///< What every body carries besides the prompt.
  std::size_t threads = 1;                    ///< Event loops.
  std::vector<int> cpus;                      ///< CPUs to pin loop i to (cpus[i % n]).
  std::chrono::milliseconds idle_timeout{0};  ///< A request silent this long fails as a stall (0: none).
};

/// An HTTP server as a target.
class HttpTarget final : public Target {
 public:
  /// Starts the client (no connection yet). Throws InputError for an unusable URL.
  explicit HttpTarget(HttpTargetOptions options);
  ~HttpTarget() override;
  HttpTarget(const HttpTarget&) = delete;
  HttpTarget& operator=(const HttpTarget&) = delete;

  /// Checks the server answers (ServerUnreachable when it cannot be reached), learns whether it
  /// is infermark's built-in engine, and opens `connections` keep-alive connections so that the
  /// first measured requests do not pay for TCP connects.
  void Connect(std::size_t connections);
  /// The client's event loops (for the executor).
  http::EventLoops& loops();

  void PreparePhase(std::span<const Prompt> prompts, std::span<const std::size_t> order) override;
  void PrepareOpenPhase(std::size_t slots) override;
  [[nodiscard]] std::string BuildBody(const Prompt& prompt) const override;
  void Issue(const RequestSpec& spec, RequestTracker& tracker) override;
  void CancelAll(std::string_view why) override;
  void OpenWindow() override;
  void CloseWindow() override;
  [[nodiscard]] TargetReport Report() const override;

  /// Closes every connection and joins the loops (idempotent); the report stays readable.
  void Shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infermark::loadgen
