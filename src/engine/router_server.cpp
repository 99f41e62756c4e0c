#include "engine/router_server.hpp"

#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "engine/api_error.hpp"
#include "engine/route_policy.hpp"
#include "engine/serve_metrics.hpp"
#include "http/client.hpp"
#include "http/server.hpp"
#include "http/url.hpp"

namespace infermark::engine {
namespace {

using nlohmann::json;

InputError FlagError(const std::string& flag, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

std::string GatewayError(const std::string& message) {
  return ErrorBody(ApiError{502, message, "server_error", "", "worker_failed"});
}

}  // namespace

struct RouterServer::Impl {
  struct Worker {
    std::string url;   // as given
    std::string role;  // "prefill" or "decode"
    std::string base;  // path prefix of the URL ("" for none)
    std::unique_ptr<http::Client> client;
    int in_flight = 0;
    std::uint64_t requests = 0;
    std::uint64_t errors = 0;
  };
  // One request on its way through both roles.
  struct Exchange {
    http::Responder responder;
    std::string body;    // the client's request as sent
    std::string target;  // /v1/completions or /v1/chat/completions
    bool stream = false;
    std::int64_t received_ns = 0;
    std::int64_t prefill_done_ns = 0;
    std::int64_t overhead_ns = 0;  // router time before the prefill send
    Worker* prefill = nullptr;
    Worker* decode = nullptr;
    std::string prefill_answer;
    int decode_status = 0;
    std::string decode_type = "application/json";
    std::string decode_answer;
    http::StreamWriter writer;
    bool streaming = false;
  };

  RouterOptions options;
  RoutePolicy policy = RoutePolicy::kRoundRobin;
  std::mutex mu;  // guards what follows up to the workers
  std::optional<WorkerPicker> prefill_picker;
  std::optional<WorkerPicker> decode_picker;
  std::uint64_t queue = 0;  // requests received and not yet answered
  Histogram prefill_seconds{{0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40}};
  Histogram transfer_seconds{{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5}};
  Histogram overhead_seconds{{1e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1}};
  std::vector<std::unique_ptr<Worker>> prefill;
  std::vector<std::unique_ptr<Worker>> decode;
  std::unique_ptr<http::Server> server;  // last: stopped first, before the clients its handlers use
  bool stopped = false;

  // The listener first, then the prefill clients (a prefill answer arriving meanwhile still finds
  // its decode worker), then the decode clients; each client ends its requests as it goes.
  ~Impl() {
    server.reset();
    prefill.clear();
    decode.clear();
  }

