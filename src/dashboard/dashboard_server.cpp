#include "dashboard/dashboard_server.hpp"

#include <condition_variable>
#include <iostream>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "core/diagnostic.hpp"
#include "dashboard/api.hpp"
#include "dashboard/assets.hpp"
#include "dashboard/pages.hpp"
#include "dashboard/query.hpp"
#include "dashboard/snapshot_source.hpp"
#include "http/server.hpp"

namespace infermark::dashboard {
namespace {

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Equal without an early exit, so a wrong token's timing says nothing about the right one.
bool SameSecret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = static_cast<unsigned char>(diff | (a[i] ^ (i < b.size() ? b[i] : 0)));
  }
  return diff == 0;
}

}  // namespace

bool IsLoopback(const std::string& address) {
  return address == "localhost" || address == "::1" || address == "[::1]" || StartsWith(address, "127.");
}

struct DashboardServer::Impl {
  DashboardOptions options;
  std::unique_ptr<SnapshotSource> source;
  std::unique_ptr<http::Server> server;
  std::thread poller;
  std::mutex poll_mutex;
  std::condition_variable poll_wake;
  bool stopping = false;

  bool Authorized(const http::Request& request) const {
    if (options.token.empty()) return true;
    if (const auto header = request.FindHeader("Authorization")) {
      if (StartsWith(*header, "Bearer ") && SameSecret(header->substr(7), options.token)) return true;
    }
    // `token=T` in the query string (how a browser link carries it), percent-decoded.
    try {
      const std::optional<std::string> token = Query::Parse(request.Query()).Single("token");
      return token && SameSecret(*token, options.token);
    } catch (const QueryError&) {
      return false;  // a malformed query string carries no token
    }
  }

  void Handle(http::Request& request, http::Responder responder) {
    const std::string_view path = request.Path();
    http::Response response;
    response.headers.push_back({"Cache-Control", "no-store"});
    if (request.method != "GET") {
      const ApiReply r = ErrorReply(405, "", "the dashboard is read-only: GET only");
      response.status = r.status;
      response.body = r.body;
    } else if (path == "/health") {
      response.content_type = "text/plain; charset=utf-8";
      response.body = "ok";
    } else if (path == "/" || path == "/index.html") {
      const Asset page = IndexPage();
      response.content_type = std::string(page.content_type);
      response.body = std::string(page.body);
    } else if (const std::optional<Asset> page = PageAsset(path)) {
      // A point's page, the reliability view and an attempt's page: the page reads its id from the address.
      response.content_type = std::string(page->content_type);
      response.body = std::string(page->body);
    } else if (path == "/api/openapi.json") {
      // The API's description holds no data: like the page, it needs no token.
      const ApiReply r = OpenApiReply();
      response.status = r.status;
      response.content_type = r.content_type;
      response.body = r.body;
    } else if (StartsWith(path, "/assets/")) {
      if (const std::optional<Asset> asset = FindAsset(path.substr(8))) {
        response.content_type = std::string(asset->content_type);
        response.body = std::string(asset->body);
      } else {
        const ApiReply r = ErrorReply(404, "", "no asset " + std::string(path));
        response.status = r.status;
        response.body = r.body;
      }
    } else if (StartsWith(path, "/api/")) {
      ApiReply r;
      if (!Authorized(request)) {
        r = ErrorReply(401, "token", "a token is required: Authorization: Bearer TOKEN, or token=TOKEN");
        response.headers.push_back({"WWW-Authenticate", "Bearer"});
      } else {
        r = HandleApi(*source->Current(), source->Sources(), path, request.Query());
      }
      response.status = r.status;
      response.content_type = r.content_type;
      response.body = std::move(r.body);
    } else {
      const ApiReply r = ErrorReply(404, "", "no route " + std::string(path));
      response.status = r.status;
      response.body = r.body;
    }
    responder.Respond(response);
  }

  void Poll() {
    std::unique_lock<std::mutex> lock(poll_mutex);
    while (!poll_wake.wait_for(lock, options.poll, [this] { return stopping; })) {
      lock.unlock();
      try {
        source->ReloadIfChanged();
      } catch (const std::exception& e) {
        std::cerr << "infermark dashboard: reload failed: " << e.what() << '\n';
      }
      lock.lock();
    }
  }
};

DashboardServer::DashboardServer(DashboardOptions options) : impl_(std::make_unique<Impl>()) {
  if (!IsLoopback(options.bind) && options.token.empty()) {
    throw InputError(
        Diagnostic{{}, "", "--bind", "binding " + options.bind + " reaches beyond this host: give --token TOKEN too"});
  }
  impl_->options = std::move(options);
  impl_->source = std::make_unique<SnapshotSource>(impl_->options.db, impl_->options.price_dir);
}

DashboardServer::~DashboardServer() {
  Stop();
}

void DashboardServer::Start() {
  http::ServerOptions server_options;
  server_options.address = impl_->options.bind;
  server_options.port = impl_->options.port;
  server_options.threads = 2;
  impl_->server = std::make_unique<http::Server>(server_options);
  Impl* impl = impl_.get();
  impl_->server->SetFallback(
      [impl](http::Request& request, http::Responder responder) { impl->Handle(request, std::move(responder)); });
  impl_->server->Start();
  impl_->poller = std::thread([impl] { impl->Poll(); });
}

void DashboardServer::Stop() {
  {
    const std::lock_guard<std::mutex> lock(impl_->poll_mutex);
    impl_->stopping = true;
  }
  impl_->poll_wake.notify_all();
  if (impl_->poller.joinable()) impl_->poller.join();
  if (impl_->server) impl_->server->Stop();
}

std::uint16_t DashboardServer::port() const {
  return impl_->server ? impl_->server->port() : 0;
}

std::string DashboardServer::Url() const {
  const std::string& bind = impl_->options.bind;
  const std::string host = bind.find(':') != std::string::npos && bind.front() != '[' ? "[" + bind + "]" : bind;
  return "http://" + host + ":" + std::to_string(port()) + "/";
}

std::shared_ptr<const Snapshot> DashboardServer::snapshot() const {
  return impl_->source->Current();
}

bool DashboardServer::ReloadIfChanged() {
  return impl_->source->ReloadIfChanged();
}

}  // namespace infermark::dashboard
