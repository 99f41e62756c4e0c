#include "http/client.hpp"

#include <algorithm>
#include <future>

#include "core/clock.hpp"
#include "http/detail/asio.hpp"
#include "http/detail/client_connection.hpp"
#include "http/detail/client_shared.hpp"
#include "http/detail/event_loops_access.hpp"
#include "http/fd_limit.hpp"

namespace infermark::http {

struct Client::Impl {
  explicit Impl(ClientOptions options) : loops(std::max<std::size_t>(options.threads, 1), options.cpus, "http-client") {
    shared.options = std::move(options);
    const ClientOptions& o = shared.options;
    const bool default_port = o.port == (o.tls ? 443 : 80);
    const bool ipv6 = o.host.find(':') != std::string::npos;
    shared.host_header = (ipv6 ? "[" + o.host + "]" : o.host) + (default_port ? "" : ":" + std::to_string(o.port));
    shared.server_name = o.tls_options.server_name.empty() ? o.host : o.tls_options.server_name;
    detail::asio::io_context& context = detail::EventLoopsAccess::Context(loops, 0);
    detail::ErrorCode ec;
    detail::Tcp::resolver resolver(context);
    const auto results = resolver.resolve(o.host, std::to_string(o.port), detail::Tcp::resolver::numeric_service, ec);
    if (ec || results.empty()) {
      shared.resolve_error = "cannot resolve " + o.host + ": " + (ec ? ec.message() : "no address");
    } else {
      for (const auto& r : results) shared.endpoints.push_back(r.endpoint());
    }
    if (o.tls) shared.tls = detail::MakeTlsClientContext(o.tls_options);
    for (std::size_t i = 0; i < loops.size(); ++i) {
      shared.loops.push_back(std::make_unique<detail::ClientLoop>(detail::EventLoopsAccess::Context(loops, i), i));
      shared.loops.back()->open_kick = [this, i] { StartAwaiting(i); };
    }
  }

  // Loop thread: ends a request that never started with kCancelled.
  static void Refuse(detail::ClientLoop& loop, StreamCallbacks callbacks, std::string message) {
    ClientResult result;
    result.error = ErrorKind::kCancelled;
    result.message = std::move(message);
    result.done_ns = MonotonicNs();
    detail::DeliverCompletion(loop, std::move(callbacks), std::move(result));
  }

  // Loop thread: whether a request may open one more connection now.
  bool MayOpen(const detail::ClientLoop& loop) const {
    return shared.options.max_opening == 0 || loop.opening < shared.options.max_opening;
  }

  // Loop thread: starts waiting requests, oldest first, while a pooled connection or an opening
  // slot is free.
  void StartAwaiting(std::size_t index) {
    detail::ClientLoop& loop = *shared.loops[index];
    loop.open_kick_posted = false;
    while (!loop.awaiting_open.empty() &&
           ((!loop.idle.empty() && !loop.awaiting_open.front().first.new_connection) || MayOpen(loop))) {
      auto [request, callbacks] = std::move(loop.awaiting_open.front());
      loop.awaiting_open.pop_front();
      Start(index, std::move(request), std::move(callbacks), true);
    }
  }

  // Loop thread: ends every waiting request with kCancelled.
  static void CancelAwaiting(detail::ClientLoop& loop, const std::string& why) {
    auto awaiting = std::move(loop.awaiting_open);
    loop.awaiting_open.clear();
    for (auto& [request, callbacks] : awaiting) Refuse(loop, std::move(callbacks), why);
  }

  // Loop thread. A request that needs a new connection while others wait for an opening slot
  // queues behind them, unless it comes from that queue.
  void Start(std::size_t index, ClientRequest request, StreamCallbacks callbacks, bool from_queue = false) {
    detail::ClientLoop& loop = *shared.loops[index];
    if (loop.stopping) {
      Refuse(loop, std::move(callbacks), "the client is stopping");
      return;
    }
    std::shared_ptr<detail::ClientConnection> connection;
    if (!loop.idle.empty() && !request.new_connection) {
      connection = loop.idle.back();  // the most recently used one: its buffers are warm
    } else if (!MayOpen(loop) || (!from_queue && !loop.awaiting_open.empty())) {
      loop.awaiting_open.emplace_back(std::move(request), std::move(callbacks));
      return;
    } else {
      connection =
          shared.tls ? detail::MakeTlsClientConnection(shared, loop) : detail::MakePlainClientConnection(shared, loop);
    }
    connection->Begin(std::move(request), std::move(callbacks));
  }

