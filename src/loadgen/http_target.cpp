#include "loadgen/http_target.hpp"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "http/client.hpp"
#include "http/url.hpp"
#include "loadgen/engine_lateness.hpp"

namespace infermark::loadgen {
namespace {

// Past this many bytes of prompt text a phase's bodies are built as they are sent instead.
constexpr std::size_t kMaxPrebuiltBytes = std::size_t{2} << 30;

// A read-delay percentile in ms (the upper edge of its histogram bucket).
double DelayMs(const http::DelayCounts& counts, double percent) {
  return static_cast<double>(http::DelayPercentileNs(counts, percent)) / 1e6;
}

http::ClientRequest GetRequest(const char* path, std::chrono::milliseconds timeout) {
  http::ClientRequest r;
  r.method = "GET";
  r.target = path;
  r.content_type.clear();
  r.timeout = timeout;
  return r;
}

}  // namespace

struct HttpTarget::Impl {
  HttpTargetOptions options;
  std::string target;         // request path
  std::string authorization;  // "Bearer <OPENAI_API_KEY>", read once
  std::unique_ptr<http::Client> client;
  std::span<const Prompt> prompts;
  std::vector<std::size_t> order;
  std::vector<std::string> bodies;  // request k's body until it is sent (empty: built when sent)
  std::vector<std::unique_ptr<StreamRecorder>> recorders;
  double setup_s = 0;
  std::size_t prewarmed = 0;
  nlohmann::json card = nullptr;  // the built-in engine's /v1/models entry
  std::optional<LatenessCounters> lateness_before;
  std::optional<metrics::EngineSelfCheck> engine;
  http::ClientStats stats{};

  bool BuiltIn() const { return card.is_object(); }

