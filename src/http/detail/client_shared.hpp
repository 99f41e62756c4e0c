// Private: state shared by the client and its connections: settings, resolved endpoints, per-loop
// pools.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "http/client.hpp"
#include "http/delay_histogram.hpp"
#include "http/detail/asio.hpp"
#include "http/detail/counter.hpp"
#include "http/detail/read_reactor.hpp"
#include "http/realtime_bridge.hpp"

namespace infermark::http::detail {

class ClientConnection;
struct TlsClientContext;

/// Counters of one loop; written by its thread only.
struct ClientCounters {
  std::atomic<std::uint64_t> connections_opened{0};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> reads{0};
  std::atomic<std::uint64_t> bytes_read{0};
  std::array<std::atomic<std::uint64_t>, kDelayBuckets> read_delay{};  ///< See ClientStats::read_delay.
  std::atomic<std::uint64_t> clock_steps{0};                           ///< See ClientStats::realtime_clock_steps.
  std::atomic<std::uint64_t> largest_clock_step_ns{0};  ///< See ClientStats::largest_realtime_clock_step_ns.
};

/// Per-loop client state; touched only by the loop's thread.
struct ClientLoop {
  ClientLoop(asio::io_context& loop_context, std::size_t loop_index)
      : context(loop_context), index(loop_index), reads(std::make_shared<ReadReactor>(loop_context)) {}
  asio::io_context& context;                            ///< The loop's io_context.
  std::size_t index;                                    ///< The loop's index.
  std::vector<std::shared_ptr<ClientConnection>> idle;  ///< Kept-alive connections, most recent last.
  std::vector<std::shared_ptr<ClientConnection>> live;  ///< Every open connection.
  /// Completions waiting to be delivered by the trampoline in DeliverCompletion.
  std::deque<std::pair<StreamCallbacks, ClientResult>> completions;
  bool delivering = false;  ///< The trampoline runs.
  /// Requests waiting for an opening slot (ClientOptions::max_opening), oldest first.
  std::deque<std::pair<ClientRequest, StreamCallbacks>> awaiting_open;
  std::size_t opening = 0;             ///< New connections not yet answered.
  bool open_kick_posted = false;       ///< `open_kick` is queued on the loop.
  std::function<void()> open_kick;     ///< Starts awaiting requests while slots are free (set by the client).
  bool stopping = false;               ///< The client is being destroyed: new requests are cancelled.
  ClientCounters counters;             ///< This loop's counters.
  RealtimeBridge clock;                ///< Moves this loop's kernel timestamps onto the monotonic clock.
  std::shared_ptr<ReadReactor> reads;  ///< Epoll set of the plain connections' timestamped reads.
};

/// Settings and loops of one client.
struct ClientShared {
  ClientOptions options;                           ///< Settings as given.
  std::vector<Tcp::endpoint> endpoints;            ///< The server's addresses.
  std::string resolve_error;                       ///< Why resolution failed (endpoints empty).
  std::string host_header;                         ///< Value of the Host field.
  std::string server_name;                         ///< Name for SNI and verification.
  std::shared_ptr<TlsClientContext> tls;           ///< OpenSSL context when options.tls.
  std::vector<std::unique_ptr<ClientLoop>> loops;  ///< One per event loop.
};

/// Calls `callbacks.on_complete(result)` on the loop without recursion: a completion that starts
/// a request which completes at once (client stopping, no address) is queued and delivered by
/// the outermost call, so a resend-on-completion loop cannot grow the stack.
void DeliverCompletion(ClientLoop& loop, StreamCallbacks callbacks, ClientResult result);

}  // namespace infermark::http::detail
