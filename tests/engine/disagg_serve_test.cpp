// Black-box tests of disaggregated serving: `infermark engine serve --role prefill|decode|router`
// as child processes on loopback. The prefill answer's shape and its modelled KV hand-off, the
// decode worker waiting the hand-off, the router's policies, its /health naming an unreachable
// worker, and a decode worker killed mid-stream giving the client a clean error while the router
// goes on serving. The link's queueing is tested on KvLinkQueue itself.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/kv_link.hpp"
#include "engine/route_policy.hpp"
#include "http/client.hpp"
#include "perfmodel/engine_data.hpp"
#include "run_binary.hpp"
#include "serve_api.hpp"
#include "serve_process.hpp"

namespace infermark::engine {
namespace {

using nlohmann::json;
using test::ServeApi;
using test::ServeProcess;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/disagg_test_" + std::to_string(getpid()) + "_" + name;
}

std::vector<std::string> Worker(const std::string& role, const std::string& scale) {
  return {"--role", role, "--model",      "llama-3.1-8b", "--hardware",      "h100", "--tp", "1", "--precision", "bf16",
          "--port", "0",  "--time-scale", scale,          "--max-model-len", "4096"};
}

std::string Url(const ServeProcess& p) {
  return "http://127.0.0.1:" + std::to_string(p.port());
}

std::unique_ptr<ServeProcess> Router(const std::vector<std::string>& prefill, const std::vector<std::string>& decode,
                                     const std::string& policy, const std::string& name) {
  auto join = [](const std::vector<std::string>& urls) {
    std::string out;
    for (const auto& u : urls) out += (out.empty() ? "" : ",") + u;
    return out;
  };
  return std::make_unique<ServeProcess>(
      std::vector<std::string>{"--role", "router", "--prefill", join(prefill), "--decode", join(decode), "--policy",
                               policy, "--model", "llama-3.1-8b", "--port", "0"},
      TempPath(name));
}

// The value of the first sample line of `name` whose labels contain `label` (-1: none).
double Metric(const std::string& text, const std::string& name, const std::string& label = "") {
  std::size_t at = 0;
  while ((at = text.find(name, at)) != std::string::npos) {
    const std::size_t eol = text.find('\n', at);
    const std::string line = text.substr(at, eol - at);
    const bool line_start = at == 0 || text[at - 1] == '\n';
    at = eol;
    if (!line_start) continue;
    if (line.compare(0, name.size() + 1, name + "{") != 0 && line.compare(0, name.size() + 1, name + " ") != 0)
      continue;
    if (!label.empty() && line.find(label) == std::string::npos) continue;
    return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return -1;
}

perfmodel::DisaggDeployment LlamaHandoff() {
  perfmodel::DeploymentOptions o;
  o.model = "llama-3.1-8b";
  o.hardware = "h100";
  o.max_model_len = 4096;
  return WorkerHandoffModel(perfmodel::ResolveDeployment(perfmodel::DefaultEngineData(), o), "nixl", "auto");
}

// A prefill worker asked to hand the KV on answers one token and vLLM's kv_transfer_params,
// with the modelled hand-off of its own deployment; without the ask it is a plain engine.
TEST(DisaggPrefill, AnswersWithTheModelledHandoff) {
  ServeProcess prefill(Worker("prefill", "0"), TempPath("prefill.err"));
  ServeApi api(prefill.port());
  const auto r =
      api.Post("/v1/completions", R"({"prompt":"The quick brown fox jumps over the lazy dog","max_tokens":1,)"
                                  R"("kv_transfer_params":{"do_remote_decode":true,"do_remote_prefill":false}})");
  ASSERT_EQ(r.head.status, 200) << r.body;
  const json body = json::parse(r.body);
  EXPECT_EQ(body["usage"]["completion_tokens"], 1);
  const json& kv = body["kv_transfer_params"];
  const int prompt = body["usage"]["prompt_tokens"];
  EXPECT_EQ(kv["prompt_tokens"], prompt);
  EXPECT_EQ(kv["do_remote_prefill"], true);
  EXPECT_EQ(kv["remote_url"], Url(prefill));
  EXPECT_EQ(kv["remote_port"], prefill.port());
  EXPECT_EQ(kv["backend"], "nixl");
  EXPECT_EQ(kv["link"], "rdma-400g");
  const perfmodel::DisaggDeployment d = LlamaHandoff();
  EXPECT_NEAR(kv["transfer_s"].get<double>(), d.TransferSeconds(prompt), 1e-9);
  EXPECT_NEAR(kv["wire_s"].get<double>(), d.WireSeconds(prompt), 1e-12);
  EXPECT_EQ(kv["queued_s"].get<double>(), 0.0);
  const auto plain = api.Post("/v1/completions", R"({"prompt":"hello","max_tokens":3,"ignore_eos":true})");
  EXPECT_FALSE(json::parse(plain.body).contains("kv_transfer_params"));
  const auto bad = api.Post("/v1/completions", R"({"prompt":"hello","max_tokens":1,"kv_transfer_params":7})");
  EXPECT_EQ(bad.head.status, 400);
  EXPECT_EQ(json::parse(bad.body)["error"]["param"], "kv_transfer_params");
  const std::string metrics = api.Get("/metrics").body;
  EXPECT_EQ(Metric(metrics, "infermark:engine_role", "role=\"prefill\""), 1);
  EXPECT_EQ(Metric(metrics, "infermark:kv_transfers_total"), 1);
  EXPECT_EQ(json::parse(api.Get("/v1/models").body)["data"][0]["role"], "prefill");
}

// One link per prefill worker: a hand-off that finds it busy waits for the earlier one.
TEST(DisaggPrefill, BusyLinkQueuesTheNextTransfer) {
  KvLinkQueue link(LlamaHandoff());
  const KvHandoff a = link.Send(2000, 1'000'000);
  const KvHandoff b = link.Send(2000, 1'000'000);
  EXPECT_EQ(a.queued_s, 0);
  EXPECT_NEAR(b.queued_s, a.wire_s, 1e-9);
  EXPECT_NEAR(b.transfer_s - a.transfer_s, a.wire_s, 1e-9);
  const KvHandoff later = link.Send(2000, 1'000'000'000);  // long after: the link is free again
  EXPECT_EQ(later.queued_s, 0);
  EXPECT_NEAR(later.transfer_s, a.transfer_s, 1e-9);
  EXPECT_EQ(link.stats().transfers, 3u);
  // On an NVL72 rack both roles share the NVLink domain; the backend's priors come with it.
  perfmodel::DeploymentOptions o;
  o.model = "llama-3.1-8b";
  o.hardware = "gb200";
  const auto nvl =
      WorkerHandoffModel(perfmodel::ResolveDeployment(perfmodel::DefaultEngineData(), o), "mooncake", "auto");
  EXPECT_EQ(nvl.link.kind, "nvlink");
  EXPECT_EQ(nvl.backend.name, "mooncake");
  EXPECT_THROW(WorkerHandoffModel(nvl.prefill, "carrier-pigeon", "auto"), InputError);
  EXPECT_THROW(WorkerHandoffModel(nvl.prefill, "nixl", "smoke-signals"), InputError);
}

// A decode worker told the KV arrives in transfer_s seconds sends nothing before then (real time
// at time scale 1), then streams every token; the same request without it computes the prompt.
TEST(DisaggDecode, WaitsTheModelledTransfer) {
  ServeProcess decode(Worker("decode", "1"), TempPath("decode.err"));
  ServeApi api(decode.port());
  const std::string ask = R"({"prompt":"hello there","max_tokens":4,"ignore_eos":true,"stream":true,)"
                          R"("stream_options":{"include_usage":true})";
  auto timed = [&](const std::string& body) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = api.Post("/v1/completions", body);
    EXPECT_EQ(r.head.status, 200) << r.body;
    EXPECT_NE(r.body.find("\"completion_tokens\":4"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find("data: [DONE]"), std::string::npos);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const double remote = timed(ask + R"(,"kv_transfer_params":{"do_remote_prefill":true,"transfer_s":0.6}})");
  const double local = timed(ask + "}");
  EXPECT_GE(remote, 0.6);
  EXPECT_LT(remote, 0.6 + 0.4);
  EXPECT_LT(local, 0.4);
  const auto bad = api.Post("/v1/completions", ask + R"(,"kv_transfer_params":{"transfer_s":-1}})");
  EXPECT_EQ(bad.head.status, 400);
  const std::string metrics = api.Get("/metrics").body;
  EXPECT_EQ(Metric(metrics, "infermark:engine_role", "role=\"decode\""), 1);
  // The remote prompt's tokens count as vLLM's decode workers count them: from the KV connector.
  const std::string source = "vllm:prompt_tokens_by_source_total";
  EXPECT_GT(Metric(metrics, source, "external_kv_transfer"), 0);
  EXPECT_EQ(Metric(metrics, source, "external_kv_transfer"), Metric(metrics, source, "local_compute"));
}

// Round robin takes the prefill workers in turn; kv-aware sends a repeated prompt back to the
// worker that computed it; the decode worker streams through the router unchanged.
TEST(DisaggRouter, SpreadsByPolicy) {
  ServeProcess p0(Worker("prefill", "0"), TempPath("p0.err"));
  ServeProcess p1(Worker("prefill", "0"), TempPath("p1.err"));
  ServeProcess d0(Worker("decode", "0"), TempPath("d0.err"));
  auto transfers = [](const ServeProcess& p) {
    return Metric(ServeApi(p.port()).Get("/metrics").body, "infermark:kv_transfers_total");
  };
  {
    auto router = Router({Url(p0), Url(p1)}, {Url(d0)}, "round-robin", "rr.err");
    ServeApi api(router->port());
    for (int i = 0; i < 4; ++i) {
      const auto r = api.Post("/v1/completions", R"({"prompt":"request )" + std::to_string(i) +
                                                     R"(","max_tokens":5,"ignore_eos":true,"stream":true})");
      ASSERT_EQ(r.head.status, 200) << r.body;
      EXPECT_EQ(r.body.substr(r.body.size() - 14), "data: [DONE]\n\n");
    }
    EXPECT_EQ(transfers(p0), 2);
    EXPECT_EQ(transfers(p1), 2);
    const std::string m = api.Get("/metrics").body;
    EXPECT_EQ(Metric(m, "infermark:router_requests_total", "worker=\"" + Url(d0) + "\""), 4);
    EXPECT_EQ(Metric(m, "infermark:router_prefill_seconds_count"), 4);
    EXPECT_EQ(Metric(m, "infermark:router_queue_requests"), 0);
    const json models = json::parse(api.Get("/v1/models").body);
    EXPECT_EQ(models["data"][0]["role"], "decode");
  }
  {
    auto router = Router({Url(p0), Url(p1)}, {Url(d0)}, "kv-aware", "kv.err");
    ServeApi api(router->port());
    const std::string shared(400, 'x');
    const double before0 = transfers(p0), before1 = transfers(p1);
    for (int i = 0; i < 4; ++i) {
      const auto r = api.Post("/v1/chat/completions", R"({"messages":[{"role":"user","content":")" + shared +
                                                          std::to_string(i) + R"("}],"max_tokens":2})");
      ASSERT_EQ(r.head.status, 200) << r.body;
      EXPECT_EQ(json::parse(r.body)["object"], "chat.completion");
    }
    // All four share a 400-byte prefix: one worker got them all.
    const double got0 = transfers(p0) - before0, got1 = transfers(p1) - before1;
    EXPECT_EQ(got0 + got1, 4);
    EXPECT_TRUE(got0 == 4 || got1 == 4) << got0 << " / " << got1;
  }
}

