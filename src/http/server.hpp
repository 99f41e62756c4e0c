// HTTP/1.1 server: keep-alive, chunked streaming responses (SSE), optional TLS, N event loops.
// Handlers are registered per (method, path) and get plain Request values; Asio and Beast stay
// inside this module.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/event_loops.hpp"
#include "http/request.hpp"
#include "http/responder.hpp"
#include "http/tls_options.hpp"

namespace infermark::http {

/// Called on the connection's loop thread for each complete request. It answers through the
/// responder now or later (from any thread). It should not block: the loop serves many
/// connections. An exception escaping it is answered with 500.
using Handler = std::function<void(Request& request, Responder responder)>;

/// Server settings.
struct ServerOptions {
  std::string address = "127.0.0.1";      ///< Address or host name to listen on ("0.0.0.0", "::").
  std::uint16_t port = 0;                 ///< Port; 0 picks a free one (see Server::port()).
  std::size_t threads = 1;                ///< Event-loop threads; connections are spread round robin.
  std::vector<int> cpus{};                ///< CPUs to pin the loops to (loop i on cpus[i % size]); empty: no pinning.
  int backlog = 65535;                    ///< listen() backlog; the kernel caps it at net.core.somaxconn.
  std::optional<TlsServerOptions> tls{};  ///< Serve HTTPS when set.
  std::size_t max_header_bytes = 64 * 1024;               ///< Larger request headers get 431.
  std::size_t max_body_bytes = 64 * 1024 * 1024;          ///< Larger request bodies get 413.
  std::chrono::milliseconds keep_alive_timeout{120'000};  ///< Idle connection between requests is closed after this.
  std::chrono::milliseconds request_timeout{60'000};   ///< A request (or TLS handshake) must arrive whole within this.
  std::size_t high_water_bytes = 1024 * 1024;          ///< Buffered output above this makes Send report kBackPressure.
  std::size_t max_buffered_bytes = 256 * 1024 * 1024;  ///< Buffered output above this closes the connection.
  /// 0: output is written as soon as the loop gets to it. Otherwise output waits up to this long,
  /// so that the events of many producer turns share one write per connection: far fewer system
  /// calls when tokens come faster than they need to (max-speed mode), at up to this much latency.
  std::chrono::microseconds flush_interval{0};
};

/// Counters since Start(), summed over loops.
struct ServerStats {
  std::uint64_t connections_accepted = 0;  ///< Connections accepted.
  std::uint64_t connections_open = 0;      ///< Connections open now.
  std::uint64_t requests = 0;              ///< Requests handed to handlers (or answered with an error).
  std::uint64_t writes = 0;                ///< Socket write operations (each one or more syscalls).
  std::uint64_t bytes_written = 0;         ///< Bytes written to sockets (after TLS: plaintext bytes).
  std::uint64_t bytes_read = 0;            ///< Bytes read from sockets.
};

/// An HTTP/1.1 server. Register routes, Start(), and Stop() (or destroy) from a non-loop thread.
class Server {
 public:
  /// Raises the open-file limit and starts the event-loop threads (idle until Start()).
  explicit Server(ServerOptions options);
  /// Stops the server if it runs.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Routes requests whose method equals `method` and whose path (target before '?') equals
  /// `path`. Call before Start().
  void Route(std::string_view method, std::string_view path, Handler handler);
  /// Handles requests no route matches (default: 404, or 405 when the path has other methods).
  void SetFallback(Handler handler);
  /// Binds and listens. Throws std::runtime_error when it cannot (address in use, bad TLS files):
  /// a fault that ends the run, reported with the address and the system's reason.
  void Start();
  /// Closes the listener and every connection (open streams see OnClose), then joins the loops.
  /// Idempotent; must not be called from a loop thread.
  void Stop();
  /// The port listened on (the chosen one when options.port was 0); 0 before Start().
  std::uint16_t port() const;
  /// The event loops the connections run on, for timers and tasks that belong with them.
  EventLoops& loops();
  /// Output written through responders from now on waits, on every loop, until ReleaseOutput
  /// (calls nest; any thread): a producer that feeds many streams in one turn (an engine's pass)
  /// wakes each loop once for all of them instead of racing the loop stream by stream. Output a
  /// connection had buffered before the hold but not yet taken waits with it.
  void HoldOutput();
  /// Ends a HoldOutput; the last one wakes the loops that have output waiting.
  void ReleaseOutput();
  /// Current counters.
  ServerStats Stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infermark::http
