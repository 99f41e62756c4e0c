#include "engine/engine_server.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <ctime>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "core/split_mix.hpp"
#include "core/thread_priority.hpp"
#include "core/version.hpp"
#include "engine/api_error.hpp"
#include "engine/openai_request.hpp"
#include "engine/realtime_engine.hpp"
#include "http/server.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/output_length.hpp"
#include "perfmodel/step_time.hpp"
#include "tokenizer/locate.hpp"
#include "tokenizer/tokenizer.hpp"
#include "tokenizer/word_vocabulary.hpp"

namespace infermark::engine {
namespace {

namespace fs = std::filesystem;

InputError Bad(const std::string& flag, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Tokens per element of a prompt's prefix identity: the KV block size, raised to a multiple of at
// least 16 tokens (SGLang's page size 1 would otherwise cost one hash per token; a prefix shorter
// than 16 tokens saves nothing worth modelling).
int PrefixHashTokens(int block_size) {
  return block_size * ((16 + block_size - 1) / block_size);
}

// Chained hashes of the prompt's full hash blocks: element k covers every token before the end of
// block k, so equal elements mean equal prefixes, as prefix caches key blocks.
std::shared_ptr<const std::vector<std::uint64_t>> PrefixBlocks(const std::vector<std::uint32_t>& ids,
                                                               int block_tokens) {
  auto hashes = std::make_shared<std::vector<std::uint64_t>>();
  std::uint64_t h = 0x6A09E667F3BCC908ull;
  const auto per = static_cast<std::size_t>(block_tokens);
  const std::size_t full = ids.size() / per;
  hashes->reserve(full);
  for (std::size_t b = 0; b < full; ++b) {
    for (std::size_t i = b * per; i < (b + 1) * per; ++i) h = SplitMix64(h ^ ids[i]);
    hashes->push_back(h);
  }
  return hashes;
}

}  // namespace

std::string ResolveTokenizerPath(const std::string& setting, const perfmodel::ModelSpec& model,
                                 const std::string& data_dir) {
  if (setting == "none") return setting;
  if (!setting.empty()) {
    if (const auto found = tokenizer::Locate(setting)) return *found;
    throw Bad("--tokenizer",
              "'" + setting +
                  "' is neither a tokenizer.json, a folder holding one, nor a model in the local Hugging "
                  "Face cache");
  }
  if (model.tokenizer.empty())
    throw Bad("--tokenizer", "model '" + model.name +
                                 "' names no default tokenizer: pass --tokenizer PATH (a tokenizer.json or its "
                                 "folder) or --tokenizer none");
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("INFERMARK_TOKENIZERS"); env && *env) roots.emplace_back(env);
  roots.push_back(fs::path(data_dir).parent_path().parent_path() / "tools/tokenizers/node_modules");
  roots.push_back(fs::current_path() / "tools/tokenizers/node_modules");
  for (const fs::path& root : roots) {
    if (const auto found = tokenizer::Locate((root / model.tokenizer / "models").string())) return *found;
  }
  throw Bad("--tokenizer", "the tokenizer package " + model.tokenizer + " of model '" + model.name +
                               "' is not installed under tools/tokenizers/node_modules (run scripts/setup.sh), "
                               "or pass --tokenizer PATH or --tokenizer none");
}

struct EngineServer::Impl {
  ServeOptions options;
  perfmodel::Deployment deployment;
  std::unique_ptr<perfmodel::StepTimeModel> model;
  std::optional<tokenizer::Tokenizer> tok;
  std::unique_ptr<tokenizer::WordVocabulary> vocabulary;
  std::shared_ptr<EmissionLog> log;
  ServeDescription description;
  nlohmann::ordered_json model_card;  // /v1/models' entry, completed with the live lateness
  std::atomic<std::uint64_t> arrivals{0};
  std::unique_ptr<http::Server> server;
  // The loop the engine's passes run on: its own thread, owning no connection, so a pass's timer
  // never waits behind the socket writes of the last pass (at 256 streams, a burst of 256 sends
  // costs milliseconds of system time on a loopback host) or a large request being read.
  std::unique_ptr<http::EventLoops> engine_loop;
  std::unique_ptr<RealtimeEngine> engine;
  // Threads that parse, tokenize and check requests (Prepare) at a lowered priority, so that an
  // 8k-token prompt arriving never delays the pass timer or the writes on the engine's loop; null
  // with --prep-threads 0 (requests are prepared on their connection's loop).
  std::unique_ptr<http::EventLoops> prep;
  bool stopped = false;