TEST(DisaggRouter, PolicyPicksUnderLoadAndPrefix) {
  WorkerPicker least(3, RoutePolicy::kLeastLoaded);
  EXPECT_EQ(least.Pick({2, 0, 1}, {}), 1u);
  EXPECT_EQ(least.Pick({0, 0, 0}, {}), 1u);  // equals: in turn
  WorkerPicker kv(2, RoutePolicy::kKvAware);
  const auto a = PromptBlocks(std::string(256, 'a'));
  const auto b = PromptBlocks(std::string(256, 'b'));
  EXPECT_EQ(a.size(), 4u);
  const std::size_t wa = kv.Pick({0, 0}, a);
  EXPECT_EQ(kv.Pick({5, 0}, a), wa);                              // the cached prefix beats the load
  EXPECT_NE(kv.Pick({wa == 0 ? 1 : 0, wa == 0 ? 0 : 1}, b), wa);  // nothing cached: the less loaded
  EXPECT_THROW(ParseRoutePolicy("random"), InputError);
}

// /health names the worker the router cannot reach, and a request through it fails with a 502
// naming it; a mistyped role or a worker URL on a worker is refused at start.
TEST(DisaggRouter, HealthNamesAnUnreachableWorker) {
  ServeProcess p0(Worker("prefill", "0"), TempPath("hp.err"));
  std::string dead;
  {
    ServeProcess gone(Worker("decode", "0"), TempPath("gone.err"));
    dead = Url(gone);
  }
  auto router = Router({Url(p0)}, {dead}, "round-robin", "health.err");
  ServeApi api(router->port());
  const auto health = api.Get("/health");
  EXPECT_EQ(health.head.status, 503);
  const json body = json::parse(health.body);
  EXPECT_EQ(body["unreachable"], json::array({dead}));
  EXPECT_NE(body["error"]["message"].get<std::string>().find("decode worker " + dead), std::string::npos);
  EXPECT_EQ(body["workers"][Url(p0)]["status"], "ok");
  const auto r = api.Post("/v1/completions", R"({"prompt":"hi","max_tokens":3,"stream":true})");
  EXPECT_EQ(r.head.status, 502);
  EXPECT_NE(json::parse(r.body)["error"]["message"].get<std::string>().find(dead), std::string::npos);
}