  void AddWorkers(const std::vector<std::string>& urls, const char* role, const char* flag,
                  std::vector<std::unique_ptr<Worker>>& pool);
  static std::vector<int> Loads(const std::vector<std::unique_ptr<Worker>>& pool);
  void Forward(http::Request& request, http::Responder responder, const char* target);
  void OnPrefilled(const std::shared_ptr<Exchange>& x, const http::ClientResult& result);
  void OnDecoded(const std::shared_ptr<Exchange>& x, const http::ClientResult& result);
  void Answer(const std::shared_ptr<Exchange>& x, int status, const std::string& content_type, const std::string& body);
  // A GET of `path` from worker `w`, given up after the health timeout.
  http::ClientRequest WorkerGet(const Worker& w, const std::string& path) const;
  void Health(http::Responder responder);
  void Models(http::Responder responder);
  std::string Metrics();
};

void RouterServer::Impl::AddWorkers(const std::vector<std::string>& urls, const char* role, const char* flag,
                                    std::vector<std::unique_ptr<Worker>>& pool) {
  if (urls.empty()) throw FlagError(flag, "the router needs at least one " + std::string(role) + " worker URL");
  for (const std::string& text : urls) {
    std::string error;
    const auto url = http::ParseUrl(text, &error);
    if (!url) throw FlagError(flag, "'" + text + "' is not a worker URL (http://host:port): " + error);
    auto w = std::make_unique<Worker>();
    w->url = text;
    w->role = role;
    w->base = url->target == "/" ? "" : url->target;
    while (!w->base.empty() && w->base.back() == '/') w->base.pop_back();
    http::ClientOptions co;
    co.host = url->host;
    co.port = url->port;
    co.tls = url->tls;
    co.kernel_timestamps = false;
    co.connect_timeout = std::chrono::milliseconds(5000);
    w->client = std::make_unique<http::Client>(co);
    pool.push_back(std::move(w));
  }
}

std::vector<int> RouterServer::Impl::Loads(const std::vector<std::unique_ptr<Worker>>& pool) {
  std::vector<int> loads;
  loads.reserve(pool.size());
  for (const auto& w : pool) loads.push_back(w->in_flight);
  return loads;
}

void RouterServer::Impl::Answer(const std::shared_ptr<Exchange>& x, int status, const std::string& content_type,
                                const std::string& body) {
  {
    const std::lock_guard lock(mu);
    --queue;
  }
  x->responder.Respond(status, content_type, body);
}

void RouterServer::Impl::Forward(http::Request& request, http::Responder responder, const char* target) {
  auto x = std::make_shared<Exchange>();
  x->received_ns = request.received_ns;
  x->target = target;
  const json body = json::parse(request.body, nullptr, false);
  if (!body.is_object()) {
    responder.Respond(
        400, "application/json",
        ErrorBody(ApiError{400, "the request body is not a JSON object", "invalid_request_error", "", ""}));
    return;
  }
  x->responder = std::move(responder);
  const auto stream = body.find("stream");
  x->stream = stream != body.end() && stream->is_boolean() && stream->get<bool>();
  std::vector<std::uint64_t> blocks;
  if (policy == RoutePolicy::kKvAware) {
    const bool chat = x->target == "/v1/chat/completions";
    const auto prompt = body.find(chat ? "messages" : "prompt");
    if (prompt != body.end())
      blocks = PromptBlocks(prompt->is_string() ? prompt->get_ref<const std::string&>() : prompt->dump());
  }
  // The prefill worker computes the prompt and samples one token; its answer says where the KV is.
  json ask = body;
  ask["max_tokens"] = 1;
  if (ask.contains("max_completion_tokens")) ask["max_completion_tokens"] = 1;
  ask["stream"] = false;
  ask.erase("stream_options");
  ask.erase("min_tokens");
  ask["kv_transfer_params"] = {{"do_remote_decode", true}, {"do_remote_prefill", false}};
  {
    const std::lock_guard lock(mu);
    x->prefill = prefill[prefill_picker->Pick(Loads(prefill), blocks)].get();
    ++x->prefill->in_flight;
    ++x->prefill->requests;
    ++queue;
  }
  http::ClientRequest r;
  r.target = x->prefill->base + x->target;
  r.body = ask.dump();
  // The decode worker gets the client's bytes with the prefill's kv_transfer_params spliced in
  // (no second rendering of a long prompt), unless the client sent that field itself.
  if (body.contains("kv_transfer_params")) {
    json original = body;
    original.erase("kv_transfer_params");
    x->body = original.dump();
  } else {
    x->body = std::move(request.body);
  }
  http::StreamCallbacks cb;
  cb.on_body = [x](std::string_view data, std::int64_t) { x->prefill_answer.append(data); };
  cb.on_complete = [this, x](const http::ClientResult& result) { OnPrefilled(x, result); };
  x->overhead_ns = MonotonicNs() - x->received_ns;
  x->prefill->client->Send(std::move(r), std::move(cb));
}

void RouterServer::Impl::OnPrefilled(const std::shared_ptr<Exchange>& x, const http::ClientResult& result) {
  const std::int64_t now = MonotonicNs();
  x->prefill_done_ns = now;
  Worker& p = *x->prefill;
  {
    const std::lock_guard lock(mu);
    --p.in_flight;
    if (!result.ok()) ++p.errors;
  }
  if (!result.ok())
    return Answer(x, 502, "application/json", GatewayError("prefill worker " + p.url + " failed: " + result.message));
  // The worker's own refusal (a prompt too long, an unknown model) is the client's answer.
  if (result.status != 200) return Answer(x, result.status, "application/json", x->prefill_answer);
  const json answer = json::parse(x->prefill_answer, nullptr, false);
  const auto kv = answer.is_object() ? answer.find("kv_transfer_params") : answer.end();
  if (kv == answer.end() || !kv->is_object() || !kv->contains("transfer_s")) {
    {
      const std::lock_guard lock(mu);
      ++p.errors;
    }
    return Answer(
        x, 502, "application/json",
        GatewayError("prefill worker " + p.url +
                     " answered without kv_transfer_params.transfer_s (is it `engine serve --role prefill`?)"));
  }
  const double transfer = kv->value("transfer_s", 0.0);
  const double scale = kv->value("time_scale", 1.0);
  std::string ask = std::move(x->body);
  const std::size_t close = ask.find_last_of('}');
  const bool empty = ask.find_first_not_of(" \t\r\n", ask.find('{') + 1) == close;
  ask.replace(close, std::string::npos,
              (empty ? "\"kv_transfer_params\":" : ",\"kv_transfer_params\":") + kv->dump() + "}");
  {
    const std::lock_guard lock(mu);
    prefill_seconds.Observe(double(now - result.sent_ns) * 1e-9);
    transfer_seconds.Observe(scale > 0 ? transfer / scale : 0.0);
    x->decode = decode[decode_picker->Pick(Loads(decode), {})].get();
    ++x->decode->in_flight;
    ++x->decode->requests;
  }
  http::ClientRequest r;
  r.target = x->decode->base + x->target;
  r.body = std::move(ask);
  http::StreamCallbacks cb;
  cb.on_head = [x](const http::ResponseHead& head) {
    x->decode_status = head.status;
    if (const auto type = http::FindHeader(head.headers, "Content-Type")) x->decode_type = std::string(*type);
    if (head.status == 200 && x->stream) {
      x->writer = x->responder.StartStream(200, x->decode_type, {{"Cache-Control", "no-cache"}});
      x->streaming = true;
    }
  };
  cb.on_body = [x](std::string_view data, std::int64_t) {
    if (x->streaming) {
      x->writer.Send(data);
    } else {
      x->decode_answer.append(data);
    }
  };
  cb.on_complete = [this, x](const http::ClientResult& decoded) { OnDecoded(x, decoded); };
  x->overhead_ns += MonotonicNs() - now;
  x->decode->client->Send(std::move(r), std::move(cb));
}

void RouterServer::Impl::OnDecoded(const std::shared_ptr<Exchange>& x, const http::ClientResult& result) {
  Worker& d = *x->decode;
  {
    const std::lock_guard lock(mu);
    --d.in_flight;
    if (!result.ok()) ++d.errors;
    overhead_seconds.Observe(double(x->overhead_ns) * 1e-9);
  }
  const std::string failure = "decode worker " + d.url + " failed: " + result.message;
  if (x->streaming) {
    {
      const std::lock_guard lock(mu);
      --queue;
    }
    // The head went out with 200: the failure reaches the client as an OpenAI error event, and the
    // stream ends cleanly rather than being cut.
    if (!result.ok()) x->writer.Send("data: " + GatewayError(failure) + "\n\n");
    x->writer.End();
    return;
  }
  if (!result.ok()) return Answer(x, 502, "application/json", GatewayError(failure));
  Answer(x, x->decode_status, x->decode_type, x->decode_answer);
}

http::ClientRequest RouterServer::Impl::WorkerGet(const Worker& w, const std::string& path) const {
  http::ClientRequest r;
  r.method = "GET";
  r.target = w.base + path;
  r.content_type.clear();
  r.timeout = options.health_timeout;
  return r;
}

void RouterServer::Impl::Health(http::Responder responder) {
  struct Probe {
    std::mutex mu;
    http::Responder responder;
    std::vector<Worker*> all;         // prefill workers, then decode workers
    std::vector<std::string> states;  // per worker of `all`, as its probe ends
    std::size_t left = 0;
  };
  auto probe = std::make_shared<Probe>();
  probe->responder = std::move(responder);
  for (auto* pool : {&prefill, &decode})
    for (auto& w : *pool) probe->all.push_back(w.get());
  probe->states.resize(probe->all.size());
  probe->left = probe->all.size();
  for (std::size_t i = 0; i < probe->all.size(); ++i) {
    Worker* w = probe->all[i];
    http::ClientRequest r = WorkerGet(*w, "/health");
    http::StreamCallbacks cb;
    cb.on_complete = [probe, i](const http::ClientResult& result) {
      const std::lock_guard lock(probe->mu);
      std::string& state = probe->states[i];
      state = "ok";
      if (!result.ok()) {
        state = result.message;
      } else if (result.status != 200) {
        state = "HTTP " + std::to_string(result.status);
      }
      if (--probe->left > 0) return;
      // Every probe has ended: the answer names the workers in pool order, whatever order they ended in.
      json workers = json::object();
      json unreachable = json::array();
      std::string reasons;
      for (std::size_t k = 0; k < probe->all.size(); ++k) {
        const Worker& each = *probe->all[k];
        workers[each.url] = {{"role", each.role}, {"status", probe->states[k]}};
        if (probe->states[k] == "ok") continue;
        unreachable.push_back(each.url);
        reasons += (reasons.empty() ? "" : "; ") + each.role + " worker " + each.url + ": " + probe->states[k];
      }
      json body;
      if (unreachable.empty()) {
        body["status"] = "ok";
      } else {
        body = json::parse(ErrorBody(
            ApiError{503, "unreachable workers: " + reasons, "service_unavailable", "", "worker_unreachable"}));
        body["unreachable"] = unreachable;
      }
      body["workers"] = workers;
      probe->responder.Respond(unreachable.empty() ? 200 : 503, "application/json", body.dump());
    };
    w->client->Send(std::move(r), std::move(cb));
  }
}

void RouterServer::Impl::Models(http::Responder responder) {
  auto shared = std::make_shared<http::Responder>(std::move(responder));
  auto answer = std::make_shared<std::string>();
  Worker* w = decode.front().get();
  http::ClientRequest r = WorkerGet(*w, "/v1/models");
  http::StreamCallbacks cb;
  cb.on_body = [answer](std::string_view data, std::int64_t) { answer->append(data); };
  cb.on_complete = [shared, answer, w](const http::ClientResult& result) {
    if (!result.ok()) {
      shared->Respond(502, "application/json", GatewayError("decode worker " + w->url + " failed: " + result.message));
      return;
    }
    shared->Respond(result.status, "application/json", *answer);
  };
  w->client->Send(std::move(r), std::move(cb));
}

std::string RouterServer::Impl::Metrics() {
  const std::lock_guard lock(mu);
  std::string out;
  const std::string model = "model_name=\"" + options.model + "\"";
  auto family = [&out](const std::string& name, const char* type, const char* help) {
    out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  };
  auto per_worker = [&](const std::string& name, const char* type, const char* help, auto value) {
    family(name, type, help);
    for (auto* pool : {&prefill, &decode})
      for (const auto& w : *pool)
        out += name + "{" + model + ",role=\"" + w->role + "\",worker=\"" + w->url + "\"} " +
               std::to_string(value(*w)) + "\n";
  };
  per_worker("infermark:router_requests_in_flight", "gauge", "Requests sent to the worker and not yet answered.",
             [](const Worker& w) { return w.in_flight; });
  per_worker("infermark:router_requests_total", "counter", "Requests sent to the worker.",
             [](const Worker& w) { return w.requests; });
  per_worker("infermark:router_worker_errors_total", "counter",
             "Requests the worker failed (connection lost, no KV hand-off).", [](const Worker& w) { return w.errors; });
  family("infermark:router_queue_requests", "gauge", "Requests the router holds: received and not yet answered.");
  out += "infermark:router_queue_requests{" + model + "} " + std::to_string(queue) + "\n";
  const std::string labels = model + ",policy=\"" + RoutePolicyName(policy) + "\"";
  family("infermark:router_prefill_seconds", "histogram",
         "Prefill round trip as the router sees it: sent to a prefill worker until its answer.");
  prefill_seconds.Render(out, "infermark:router_prefill_seconds", labels);
  family("infermark:router_kv_transfer_seconds", "histogram",
         "Modelled KV hand-off the decode worker waits (transfer_s over the time scale).");
  transfer_seconds.Render(out, "infermark:router_kv_transfer_seconds", labels);
  family("infermark:router_overhead_seconds", "histogram",
         "The router's own time per request: parsing, picking and forwarding, both hops.");
  overhead_seconds.Render(out, "infermark:router_overhead_seconds", labels);
  return out;
}

RouterServer::RouterServer(RouterOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = std::move(options);
  m.policy = ParseRoutePolicy(m.options.policy);
  if (m.options.threads < 1) throw FlagError("--threads", "must be at least 1");
  m.AddWorkers(m.options.prefill, "prefill", "--prefill", m.prefill);
  m.AddWorkers(m.options.decode, "decode", "--decode", m.decode);
  m.prefill_picker.emplace(m.prefill.size(), m.policy);
  // Decode workers hold no prefix of ours worth following: least loaded, or in turn.
  m.decode_picker.emplace(m.decode.size(),
                          m.policy == RoutePolicy::kRoundRobin ? RoutePolicy::kRoundRobin : RoutePolicy::kLeastLoaded);
  http::ServerOptions so;
  so.address = m.options.host;
  so.port = m.options.port;
  so.threads = m.options.threads;
  m.server = std::make_unique<http::Server>(so);
  Impl* impl = impl_.get();
  m.server->Route("POST", "/v1/completions", [impl](http::Request& request, http::Responder responder) {
    impl->Forward(request, std::move(responder), "/v1/completions");
  });
  m.server->Route("POST", "/v1/chat/completions", [impl](http::Request& request, http::Responder responder) {
    impl->Forward(request, std::move(responder), "/v1/chat/completions");
  });
  m.server->Route("GET", "/health",
                  [impl](http::Request&, http::Responder responder) { impl->Health(std::move(responder)); });
  m.server->Route("GET", "/v1/models",
                  [impl](http::Request&, http::Responder responder) { impl->Models(std::move(responder)); });
  m.server->Route("GET", "/metrics", [impl](http::Request&, http::Responder responder) {
    responder.Respond(200, "text/plain; version=0.0.4; charset=utf-8", impl->Metrics());
  });
}

RouterServer::~RouterServer() {
  Stop();
}

void RouterServer::Start() {
  impl_->server->Start();
}

void RouterServer::Stop() {
  Impl& m = *impl_;
  if (m.stopped) return;
  m.stopped = true;
  m.server->Stop();
}

std::uint16_t RouterServer::port() const {
  return impl_->server->port();
}

}  // namespace infermark::engine