  // Declared first: destroyed last, after everything that refers to its io_contexts.
  EventLoops loops;
  detail::ClientShared shared;
};

Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  RaiseFileLimit();
}

Client::~Client() {
  Impl& impl = *impl_;
  std::vector<std::future<void>> done;
  for (std::size_t i = 0; i < impl.loops.size(); ++i) {
    auto finished = std::make_shared<std::promise<void>>();
    done.push_back(finished->get_future());
    impl.loops.Post(i, [&impl, i, finished] {
      detail::ClientLoop& loop = *impl.shared.loops[i];
      loop.stopping = true;
      Impl::CancelAwaiting(loop, "the client stopped");
      const auto live = loop.live;
      for (const auto& connection : live) connection->Cancel("the client stopped");
      finished->set_value();
    });
  }
  for (auto& d : done) d.wait();
  impl.loops.Stop();
  for (auto& loop : impl.shared.loops) {
    loop->idle.clear();
    loop->live.clear();
  }
}

void Client::Send(ClientRequest request, StreamCallbacks callbacks, std::optional<std::size_t> loop) {
  Impl& impl = *impl_;
  const auto current = impl.loops.CurrentLoop();
  const std::size_t index = loop ? *loop % impl.loops.size() : current ? *current : impl.loops.NextLoop();
  if (current == index) {
    impl.Start(index, std::move(request), std::move(callbacks));
    return;
  }
  detail::asio::post(detail::EventLoopsAccess::Context(impl.loops, index),
                     [&impl, index, request = std::move(request), callbacks = std::move(callbacks)]() mutable {
                       impl.Start(index, std::move(request), std::move(callbacks));
                     });
}

FetchResult Client::Fetch(ClientRequest request) {
  if (impl_->loops.CurrentLoop()) {
    FetchResult refused;
    refused.result.error = ErrorKind::kCancelled;
    refused.result.message = "Fetch called on an event-loop thread (it would wait on itself)";
    return refused;
  }
  struct State {
    std::promise<void> done;
    FetchResult fetched;
  };
  auto state = std::make_shared<State>();
  StreamCallbacks callbacks;
  callbacks.on_head = [state](const ResponseHead& head) { state->fetched.head = head; };
  callbacks.on_body = [state](std::string_view data, std::int64_t) { state->fetched.body.append(data); };
  callbacks.on_complete = [state](const ClientResult& result) {
    state->fetched.result = result;
    state->done.set_value();
  };
  Send(std::move(request), std::move(callbacks));
  state->done.get_future().wait();
  return std::move(state->fetched);
}

void Client::CancelAll(std::string_view why) {
  Impl& impl = *impl_;
  for (std::size_t i = 0; i < impl.loops.size(); ++i) {
    impl.loops.Post(i, [&impl, i, reason = std::string(why)] {
      Impl::CancelAwaiting(*impl.shared.loops[i], reason);
      const auto live = impl.shared.loops[i]->live;
      for (const auto& connection : live) {
        if (!connection->Idle()) connection->Cancel(reason);
      }
    });
  }
}

EventLoops& Client::loops() {
  return impl_->loops;
}

ClientStats Client::Stats() const {
  ClientStats stats;
  for (const auto& loop : impl_->shared.loops) {
    const auto& c = loop->counters;
    stats.connections_opened += c.connections_opened.load(std::memory_order_relaxed);
    stats.requests += c.requests.load(std::memory_order_relaxed);
    stats.reads += c.reads.load(std::memory_order_relaxed);
    stats.bytes_read += c.bytes_read.load(std::memory_order_relaxed);
    for (std::size_t b = 0; b < kDelayBuckets; ++b)
      stats.read_delay[b] += c.read_delay[b].load(std::memory_order_relaxed);
    stats.realtime_clock_steps += c.clock_steps.load(std::memory_order_relaxed);
    stats.largest_realtime_clock_step_ns =
        std::max(stats.largest_realtime_clock_step_ns, c.largest_clock_step_ns.load(std::memory_order_relaxed));
  }
  return stats;
}

}  // namespace infermark::http