// A decode worker killed while it streams: the client's stream ends cleanly with an OpenAI error
// event naming it, and the router serves the next request through the other decode worker.
TEST(DisaggRouter, WorkerKilledMidStreamGivesACleanError) {
  ServeProcess p0(Worker("prefill", "0"), TempPath("kp.err"));
  auto d0 = std::make_unique<ServeProcess>(Worker("decode", "0.05"), TempPath("kd0.err"));
  ServeProcess d1(Worker("decode", "0"), TempPath("kd1.err"));
  const std::string victim = Url(*d0);
  auto router = Router({Url(p0)}, {victim, Url(d1)}, "round-robin", "kill.err");
  ServeApi api(router->port());
  std::promise<void> first;
  std::promise<std::pair<http::ClientResult, std::string>> done;
  auto body = std::make_shared<std::string>();
  bool signalled = false;
  http::ClientRequest r;
  r.target = "/v1/completions";
  r.body = R"({"prompt":"a long story","max_tokens":200,"ignore_eos":true,"stream":true})";
  http::StreamCallbacks cb;
  cb.on_body = [&, body](std::string_view data, std::int64_t) {
    body->append(data);
    if (!signalled && body->find("\n\n") != std::string::npos) {
      signalled = true;
      first.set_value();
    }
  };
  cb.on_complete = [&, body](const http::ClientResult& result) { done.set_value({result, *body}); };
  api.client().Send(std::move(r), std::move(cb));
  ASSERT_EQ(first.get_future().wait_for(std::chrono::seconds(60)), std::future_status::ready);
  d0.reset();  // SIGKILL
  auto ended = done.get_future();
  ASSERT_EQ(ended.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const auto [result, text] = ended.get();
  EXPECT_TRUE(result.ok()) << result.message;
  EXPECT_EQ(result.status, 200);
  const std::size_t error = text.rfind("data: {\"error\":");
  ASSERT_NE(error, std::string::npos) << text;
  const json event = json::parse(text.substr(error + 6));
  EXPECT_NE(event["error"]["message"].get<std::string>().find("decode worker " + victim), std::string::npos);
  EXPECT_EQ(event["error"]["code"], "worker_failed");
  const auto next = api.Post("/v1/completions", R"({"prompt":"again","max_tokens":3,"ignore_eos":true})");
  EXPECT_EQ(next.head.status, 200) << next.body;
  EXPECT_EQ(json::parse(next.body)["usage"]["completion_tokens"], 3);
  EXPECT_EQ(Metric(api.Get("/metrics").body, "infermark:router_worker_errors_total", "worker=\"" + victim + "\""), 1);
  EXPECT_EQ(api.Get("/health").head.status, 503);
}

// Bad role settings exit 2 before listening, with one message naming the flag.
TEST(DisaggCli, BadRoleSettingsAreRefusedNamingTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string flag;
  };
  const std::vector<Case> cases = {
      {{"--role", "sidecar", "--model", "llama-3.1-8b", "--hardware", "h100"}, "--role"},
      {{"--role", "router", "--model", "llama-3.1-8b", "--decode", "http://127.0.0.1:9"}, "--prefill"},
      {{"--role", "router", "--model", "m", "--prefill", "ftp://a", "--decode", "http://b:1"}, "--prefill"},
      {{"--role", "router", "--model", "m", "--prefill", "http://a:1", "--decode", "http://b:1", "--policy", "dice"},
       "--policy"},
      {{"--role", "prefill", "--model", "llama-3.1-8b"}, "--hardware"},
      {{"--role", "prefill", "--model", "llama-3.1-8b", "--hardware", "h100", "--kv-transfer", "pigeon"},
       "--kv-transfer"},
      {{"--role", "prefill", "--model", "llama-3.1-8b", "--hardware", "h100", "--kv-link", "smoke"}, "--kv-link"},
      {{"--model", "llama-3.1-8b", "--hardware", "h100", "--prefill", "http://a:1"}, "--prefill"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args{"engine", "serve", "--port", "0", "--tokenizer", "none"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = test::RunInfermark(args);
    EXPECT_EQ(r.exit_code, 2) << c.flag << ": " << r.err;
    EXPECT_NE(r.err.find(c.flag), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("listening"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace infermark::engine
