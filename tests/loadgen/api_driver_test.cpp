// Stream parsing rules per API, fed byte streams split at awkward places.
#include "loadgen/api_driver.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace infermark::loadgen {
namespace {

http::ClientResult Ok() {
  http::ClientResult r;
  r.status = 200;
  r.sent_ns = 1000;
  r.done_ns = 9000;
  return r;
}

// Counts the tracker's calls to the listener.
struct Listener final : RequestListener {
  int freed = 0;
  int closed = 0;
  void OnFreed(std::size_t, std::int64_t) override { ++freed; }
  void OnClosed(std::size_t) override { ++closed; }
};

metrics::RequestRecord Feed(Api api, const std::string& body, int status = 200, http::ClientResult result = Ok()) {
  metrics::RequestRecord record;
  Listener listener;
  RequestTracker tracker(record, listener, 0, true);
  StreamRecorder recorder(api, tracker);
  http::ResponseHead head;
  head.status = status;
  recorder.OnHead(head);
  // One byte per read at times 2000, 2001, … so each event gets the time of its last byte.
  for (std::size_t i = 0; i < body.size(); ++i) {
    recorder.OnBody(std::string_view(body).substr(i, 1), 2000 + static_cast<std::int64_t>(i));
  }
  result.status = status;
  recorder.Finish(result);
  EXPECT_EQ(listener.freed, 1);
  EXPECT_EQ(listener.closed, 1);
  return record;
}

TEST(ApiDriver, CompletionsTimelineAndUsage) {
  const std::string body =
      "data: {\"choices\":[{\"text\":\"\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}\n\n"
      "data: {\"choices\":[{\"text\":\"Hi\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":3}}\n\n"
      "data: [DONE]\n\n";
  const auto r = Feed(Api::kCompletions, body);
  ASSERT_TRUE(r.success) << r.error;
  ASSERT_EQ(r.chunk_ns.size(), 2u);
  const auto first_end = static_cast<std::int64_t>(2000 + body.find("\n\n") + 1);
  EXPECT_EQ(r.first_chunk_ns, first_end);  // an empty text chunk still starts the reference's TTFT
  EXPECT_EQ(r.first_text_ns, r.chunk_ns[1]);
  EXPECT_EQ(r.end_ns, r.chunk_ns[1]);  // the usage-only chunk does not move the completions end
  EXPECT_EQ(r.chunk_tokens, (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(r.server_output_tokens, 3);
  EXPECT_EQ(r.server_prompt_tokens, 5);
  EXPECT_EQ(r.generated_text, "Hi");
  EXPECT_EQ(r.sent_ns, 1000);
}

TEST(ApiDriver, ChatRoleOnlyChunkStartsTtftAndUsageMovesTheEnd) {
  const std::string body =
      "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\r\n\r\n"
      "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"hmm\"}}]}\r\n\r\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"A\"}}]}\r\n\r\n"
      "data: {\"choices\":[],\"usage\":{\"completion_tokens\":2}}\r\n\r\n";
  const auto r = Feed(Api::kChatCompletions, body);
  ASSERT_TRUE(r.success) << r.error;
  EXPECT_EQ(r.chunk_ns.size(), 3u);
  EXPECT_LT(r.first_chunk_ns, r.first_text_ns);  // role-only first, reasoning text second
  EXPECT_EQ(r.first_text_ns, r.chunk_ns[1]);
  EXPECT_GT(r.end_ns, r.chunk_ns[2]);   // the reference's chat end includes the usage chunk
  EXPECT_TRUE(r.chunk_tokens.empty());  // no per-chunk usage
  EXPECT_EQ(r.generated_text, "A");
}

TEST(ApiDriver, FailureReasons) {
  EXPECT_EQ(Feed(Api::kCompletions, "data: {not json}\n\n").error_kind, "malformed_sse");
  EXPECT_EQ(Feed(Api::kCompletions, "data: {\"choices\":[{\"text\":\"a\"}]} x\n\n").error_kind, "malformed_sse");
  EXPECT_EQ(Feed(Api::kCompletions, "data: {\"error\":{\"message\":\"boom\"}}\n\n").error_kind, "server_error_event");
  EXPECT_EQ(Feed(Api::kCompletions, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"cho").error_kind,
            "truncated_sse");
  EXPECT_EQ(Feed(Api::kCompletions, "data: [DONE]\n\n").error_kind, "no_chunks");
  EXPECT_EQ(Feed(Api::kCompletions, "{\"error\":\"overloaded\"}", 503).error_kind, "http_status");
  http::ClientResult reset = Ok();
  reset.error = http::ErrorKind::kTruncated;
  reset.message = "connection closed mid-body";
  const auto r = Feed(Api::kCompletions, "data: {\"choices\":[{\"text\":\"a\"}]}\n\n", 200, reset);
  EXPECT_FALSE(r.success);
  EXPECT_EQ(r.error_kind, "truncated");
  EXPECT_EQ(r.chunk_ns.size(), 1u);  // what arrived is kept
}

TEST(ApiDriver, OddShapesReadAsALookupWould) {
  // A repeated key counts at its first occurrence; choices that are not objects, a chat choice
  // without a delta and a non-string text carry no text but still count as choice chunks.
  const auto dup = Feed(Api::kCompletions,
                        "data: {\"choices\":[{\"text\":\"a\",\"text\":\"b\"}],\"usage\":{\"completion_tokens\":1,"
                        "\"completion_tokens\":9},\"usage\":{\"completion_tokens\":7}}\n\n");
  ASSERT_TRUE(dup.success) << dup.error;
  EXPECT_EQ(dup.generated_text, "a");
  EXPECT_EQ(dup.server_output_tokens, 1);
  const auto odd = Feed(Api::kCompletions, "data: {\"choices\":[3]}\n\ndata: {\"choices\":[{\"text\":5}]}\n\n");
  ASSERT_TRUE(odd.success) << odd.error;
  EXPECT_EQ(odd.chunk_ns.size(), 2u);
  EXPECT_FALSE(odd.first_text_ns.has_value());
  const auto no_delta = Feed(Api::kChatCompletions,
                             "data: {\"choices\":[{\"index\":0}]}\n\ndata: {\"choices\":[{\"delta\":null}]}\n\n"
                             "data: {\"choices\":[{\"delta\":{\"reasoning\":\"r\",\"content\":\"c\"}}]}\n\n");
  ASSERT_TRUE(no_delta.success) << no_delta.error;
  EXPECT_EQ(no_delta.chunk_ns.size(), 3u);
  EXPECT_EQ(no_delta.first_text_ns, no_delta.chunk_ns[2]);
  EXPECT_EQ(no_delta.generated_text, "c");
  const auto trt = Feed(Api::kTrtLlm, "data: {\"text_output\":\"x\",\"text_output\":\"y\"}\n\n");
  ASSERT_TRUE(trt.success) << trt.error;
  EXPECT_EQ(trt.generated_text, "x");
}

TEST(ApiDriver, ArrivalTimesNeverGoBackwards) {
  metrics::RequestRecord record;
  Listener listener;
  RequestTracker tracker(record, listener, 0, false);
  StreamRecorder recorder(Api::kCompletions, tracker);
  http::ResponseHead head;
  head.status = 200;
  recorder.OnHead(head);
  recorder.OnBody("data: {\"choices\":[{\"text\":\"a\"}]}\n\n", 5000);
  recorder.OnBody("data: {\"choices\":[{\"text\":\"b\"}]}\n\n", 4990);  // clock-offset jitter
  recorder.Finish(Ok());
  EXPECT_EQ(record.chunk_ns, (std::vector<std::int64_t>{5000, 5000}));
}

TEST(ApiDriver, BodiesFollowTheReference) {
  Prompt p;
  p.text = "hello";
  p.ids = {1, 2, 3};
  p.output_len = 7;
  BodyOptions o;
  o.model = "m";
  o.ignore_eos = true;
  auto j = nlohmann::json::parse(BuildRequestBody(Api::kCompletions, o, p));
  EXPECT_EQ(j["prompt"], "hello");
  EXPECT_EQ(j["max_tokens"], 7);
  EXPECT_EQ(j["temperature"], 0.0);
  EXPECT_EQ(j["best_of"], 1);
  EXPECT_TRUE(j["logprobs"].is_null());
  EXPECT_EQ(j["stream_options"]["include_usage"], true);
  EXPECT_EQ(j["ignore_eos"], true);
  o.send_token_ids = true;
  EXPECT_EQ(nlohmann::json::parse(BuildRequestBody(Api::kCompletions, o, p))["prompt"], nlohmann::json({1, 2, 3}));
  j = nlohmann::json::parse(BuildRequestBody(Api::kChatCompletions, o, p));
  EXPECT_EQ(j["messages"][0]["content"], "hello");
  EXPECT_EQ(j["max_completion_tokens"], 7);
  EXPECT_EQ(ApiOfBackend("sglang"), Api::kCompletions);
  EXPECT_FALSE(ApiOfBackend("tgi").has_value());
}

}  // namespace
}  // namespace infermark::loadgen
