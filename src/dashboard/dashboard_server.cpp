#include "dashboard/dashboard_server.hpp"

#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/sha256.hpp"
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

// An embedded file's entity tag: a hash of its bytes, so a browser keeps its copy (and the code
// compiled from it) until the binary's files change. Embedded bodies live as long as the process.
const std::string& EntityTag(std::string_view body) {
  static std::mutex mutex;
  static std::map<std::pair<const char*, std::size_t>, std::string> tags;
  const std::lock_guard<std::mutex> lock(mutex);
  std::string& tag = tags[{body.data(), body.size()}];
  if (tag.empty()) tag = "\"" + Sha256Hex(body).substr(0, 32) + "\"";
  return tag;
}

// Whether an If-None-Match field (`*`, or a list of tags, weak or strong) names `tag`.
bool NamesTag(std::string_view field, std::string_view tag) {
  while (!field.empty()) {
    const std::size_t comma = field.find(',');
    std::string_view item = field.substr(0, comma);
    field = comma == std::string_view::npos ? std::string_view() : field.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (StartsWith(item, "W/")) item.remove_prefix(2);
    if (item == "*" || item == tag) return true;
  }
  return false;
}

// An embedded file (page or asset): cached by the browser and revalidated by its tag (304 when
// the browser holds these bytes). The API's replies stay `no-store`.
void ServeFile(const http::Request& request, const Asset& file, http::Response& response) {
  const std::string& tag = EntityTag(file.body);
  response.headers = {{"Cache-Control", "no-cache"}, {"ETag", tag}};
  if (const auto known = request.FindHeader("If-None-Match"); known && NamesTag(*known, tag)) {
    response.status = 304;
    response.content_type.clear();
    return;
  }
  response.content_type = std::string(file.content_type);
  response.body = std::string(file.body);
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
      ServeFile(request, IndexPage(), response);
    } else if (const std::optional<Asset> page = PageAsset(path)) {
      // A point's page, the reliability view and an attempt's page: the page reads its id from the address.
      ServeFile(request, *page, response);
    } else if (path == "/api/openapi.json") {
      // The API's description holds no data: like the page, it needs no token.
      const ApiReply r = OpenApiReply();
      response.status = r.status;
      response.content_type = r.content_type;
      response.body = r.body;
    } else if (StartsWith(path, "/assets/")) {
      if (const std::optional<Asset> asset = FindAsset(path.substr(8))) {
        ServeFile(request, *asset, response);
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