  std::optional<LatenessCounters> ReadLateness() {
    const http::FetchResult r = client->Fetch(GetRequest("/metrics", std::chrono::milliseconds(5'000)));
    if (!r.result.ok() || r.head.status != 200) return std::nullopt;
    return ParseLatenessCounters(r.body);
  }
};

HttpTarget::HttpTarget(HttpTargetOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = std::move(options);
  std::string url_error;
  const auto url = http::ParseUrl(m.options.base_url, &url_error);
  if (!url) throw InputError(Diagnostic{SourceMark{}, "", m.options.url_flag, url_error});
  m.target = url->target == "/" ? "" : url->target;
  if (!m.target.empty() && m.target.back() == '/') m.target.pop_back();
  m.target += m.options.endpoint;
  if (const char* key = std::getenv("OPENAI_API_KEY"); key != nullptr && *key != '\0') {
    m.authorization = std::string("Bearer ") + key;
  }
  http::ClientOptions co;
  co.host = url->host;
  co.port = url->port;
  co.tls = url->tls;
  co.threads = m.options.threads;
  co.cpus = m.options.cpus;
  co.idle_timeout = m.options.idle_timeout;
  m.client = std::make_unique<http::Client>(co);
}

HttpTarget::~HttpTarget() = default;

http::EventLoops& HttpTarget::loops() {
  return impl_->client->loops();
}

void HttpTarget::Connect(std::size_t connections) {
  Impl& m = *impl_;
  const std::int64_t t0 = MonotonicNs();
  const http::FetchResult answer = m.client->Fetch(GetRequest("/v1/models", std::chrono::milliseconds(10'000)));
  const auto e = answer.result.error;
  if (e == http::ErrorKind::kConnect || e == http::ErrorKind::kTls || e == http::ErrorKind::kTimeout ||
      e == http::ErrorKind::kReset) {
    throw ServerUnreachable("cannot reach the server at " + m.options.base_url + ": " + answer.result.message);
  }
  // infermark's built-in engine names itself in its model card: its time scale and its own
  // lateness then belong in the result.
  if (answer.result.ok() && answer.head.status == 200) {
    const nlohmann::json models = nlohmann::json::parse(answer.body, nullptr, false);
    if (models.is_object() && models.contains("data") && models["data"].is_array() && !models["data"].empty()) {
      const nlohmann::json& first = models["data"][0];
      if (first.is_object() && first.value("owned_by", "") == "infermark") m.card = first;
    }
  }
  // The pool is sized to the concurrency up front (the reference opens connections lazily, and
  // InferenceX's 2·C warm-ups are what keep its first measured requests off the connect path).
  std::atomic<std::size_t> pending{connections};
  std::atomic<std::size_t> answered{0};
  for (std::size_t i = 0; i < connections; ++i) {
    http::ClientRequest request = GetRequest("/v1/models", std::chrono::milliseconds(30'000));
    request.new_connection = true;
    http::StreamCallbacks callbacks;
    callbacks.on_complete = [&pending, &answered](const http::ClientResult& result) {
      if (result.ok()) answered.fetch_add(1);
      pending.fetch_sub(1);
    };
    m.client->Send(std::move(request), std::move(callbacks));
  }
  while (pending.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  m.prewarmed = answered.load();
  m.setup_s = static_cast<double>(MonotonicNs() - t0) / 1e9;
}

void HttpTarget::PreparePhase(std::span<const Prompt> prompts, std::span<const std::size_t> order) {
  Impl& m = *impl_;
  m.prompts = prompts;
  m.order.assign(order.begin(), order.end());
  m.recorders.clear();
  m.recorders.resize(order.size());
  m.bodies.clear();
  // Bodies are built before the clock starts, so the send path only writes bytes: a closed loop
  // whose requests all finish together refills every slot at once, and each JSON body built
  // there would delay the ones after it.
  std::size_t text_bytes = 0;
  for (const std::size_t k : order) text_bytes += prompts[k].text.size() + prompts[k].messages_json.size();
  if (text_bytes <= kMaxPrebuiltBytes) {
    m.bodies.reserve(order.size());
    for (const std::size_t k : order) m.bodies.push_back(BuildRequestBody(m.options.api, m.options.body, prompts[k]));
  }
}

void HttpTarget::PrepareOpenPhase(std::size_t slots) {
  Impl& m = *impl_;
  m.prompts = {};
  m.order.clear();
  m.bodies.clear();  // every body is built as it is sent
  m.recorders.clear();
  m.recorders.resize(slots);
}

std::string HttpTarget::BuildBody(const Prompt& prompt) const {
  return BuildRequestBody(impl_->options.api, impl_->options.body, prompt);
}

void HttpTarget::Issue(const RequestSpec& spec, RequestTracker& tracker) {
  Impl& m = *impl_;
  const std::size_t k = spec.ordinal;
  http::ClientRequest request;
  request.target = m.target;
  if (spec.body != nullptr && !spec.body->empty()) {
    request.body = std::move(*spec.body);
  } else {
    request.body =
        m.bodies.empty() ? BuildRequestBody(m.options.api, m.options.body, *spec.prompt) : std::move(m.bodies[k]);
  }
  if (!m.authorization.empty()) request.headers.push_back(http::Header{"Authorization", m.authorization});
  // The built-in engine then says, on each event, when the request entered its model and which
  // modelled pass produced the event: the ideal timeline the host error is measured against.
  if (m.BuiltIn()) {
    request.headers.push_back(http::Header{"X-Infermark-Timing", "1"});
    // When it goes (a loopback server shares this clock and lets the request into its model then).
    request.sent_time_header = "X-Infermark-Sent-Ns";
  }
  m.recorders[k] = std::make_unique<StreamRecorder>(m.options.api, tracker);
  StreamRecorder* recorder = m.recorders[k].get();
  http::StreamCallbacks callbacks;
  callbacks.on_head = [recorder](const http::ResponseHead& head) { recorder->OnHead(head); };
  callbacks.on_body = [recorder](std::string_view data, std::int64_t t) { recorder->OnBody(data, t); };
  callbacks.on_complete = [impl = &m, k, &tracker](const http::ClientResult& result) {
    // The slot goes to the next request first; the recorder leaves the phase's table before the
    // record is closed (a closed record may end the phase, and the next phase reuses the table).
    std::unique_ptr<StreamRecorder> mine = std::move(impl->recorders[k]);
    tracker.Freed(result.done_ns);
    mine->Finish(result);
  };
  m.client->Send(std::move(request), std::move(callbacks), spec.lane);
}

void HttpTarget::CancelAll(std::string_view why) {
  impl_->client->CancelAll(why);
}

void HttpTarget::OpenWindow() {
  Impl& m = *impl_;
  if (m.BuiltIn()) m.lateness_before = m.ReadLateness();
}

void HttpTarget::CloseWindow() {
  Impl& m = *impl_;
  m.stats = m.client->Stats();
  if (m.BuiltIn() && m.lateness_before) {
    if (const auto after = m.ReadLateness()) m.engine = LatenessBetween(*m.lateness_before, *after);
  }
}

void HttpTarget::Shutdown() {
  Impl& m = *impl_;
  if (!m.client) return;
  m.stats = m.client->Stats();
  m.client.reset();
}

TargetReport HttpTarget::Report() const {
  const Impl& m = *impl_;
  TargetReport r;
  const http::ClientStats& s = m.stats;
  r.client = {{"threads", m.options.threads},
              {"cpus", m.options.cpus},
              {"connections_opened", s.connections_opened},
              {"prewarmed_connections", m.prewarmed},
              {"reads", s.reads},
              {"bytes_read", s.bytes_read},
              {"read_delay_p50_ms", DelayMs(s.read_delay, 50.0)},
              {"read_delay_p99_ms", DelayMs(s.read_delay, 99.0)},
              {"read_delay_max_ms", DelayMs(s.read_delay, 100.0)},
              {"realtime_clock_steps", s.realtime_clock_steps},
              {"realtime_clock_step_max_ms", double(s.largest_realtime_clock_step_ns) / 1e6}};
  r.setup_s = m.setup_s;
  if (m.BuiltIn()) {
    Json server = Json::object();
    server["built_in_engine"] = true;
    for (const char* key : {"root", "hardware", "num_gpus", "tp", "ep", "dp_attention", "framework", "precision",
                            "time_scale", "max_speed", "infermark_version"}) {
      if (m.card.contains(key)) server[key] = Json::parse(m.card[key].dump());
    }
    if (m.engine) {
      const metrics::EngineSelfCheck& e = *m.engine;
      // A lateness past the histogram's largest bucket (10 s, a host stalled for that long) reads
      // as its +Inf bucket: JSON has no infinity, so such a figure is null.
      const auto finite = [](double ms) { return std::isfinite(ms) ? Json(ms) : Json(nullptr); };
      server["step_lateness"] = {{"passes", e.passes},
                                 {"p99_ms", finite(e.lateness_p99_ms)},
                                 {"max_ms", finite(e.lateness_max_ms)},
                                 {"clock_slips", e.clock_slips},
                                 {"clock_slipped_ms", e.clock_slipped_ms}};
    }
    r.server = std::move(server);
    r.engine = m.engine;
    const double scale = m.card.value("time_scale", 1.0);
    r.time_scale = scale > 0 ? scale : 1.0;
    r.model_time_scale = scale > 0 ? scale : 0.0;
    if (m.card.contains("num_gpus") && m.card["num_gpus"].is_number_integer()) r.gpus = m.card["num_gpus"].get<int>();
    if (m.card.contains("model_epoch_ns") && m.card["model_epoch_ns"].is_number_integer()) {
      r.model_epoch_ns = m.card["model_epoch_ns"].get<std::int64_t>();
    }
  }
  return r;
}

}  // namespace infermark::loadgen
