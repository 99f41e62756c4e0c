// HTTP/1.1 client for one origin: a keep-alive connection pool per event loop, streamed responses
// delivered chunk by chunk with socket-read timestamps, failures reported as data.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/client_request.hpp"
#include "http/delay_histogram.hpp"
#include "http/event_loops.hpp"
#include "http/tls_options.hpp"

namespace infermark::http {

/// Client settings.
struct ClientOptions {
  std::string host = "127.0.0.1";  ///< Server host name or address (resolved once, at construction).
  std::uint16_t port = 80;         ///< Server port.
  bool tls = false;                ///< Use HTTPS.
  TlsClientOptions tls_options{};  ///< Certificate checks when `tls`.
  std::size_t threads = 1;         ///< Event-loop threads.
  std::vector<int> cpus{};         ///< CPUs to pin the loops to (loop i on cpus[i % size]); empty: no pinning.
  std::chrono::milliseconds connect_timeout{10'000};  ///< TCP connect plus TLS handshake.
  std::chrono::milliseconds request_timeout{0};       ///< Whole request, from sending to the last byte; 0: none.
  std::chrono::milliseconds idle_timeout{0};          ///< Longest silence while a response is due; 0: none.
  std::size_t max_header_bytes = 64 * 1024;           ///< Larger response headers are kMalformed.
  /// Timestamp each read with the kernel's arrival time of its bytes (SO_TIMESTAMPNS, plain TCP
  /// only), so that time spent waiting for a busy event loop is not counted as the server's: many
  /// streams that receive a token at once each get their own arrival time. Off, or over TLS, the
  /// timestamp is taken right after the read returns.
  bool kernel_timestamps = true;
  /// New connections per loop that may be opening at once: connected or not, but not yet
  /// answered. A request that needs a new connection beyond this waits (in order) for one of
  /// them to be answered or to fail. The kernel completes TCP handshakes before the server
  /// accepts, so thousands of connects at once overflow its accept queue (net.core.somaxconn)
  /// and the surplus is dropped, retried seconds later or reset; pacing keeps a 10,000-stream
  /// ramp inside the queue. 0: no limit.
  std::size_t max_opening = 256;
};

/// Counters since construction, summed over loops.
struct ClientStats {
  std::uint64_t connections_opened = 0;  ///< TCP connections opened.
  std::uint64_t requests = 0;            ///< Requests started.
  std::uint64_t reads = 0;               ///< Socket read operations that returned data.
  std::uint64_t bytes_read = 0;          ///< Bytes read (after TLS: plaintext bytes).
  /// How long each read's bytes waited in the socket for their loop: the read's time minus the
  /// kernel's receive timestamp (reads with kernel timestamps only). The timestamps do not suffer
  /// from it, but whatever the loop does next for those bytes (a closed loop's next request) does.
  DelayCounts read_delay{};
  /// Steps of the real-time clock seen while converting kernel timestamps (see RealtimeBridge):
  /// bytes that arrived before a step and were read after it are off by the step.
  std::uint64_t realtime_clock_steps = 0;
  std::uint64_t largest_realtime_clock_step_ns = 0;  ///< The largest of them, over all loops.
};

/// A whole response, for Fetch().
struct FetchResult {
  ClientResult result;  ///< How the request ended.
  ResponseHead head;    ///< Status and header (empty when none arrived).
  std::string body;     ///< The whole body received.
};

/// Sends requests to one server over pooled keep-alive connections. Each loop keeps its own pool;
/// a request takes an idle connection of its loop or opens a new one, so the pool grows to the
/// number of requests in flight and stays there. Idle connections are watched: one the server
/// closes is dropped before it is reused. Thread-safe.
class Client {
 public:
  /// Resolves the host (a failure is reported by every request as kConnect), raises the open-file
  /// limit and starts the loops.
  explicit Client(ClientOptions options);
  /// Ends every request in flight with kCancelled, closes the connections and joins the loops.
  /// Must not be called from a loop thread.
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  /// Starts a request on loop `loop`; without one, on the calling loop when called from a loop
  /// thread, else round robin. The callbacks run on that loop.
  void Send(ClientRequest request, StreamCallbacks callbacks, std::optional<std::size_t> loop = std::nullopt);
  /// Sends a request and waits for the whole response. Must not be called from a loop thread (it
  /// then returns kCancelled at once).
  FetchResult Fetch(ClientRequest request);
  /// Ends every request in flight with kCancelled and message `why` (asynchronously: each ends on
  /// its loop, through its on_complete); the client stays usable. For SIGINT: cut, then report.
  void CancelAll(std::string_view why);
  /// The client's event loops, for timers that belong with its connections.
  EventLoops& loops();
  /// Current counters.
  ClientStats Stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infermark::http