  bool AcceptsModel(const std::string& name) const {
    if (name == description.served_model_name || EqualsIgnoreCase(name, deployment.model.name)) return true;
    return std::any_of(deployment.model.aliases.begin(), deployment.model.aliases.end(),
                       [&](const std::string& a) { return EqualsIgnoreCase(a, name); });
  }

  void HandleGenerate(http::Request& request, http::Responder responder, Endpoint endpoint);
  void Prepare(const std::string& body, std::int64_t received_ns, bool timing, http::Responder responder,
               Endpoint endpoint);
};

void EngineServer::Impl::HandleGenerate(http::Request& request, http::Responder responder, Endpoint endpoint) {
  // A client that asks (infermark's) is told, on every event, the model's clock: when the request
  // entered the model and which pass produced the event.
  const auto asked = request.FindHeader("X-Infermark-Timing");
  const bool timing = asked && *asked == "1";
  // A client on this host (a loopback peer shares its clock) may say when it sent the request:
  // the request enters the model then, as over a link without delay, and the time the bytes spent
  // in this host's loopback and event loops is not put on the modelled GPU.
  std::int64_t arrived_ns = request.received_ns;
  if (request.local_peer) {
    if (const auto sent = request.FindHeader("X-Infermark-Sent-Ns")) {
      std::int64_t ns = 0;
      const auto [end, ec] = std::from_chars(sent->data(), sent->data() + sent->size(), ns);
      // Plausible only: sent before it arrived, and not long before (a clock that is not ours).
      if (ec == std::errc() && end == sent->data() + sent->size() && ns <= arrived_ns &&
          arrived_ns - ns < 1'000'000'000) {
        arrived_ns = ns;
      }
    }
  }
  if (!prep) return Prepare(request.body, arrived_ns, timing, std::move(responder), endpoint);
  // Spread over the preparation threads by arrival; with one (the default) requests reach the
  // scheduler in the order they arrived.
  auto shared = std::make_shared<http::Responder>(std::move(responder));
  prep->Post(prep->NextLoop(), [this, body = std::move(request.body), arrived_ns, timing, shared, endpoint] {
    Prepare(body, arrived_ns, timing, std::move(*shared), endpoint);
  });
}

void EngineServer::Impl::Prepare(const std::string& body, std::int64_t received_ns, bool timing,
                                 http::Responder responder, Endpoint endpoint) {
  auto fail = [&responder](const ApiError& e) { responder.Respond(e.status, "application/json", ErrorBody(e)); };
  auto parsed = ParseApiRequest(body, endpoint);
  if (auto* e = std::get_if<ApiError>(&parsed)) return fail(*e);
  ApiRequest& r = std::get<ApiRequest>(parsed);
  if (!r.model.empty() && !AcceptsModel(r.model))
    return fail(
        ApiError{404, "The model `" + r.model + "` does not exist.", "NotFoundError", "model", "model_not_found"});
  thread_local std::vector<std::uint32_t> ids;
  ids.clear();
  std::int64_t prompt_tokens = 0;
  if (r.prompt_is_ids) {
    if (tok && r.max_prompt_id >= std::int64_t(tok->IdLimit()))
      return fail(ApiError{400,
                           "token id " + std::to_string(r.max_prompt_id) + " is out of vocabulary (ids below " +
                               std::to_string(tok->IdLimit()) + ")",
                           "invalid_request_error", "prompt", ""});
    ids.swap(r.prompt_ids);
    prompt_tokens = std::int64_t(ids.size());
  } else if (tok) {
    // Completions add the tokenizer's special tokens (e.g. BOS) as servers do; a chat prompt is
    // already the whole template.
    tok->EncodeInto(r.prompt_text, ids, endpoint == Endpoint::kCompletions);
    prompt_tokens = std::int64_t(ids.size());
  } else {
    prompt_tokens = (std::int64_t(r.prompt_text.size()) + 3) / 4;
  }
  if (prompt_tokens < 1) return fail(ApiError{400, "the prompt is empty", "invalid_request_error", "prompt", ""});
  const perfmodel::SchedulerConfig& sc = deployment.scheduler;
  const std::int64_t max_len = sc.max_model_len;
  const std::int64_t max_tokens = r.max_tokens.value_or(std::max<std::int64_t>(max_len - prompt_tokens, 0));
  if (prompt_tokens + max_tokens > max_len || max_tokens < 1) {
    return fail(ApiError{
        400,
        "This model's maximum context length is " + std::to_string(max_len) + " tokens. However, you requested " +
            std::to_string(prompt_tokens + max_tokens) + " tokens (" + std::to_string(prompt_tokens) +
            " in the prompt, " + std::to_string(max_tokens) +
            " for the completion). Please reduce the length of the prompt or completion.",
        "invalid_request_error", endpoint == Endpoint::kChat ? "messages" : "prompt", "context_length_exceeded"});
  }
  const double kv_tokens = double(sc.num_blocks) * sc.block_size;
  if (double(prompt_tokens + max_tokens) + model->decode_query_tokens() > kv_tokens) {
    return fail(ApiError{400,
                         "prompt + max_tokens (" + std::to_string(prompt_tokens + max_tokens) +
                             " tokens) exceeds the KV cache of this deployment (" +
                             std::to_string(static_cast<std::int64_t>(kv_tokens)) + " tokens)",
                         "invalid_request_error", "max_tokens", "context_length_exceeded"});
  }
  bool remote_decode = false;
  double kv_transfer_s = -1;
  if (!options.role.empty() && body.find("kv_transfer_params") != std::string::npos) {
    // The disaggregated proxy's field (vLLM's shape): the prefill worker is asked to hand the KV
    // on (do_remote_decode), the decode worker is told where it comes from and, here, how long
    // its modelled transfer takes.
    const auto document = nlohmann::json::parse(body, nullptr, false);
    const auto kv = document.is_object() ? document.find("kv_transfer_params") : document.end();
    if (kv != document.end() && !kv->is_null()) {
      if (!kv->is_object())
        return fail(
            ApiError{400, "kv_transfer_params must be an object", "invalid_request_error", "kv_transfer_params", ""});
      if (options.role == "prefill") {
        remote_decode = kv->value("do_remote_decode", false);
      } else if (const auto t = kv->find("transfer_s"); t != kv->end()) {
        if (!t->is_number() || !(t->get<double>() >= 0))
          return fail(ApiError{400, "kv_transfer_params.transfer_s must be a number of seconds, 0 or more",
                               "invalid_request_error", "kv_transfer_params.transfer_s", ""});
        kv_transfer_s = t->get<double>();
      }
    }
  }
  const std::uint64_t arrival = arrivals.fetch_add(1, std::memory_order_relaxed);
  const std::uint64_t seed = r.seed ? SplitMix64(*r.seed) : SplitMix64(options.seed ^ SplitMix64(arrival));
  auto admitted = std::make_shared<AdmittedRequest>();
  AdmittedRequest& a = *admitted;
  a.endpoint = endpoint;
  a.stream = r.stream;
  a.include_usage = r.include_usage;
  a.continuous_usage = r.continuous_usage;
  a.prompt_tokens = static_cast<int>(prompt_tokens);
  a.max_tokens = static_cast<int>(max_tokens);
  a.output_tokens = static_cast<int>(
      perfmodel::DrawOutputLength(seed, options.eos_mean_tokens, r.min_tokens, max_tokens, r.ignore_eos));
  if (endpoint == Endpoint::kChat && deployment.model.reasoning && a.output_tokens >= 2) {
    const int share = static_cast<int>(double(a.output_tokens) * options.reasoning_fraction);
    a.reasoning_tokens = std::clamp(share, options.reasoning_fraction > 0 ? 1 : 0, a.output_tokens - 1);
  }
  if (sc.prefix_caching && !ids.empty()) {
    a.prefix_block_tokens = PrefixHashTokens(sc.block_size);
    a.prefix_blocks = PrefixBlocks(ids, a.prefix_block_tokens);
  }
  a.remote_decode = remote_decode;
  a.kv_transfer_s = kv_transfer_s;
  a.received_ns = received_ns;
  a.timing = timing;
  a.created = static_cast<std::uint64_t>(std::time(nullptr));
  a.responder = std::move(responder);
  engine_loop->Post(0, [this, admitted] { engine->Admit(std::move(*admitted)); });
}

EngineServer::EngineServer(ServeOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = std::move(options);
  const ServeOptions& o = m.options;
  if (!(o.time_scale >= 0)) throw Bad("--time-scale", "must be 0 (max speed) or positive");
  if (o.threads < 1) throw Bad("--threads", "must be at least 1");
  if (o.max_waiting < 0) throw Bad("--max-waiting", "must be 0 (no bound) or positive");
  if (!(o.reasoning_fraction >= 0 && o.reasoning_fraction <= 1)) throw Bad("--reasoning-fraction", "must be in [0, 1]");
  if (!(o.eos_mean_tokens >= 0)) throw Bad("--eos-mean-tokens", "must be 0 (no EOS) or positive");
  if (!o.role.empty() && o.role != "prefill" && o.role != "decode")
    throw Bad("--role", "a worker's role is prefill or decode, not '" + o.role + "'");
  const perfmodel::EngineData& data = perfmodel::DefaultEngineData();
  m.deployment = perfmodel::ResolveDeployment(data, o.deployment);
  m.model = std::make_unique<perfmodel::StepTimeModel>(m.deployment);
  const std::string tokenizer_path = ResolveTokenizerPath(o.tokenizer, m.deployment.model, data.dir);
  if (tokenizer_path != "none") m.tok = tokenizer::Tokenizer::Load(tokenizer_path);
  m.vocabulary = std::make_unique<tokenizer::WordVocabulary>(m.tok ? &*m.tok : nullptr);
  if (!o.emission_log.empty()) {
    try {
      m.log = std::make_shared<EmissionLog>(o.emission_log);
    } catch (const std::runtime_error& e) {
      throw Bad("--emission-log", e.what());
    }
  }
  ServeDescription& d = m.description;
  d.served_model_name = o.served_model_name.empty() ? o.deployment.model : o.served_model_name;
  d.tokenizer = tokenizer_path;
  d.tokenizer_stand_in = o.tokenizer.empty() && m.deployment.model.tokenizer_stand_in;
  d.max_model_len = m.deployment.scheduler.max_model_len;
  d.time_scale = o.time_scale;

  nlohmann::ordered_json card;
  card["id"] = d.served_model_name;
  card["object"] = "model";
  card["created"] = static_cast<std::int64_t>(std::time(nullptr));
  card["owned_by"] = "infermark";
  card["root"] = m.deployment.model.name;
  card["parent"] = nullptr;
  card["max_model_len"] = d.max_model_len;
  card["tokenizer"] =
      m.tok ? (m.deployment.model.tokenizer.empty() || !o.tokenizer.empty() ? tokenizer_path
                                                                            : m.deployment.model.tokenizer)
            : std::string("none");
  card["tokenizer_path"] = tokenizer_path;
  card["tokenizer_stand_in"] = d.tokenizer_stand_in;
  card["time_scale"] = o.time_scale;
  card["max_speed"] = o.time_scale == 0;
  card["hardware"] = m.deployment.hardware.name;
  card["num_gpus"] = m.deployment.NumGpus();
  card["tp"] = m.deployment.tp;
  card["ep"] = m.deployment.ep;
  card["dp_attention"] = m.deployment.dp_attention;
  card["framework"] = m.deployment.framework.name;
  card["precision"] = m.deployment.precision.precision;
  card["kv_cache_dtype"] = m.deployment.precision.kv_dtype;
  card["block_size"] = m.deployment.scheduler.block_size;
  card["max_num_seqs"] = m.deployment.scheduler.max_num_seqs;
  card["max_num_batched_tokens"] = m.deployment.scheduler.max_num_batched_tokens;
  card["kv_capacity_tokens"] = m.deployment.memory.kv_capacity_tokens;
  card["prefix_caching"] = m.deployment.scheduler.prefix_caching;
  card["host_kv_capacity_tokens"] = m.deployment.scheduler.host_kv_tokens;
  card["reasoning"] = m.deployment.model.reasoning;
  if (!o.role.empty()) card["role"] = o.role;
  card["infermark_version"] = kVersion;
  m.model_card = std::move(card);

  http::ServerOptions so;
  so.address = o.host;
  so.port = o.port;
  so.threads = o.threads;
  so.cpus = o.cpus;
  const bool max_speed = o.time_scale == 0;
  so.flush_interval =
      o.flush_interval.count() >= 0 ? o.flush_interval : std::chrono::microseconds(max_speed ? 1000 : 0);
  RealtimeOptions ro;
  if (max_speed) so.high_water_bytes = ro.high_water_bytes;
  m.server = std::make_unique<http::Server>(so);
  if (o.prep_threads > 0) {
    // On the engine's own CPUs: a pinned engine leaves the others to its client.
    m.prep = std::make_unique<http::EventLoops>(o.prep_threads, o.cpus, "prep");
    // Idle class: when the pass timer or the client wakes, it takes the CPU from a tokenizing
    // thread at once; a prompt's preparation waits instead (part of its TTFT, as a real engine's
    // front end adds it).
    for (std::size_t i = 0; i < o.prep_threads; ++i) m.prep->Post(i, [] { RunAtIdlePriority(); });
  }
  ro.time_scale = o.time_scale;
  ro.max_waiting = o.max_waiting;
  ro.model_name = d.served_model_name;
  ro.model_json = nlohmann::json(d.served_model_name).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  ro.engine_loop = 0;
  ro.emission_log = m.log;
  ro.framework = m.deployment.framework.name;
  ro.role = o.role;
  if (o.role == "prefill")
    ro.kv_link = std::make_shared<KvLinkQueue>(WorkerHandoffModel(m.deployment, o.kv_transfer, o.kv_link));
  http::Server* server = m.server.get();
  ro.hold_output = [server] { server->HoldOutput(); };
  ro.release_output = [server] { server->ReleaseOutput(); };
  m.engine_loop = std::make_unique<http::EventLoops>(
      1, o.cpus.empty() ? std::vector<int>{} : std::vector<int>{o.cpus.front()}, "engine");
  m.engine =
      std::make_unique<RealtimeEngine>(m.deployment.scheduler, *m.model, *m.vocabulary, *m.engine_loop, std::move(ro));
  // The pass thread lets the connection loops go first: once it releases a pass's output, the loop
  // that writes it (often on the same CPU) preempts it at once instead of waiting while the pass
  // thread plans the next pass.
  m.engine_loop->Post(0, [] { YieldToSiblings(3); });
  // Where the model's clock starts on this host's monotonic clock: a client on the same host maps
  // modelled times to its own (virtual ns / time scale + this) to split the host's error by place.
  if (o.time_scale > 0) m.model_card["model_epoch_ns"] = m.engine->EpochNs();

  Impl* impl = impl_.get();
  // One table serves the routes and the fallback's 405 answers (which method a known path takes).
  struct RouteEntry {
    const char* method;
    const char* path;
    http::Handler handler;
  };
  const std::vector<RouteEntry> routes{
      {"POST", "/v1/completions",
       [impl](http::Request& request, http::Responder responder) {
         impl->HandleGenerate(request, std::move(responder), Endpoint::kCompletions);
       }},
      {"POST", "/v1/chat/completions",
       [impl](http::Request& request, http::Responder responder) {
         impl->HandleGenerate(request, std::move(responder), Endpoint::kChat);
       }},
      // The card carries the engine's own lateness so far (read on the engine's loop, which owns it).
      {"GET", "/v1/models",
       [impl](http::Request&, http::Responder responder) {
         auto shared = std::make_shared<http::Responder>(std::move(responder));
         impl->engine_loop->Post(0, [impl, shared] {
           nlohmann::ordered_json live = impl->model_card;
           live["step_lateness"] = nlohmann::ordered_json::parse(impl->engine->LatenessJson());
           nlohmann::ordered_json models;
           models["object"] = "list";
           models["data"] = nlohmann::ordered_json::array({std::move(live)});
           shared->Respond(200, "application/json", models.dump());
         });
       }},
      {"GET", "/health", [](http::Request&, http::Responder responder) { responder.Respond(200, "", ""); }},
      {"GET", "/metrics",
       [impl](http::Request&, http::Responder responder) {
         auto shared = std::make_shared<http::Responder>(std::move(responder));
         impl->engine_loop->Post(0, [impl, shared] { impl->engine->RespondMetrics(std::move(*shared)); });
       }},
  };
  std::vector<std::pair<std::string, std::string>> known;  // path, method
  for (const RouteEntry& r : routes) {
    m.server->Route(r.method, r.path, r.handler);
    known.emplace_back(r.path, r.method);
  }
  m.server->SetFallback([known](http::Request& request, http::Responder responder) {
    const std::string_view path = request.Path();
    for (const auto& [route, method] : known) {
      if (route != path) continue;
      http::Response r;
      r.status = 405;
      r.body = ErrorBody(ApiError{405, "method " + request.method + " is not allowed on " + std::string(path),
                                  "invalid_request_error", "", "method_not_allowed"});
      r.headers.push_back({"Allow", method});
      responder.Respond(r);
      return;
    }
    responder.Respond(404, "application/json",
                      ErrorBody(ApiError{404, "no route for " + std::string(path), "NotFoundError", "", "not_found"}));
  });
}

EngineServer::~EngineServer() {
  Stop();
}

void EngineServer::Start() {
  Impl& m = *impl_;
  m.server->Start();
  if (m.options.role != "prefill") return;
  // Where the KV comes from, as the decode worker is told: this worker's engine id and URL.
  std::string host = m.options.host;
  if (host == "0.0.0.0" || host == "::") {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) == 0) host = name;
  }
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  const perfmodel::DisaggDeployment link = WorkerHandoffModel(m.deployment, m.options.kv_transfer, m.options.kv_link);
  nlohmann::ordered_json kv;
  kv["remote_engine_id"] = "infermark-prefill-" + host + "-" + std::to_string(m.server->port());
  kv["remote_url"] = "http://" + host + ":" + std::to_string(m.server->port());
  kv["remote_host"] = host;
  kv["remote_port"] = m.server->port();
  kv["backend"] = link.backend.name;
  kv["link"] = link.link.kind;
  std::promise<void> done;
  m.engine_loop->Post(0, [&m, &done, json = kv.dump()]() mutable {
    m.engine->SetKvParams(std::move(json));
    done.set_value();
  });
  done.get_future().wait();
}

void EngineServer::Stop() {
  Impl& m = *impl_;
  if (m.stopped) return;
  m.stopped = true;
  // No request is prepared once the engine shuts down: what waits is dropped with its connection.
  if (m.prep) m.prep->Stop();
  if (m.server->port() != 0) {
    std::promise<void> done;
    m.engine_loop->Post(0, [&m, &done] {
      m.engine->Shutdown();
      done.set_value();
    });
    done.get_future().wait();
  }
  m.server->Stop();
  m.engine_loop->Stop();  // after the connections, whose closing posts their cancellations to it
  if (m.log) m.log->Flush();
}

std::uint16_t EngineServer::port() const {
  return impl_->server->port();
}

const perfmodel::Deployment& EngineServer::deployment() const {
  return impl_->deployment;
}

const ServeDescription& EngineServer::description() const {
  return impl_->description;
}

http::EventLoops& EngineServer::loops() {
  return *impl_->engine_loop;
}

}  // namespace infermark::engine
