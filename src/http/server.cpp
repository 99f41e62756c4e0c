#include "http/server.hpp"

#include <future>
#include <optional>
#include <stdexcept>

#include "http/detail/asio.hpp"
#include "http/detail/event_loops_access.hpp"
#include "http/detail/server_connection.hpp"
#include "http/detail/server_shared.hpp"
#include "http/fd_limit.hpp"

namespace infermark::http {

namespace detail {

const Handler& ServerShared::Find(std::string_view method, std::string_view path) const {
  bool path_known = false;
  for (const auto& route : routes) {
    if (route.path != path) continue;
    if (route.method == method) return route.handler;
    path_known = true;
  }
  if (fallback) return fallback;
  return path_known ? method_not_allowed : not_found;
}

}  // namespace detail

struct Server::Impl {
  explicit Impl(ServerOptions options) : loops(std::max<std::size_t>(options.threads, 1), options.cpus, "http-server") {
    shared.options = std::move(options);
    for (std::size_t i = 0; i < loops.size(); ++i) {
      shared.loops.push_back(std::make_unique<detail::ServerLoop>(detail::EventLoopsAccess::Context(loops, i), i,
                                                                  shared.options.flush_interval));
    }
    shared.not_found = [](Request&, Responder responder) {
      responder.Respond(404, "application/json", R"({"error":{"message":"Not Found","code":404}})");
    };
    shared.method_not_allowed = [](Request&, Responder responder) {
      responder.Respond(405, "application/json", R"({"error":{"message":"Method Not Allowed","code":405}})");
    };
  }

  void Accept() {
    detail::ServerLoop& loop = *shared.loops[loops.NextLoop()];
    acceptor->async_accept(loop.context, [this, &loop](const detail::ErrorCode& ec, detail::Tcp::socket socket) {
      if (!acceptor || !acceptor->is_open() || ec == detail::asio::error::operation_aborted) return;
      if (ec) {
        // Out of descriptors (EMFILE) or a connection aborted before accept: pause briefly rather
        // than spin on an error that repeats at once.
        retry_timer->expires_after(std::chrono::milliseconds(20));
        retry_timer->async_wait([this](const detail::ErrorCode& wait_ec) {
          if (!wait_ec) Accept();
        });
        return;
      }
      detail::ErrorCode peer_ec;
      const auto peer = socket.remote_endpoint(peer_ec);
      const bool local = !peer_ec && peer.address().is_loopback();
      auto connection = tls ? detail::MakeTlsServerConnection(shared, loop, std::move(socket), *tls)
                            : detail::MakePlainServerConnection(shared, loop, std::move(socket));
      connection->SetLocalPeer(local);
      detail::asio::post(loop.context, [connection] { connection->Start(); });
      Accept();
    });
  }

  // Declared first: destroyed last, after everything that refers to its io_contexts.
  EventLoops loops;
  detail::ServerShared shared;
  std::shared_ptr<detail::TlsServerContext> tls;
  std::optional<detail::Tcp::acceptor> acceptor;
  std::optional<detail::asio::steady_timer> retry_timer;
  std::uint16_t port = 0;
  bool started = false;
  bool stopped = false;
};

Server::Server(ServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  RaiseFileLimit();
}

Server::~Server() {
  Stop();
}

void Server::Route(std::string_view method, std::string_view path, Handler handler) {
  impl_->shared.routes.push_back({std::string(method), std::string(path), std::move(handler)});
}

void Server::SetFallback(Handler handler) {
  impl_->shared.fallback = std::move(handler);
}

void Server::Start() {
  Impl& impl = *impl_;
  if (impl.started) return;
  const ServerOptions& options = impl.shared.options;
  if (options.tls) impl.tls = detail::MakeTlsServerContext(*options.tls);
  const std::string where = options.address + ":" + std::to_string(options.port);
  detail::ErrorCode ec;
  detail::asio::io_context& context = detail::EventLoopsAccess::Context(impl.loops, 0);
  detail::Tcp::resolver resolver(context);
  const auto endpoints = resolver.resolve(options.address, std::to_string(options.port),
                                          detail::Tcp::resolver::passive | detail::Tcp::resolver::numeric_service, ec);
  if (ec || endpoints.empty()) throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
  const detail::Tcp::endpoint endpoint = endpoints.begin()->endpoint();
  detail::Tcp::acceptor acceptor(context);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(detail::Tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(options.backlog, ec);
  if (ec) throw std::runtime_error("cannot listen on " + where + ": " + ec.message());
  impl.port = acceptor.local_endpoint().port();
  impl.acceptor.emplace(std::move(acceptor));
  impl.retry_timer.emplace(context);
  impl.started = true;
  detail::asio::post(context, [&impl] { impl.Accept(); });
}

void Server::Stop() {
  Impl& impl = *impl_;
  if (impl.stopped) return;
  impl.stopped = true;
  if (impl.started) {
    // First the listener, so no connection arrives after its loop was cleared; then every
    // connection, each on its own thread (streams see OnClose); then the loops stop.
    auto run_everywhere = [&impl](std::size_t first, std::size_t last, auto task) {
      std::vector<std::future<void>> done;
      for (std::size_t i = first; i < last; ++i) {
        auto finished = std::make_shared<std::promise<void>>();
        done.push_back(finished->get_future());
        impl.loops.Post(i, [i, finished, task] {
          task(i);
          finished->set_value();
        });
      }
      for (auto& d : done) d.wait();
    };
    run_everywhere(0, 1, [&impl](std::size_t) {
      detail::ErrorCode ignored;
      impl.acceptor->close(ignored);
      impl.retry_timer->cancel();
    });
    run_everywhere(0, impl.loops.size(), [&impl](std::size_t i) {
      const auto live = impl.shared.loops[i]->live;
      for (const auto& connection : live) connection->Close();
    });
  }
  impl.loops.Stop();
  // Objects bound to the io_contexts go before the contexts do.
  for (auto& loop : impl.shared.loops) {
    loop->flush_queue.Clear();
    loop->live.clear();
  }
  impl.acceptor.reset();
  impl.retry_timer.reset();
}

std::uint16_t Server::port() const {
  return impl_->port;
}

EventLoops& Server::loops() {
  return impl_->loops;
}

void Server::HoldOutput() {
  for (auto& loop : impl_->shared.loops) loop->flush_queue.Hold();
}

void Server::ReleaseOutput() {
  for (auto& loop : impl_->shared.loops) loop->flush_queue.Release();
}

ServerStats Server::Stats() const {
  ServerStats stats;
  for (const auto& loop : impl_->shared.loops) {
    const auto& c = loop->counters;
    stats.connections_accepted += c.accepted.load(std::memory_order_relaxed);
    stats.connections_open += c.open.load(std::memory_order_relaxed);
    stats.requests += c.requests.load(std::memory_order_relaxed);
    stats.writes += c.writes.load(std::memory_order_relaxed);
    stats.bytes_written += c.bytes_written.load(std::memory_order_relaxed);
    stats.bytes_read += c.bytes_read.load(std::memory_order_relaxed);
  }
  return stats;
}

}  // namespace infermark::http
