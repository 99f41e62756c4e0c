#include "loadgen/api_driver.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "http/sse_parser.hpp"

namespace infermark::loadgen {
namespace {

namespace dom = simdjson::dom;

// What one data event said.
struct EventFacts {
  bool has_choices = false;
  bool has_text = false;  // content, reasoning or completion text that is not empty
  bool has_usage = false;
  std::int64_t prompt_tokens = -1;
  std::int64_t completion_tokens = -1;
  bool is_error = false;
  std::string error{};
  std::string_view id{};  // valid until the next event is parsed
  // The built-in engine's model clock (`infermark_timing`: [arrival, pass end], virtual ns).
  std::optional<std::int64_t> model_arrival_ns{};
  std::optional<std::int64_t> model_ns{};
};

// simdjson reads up to SIMDJSON_PADDING bytes past the end of its input; the read buffer the
// event views has no such guarantee, so each event is copied once into this reused buffer. The
// DOM parser validates the whole event (a malformed one must fail its request) and picks the
// CPU's best kernels at run time.
struct EventParser {
  dom::parser parser;
  std::string buffer;
};

EventParser& ThreadParser() {
  thread_local EventParser p;
  return p;
}

// Each object is walked once, its keys compared as they come: one pass instead of a scan per
// looked-up key. A repeated key counts at its first occurrence, as a lookup would find it: Claim
// says whether `key` is `wanted` seen for the first time.
bool Claim(std::string_view key, std::string_view wanted, bool& seen) {
  if (seen || key != wanted) return false;
  seen = true;
  return true;
}

// The first value under `key` in `object`, when there is one.
bool FirstField(dom::object object, std::string_view key, dom::element& value) {
  for (const dom::key_value_pair field : object) {
    if (field.key == key) {
      value = field.value;
      return true;
    }
  }
  return false;
}

void ReadUsage(dom::element value, EventFacts& facts) {
  dom::object usage;
  if (value.get(usage) != simdjson::SUCCESS) return;  // null or absent
  facts.has_usage = true;
  bool prompt_seen = false;
  bool completion_seen = false;
  for (const dom::key_value_pair field : usage) {
    std::int64_t n = 0;
    if (Claim(field.key, "prompt_tokens", prompt_seen)) {
      if (field.value.get(n) == simdjson::SUCCESS) facts.prompt_tokens = n;
    } else if (Claim(field.key, "completion_tokens", completion_seen)) {
      if (field.value.get(n) == simdjson::SUCCESS) facts.completion_tokens = n;
    }
  }
}

// `[arrival, pass end]` in virtual ns; anything else is ignored (the field is infermark's own, and
// a server that is not the built-in engine has no business sending it).
void ReadTiming(dom::element value, EventFacts& facts) {
  dom::array pair;
  if (value.get(pair) != simdjson::SUCCESS || pair.size() != 2) return;
  std::int64_t arrival = 0;
  std::int64_t model = 0;
  if (pair.at(0).get(arrival) != simdjson::SUCCESS || pair.at(1).get(model) != simdjson::SUCCESS) return;
  facts.model_arrival_ns = arrival;
  facts.model_ns = model;
}

// Appends a string field's text; null or another type adds nothing.
void AppendText(dom::element value, std::string* text, bool& has_text) {
  std::string_view s;
  if (value.get(s) != simdjson::SUCCESS || s.empty()) return;
  has_text = true;
  if (text != nullptr) text->append(s);
}

void ReadChoice(dom::element choice, Api api, std::string* text, bool& has_text) {
  dom::object object;
  if (choice.get(object) != simdjson::SUCCESS) return;
  dom::element value;
  if (api == Api::kCompletions) {
    if (FirstField(object, "text", value)) AppendText(value, text, has_text);
    return;
  }
  dom::object delta;
  if (!FirstField(object, "delta", value) || value.get(delta) != simdjson::SUCCESS) return;
  bool content_seen = false;
  bool reasoning_content_seen = false;
  bool reasoning_seen = false;
  for (const dom::key_value_pair field : delta) {
    // Reasoning text starts the first-text clock but is not part of the answer's text.
    if (Claim(field.key, "content", content_seen)) {
      AppendText(field.value, text, has_text);
    } else if (Claim(field.key, "reasoning_content", reasoning_content_seen) ||
               Claim(field.key, "reasoning", reasoning_seen)) {
      AppendText(field.value, nullptr, has_text);
    }
  }
}

bool ParseEvent(std::string_view data, Api api, std::string* text, bool want_id, EventFacts& facts) {
  EventParser& p = ThreadParser();
  if (p.buffer.size() < data.size() + simdjson::SIMDJSON_PADDING)
    p.buffer.resize(data.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(p.buffer.data(), data.data(), data.size());
  dom::object object;
  if (p.parser.parse(p.buffer.data(), data.size(), false).get(object) != simdjson::SUCCESS) return false;
  const std::string_view choices_key = api == Api::kTrtLlm ? "text_output" : "choices";
  bool choices_seen = false;
  bool id_seen = !want_id;
  bool usage_seen = false;
  bool error_seen = false;
  bool timing_seen = false;
  for (const dom::key_value_pair field : object) {
    if (Claim(field.key, choices_key, choices_seen)) {
      if (api == Api::kTrtLlm) {
        facts.has_choices = true;
        AppendText(field.value, text, facts.has_text);
        continue;
      }
      dom::array choices;
      if (field.value.get(choices) == simdjson::SUCCESS) {
        for (const dom::element first : choices) {
          facts.has_choices = true;
          ReadChoice(first, api, text, facts.has_text);
          break;
        }
      }
    } else if (Claim(field.key, "id", id_seen)) {
      std::string_view id;
      if (field.value.get(id) == simdjson::SUCCESS) facts.id = id;
    } else if (Claim(field.key, "usage", usage_seen)) {
      ReadUsage(field.value, facts);
    } else if (Claim(field.key, "error", error_seen)) {
      facts.is_error = true;
      facts.error = simdjson::minify(field.value);
    } else if (Claim(field.key, "infermark_timing", timing_seen)) {
      ReadTiming(field.value, facts);
    }
  }
  return true;
}

}  // namespace

std::optional<Api> ApiOfBackend(std::string_view backend) {
  if (backend == "vllm" || backend == "sglang" || backend == "openai" || backend == "lmdeploy" ||
      backend == "scalellm") {
    return Api::kCompletions;
  }
  if (backend == "openai-chat") return Api::kChatCompletions;
  if (backend == "tensorrt-llm") return Api::kTrtLlm;
  return std::nullopt;
}

std::string DefaultEndpoint(Api api) {
  switch (api) {
    case Api::kChatCompletions:
      return "/v1/chat/completions";
    case Api::kTrtLlm:
      return "/v2/models/ensemble/generate_stream";
    case Api::kCompletions:
      break;
  }
  return "/v1/completions";
}

std::string BuildRequestBody(Api api, const BodyOptions& o, const Prompt& prompt) {
  nlohmann::ordered_json body;
  const auto stream_options = [&o] {
    nlohmann::ordered_json s;
    s["include_usage"] = true;
    if (o.continuous_usage_stats) s["continuous_usage_stats"] = true;
    return s;
  };
  switch (api) {
    case Api::kCompletions:
      body["model"] = o.model;
      if (o.send_token_ids && !prompt.ids.empty()) {
        body["prompt"] = prompt.ids;
      } else {
        body["prompt"] = prompt.text;
      }
      body["temperature"] = 0.0;
      body["best_of"] = o.best_of;
      body["max_tokens"] = prompt.output_len;
      body["logprobs"] = o.logprobs ? nlohmann::ordered_json(*o.logprobs) : nlohmann::ordered_json(nullptr);
      body["stream"] = true;
      body["stream_options"] = stream_options();
      if (o.ignore_eos) body["ignore_eos"] = true;
      break;
    case Api::kChatCompletions:
      body["model"] = o.model;
      if (!prompt.messages_json.empty()) {
        // The conversation is spliced in as it is (a replay's 200k-token history is megabytes of
        // JSON: parsing and dumping it again would cost milliseconds on the send path).
        body["messages"] = nullptr;
        body["temperature"] = 0.0;
        body["max_completion_tokens"] = prompt.output_len;
        body["stream"] = true;
        body["stream_options"] = stream_options();
        if (o.ignore_eos) body["ignore_eos"] = true;
        std::string text = body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
        const std::string hole = "\"messages\":null";
        const std::size_t at = text.find(hole);
        std::string out;
        out.reserve(text.size() + prompt.messages_json.size());
        out.append(text, 0, at + hole.size() - 4);
        out += prompt.messages_json;
        out.append(text, at + hole.size(), std::string::npos);
        return out;
      } else {
        body["messages"] = nlohmann::ordered_json::array({{{"role", "user"}, {"content", prompt.text}}});
      }
      body["temperature"] = 0.0;
      body["max_completion_tokens"] = prompt.output_len;
      body["stream"] = true;
      body["stream_options"] = stream_options();
      if (o.ignore_eos) body["ignore_eos"] = true;
      break;
    case Api::kTrtLlm:
      body["accumulate_tokens"] = true;
      body["text_input"] = prompt.text;
      body["temperature"] = 0.0;
      body["top_p"] = 1.0;
      body["max_tokens"] = prompt.output_len;
      body["stream"] = true;
      if (o.ignore_eos) body["min_length"] = prompt.output_len;
      break;
  }
  return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

struct StreamRecorder::Impl {
  Api api;
  RequestTracker& tracker;
  http::SseParser sse{};
  int status = 0;
  bool malformed = false;
  std::string malformed_reason{};
  bool error_event = false;
  std::string error_text{};
  bool id_seen = false;
  std::int64_t last_ns = 0;
  std::string answer{};  // the current event's answer text, when the tracker keeps text

  void OnEvent(const http::SseEvent& event, std::int64_t t) {
    if (malformed || event.data.empty() || event.IsDone()) return;
    EventFacts facts;
    std::string* text = nullptr;
    if (tracker.keeps_text()) {
      answer.clear();
      text = &answer;
    }
    if (!ParseEvent(event.data, api, text, !id_seen, facts)) {
      malformed = true;
      malformed_reason = "an SSE event is not a JSON object: " + std::string(event.data.substr(0, 200));
      return;
    }
    if (facts.is_error) {
      error_event = true;
      error_text = facts.error.substr(0, 500);
    }
    if (!id_seen && !facts.id.empty()) {
      tracker.ResponseId(facts.id);
      id_seen = true;
    }
    Chunk chunk;
    chunk.at_ns = t;
    chunk.choice = facts.has_choices;
    // The reference's chat handler moves its latency end on every data event, usage included.
    chunk.moves_end = api == Api::kChatCompletions;
    chunk.text = facts.has_text;
    if (facts.completion_tokens >= 0) chunk.tokens_so_far = static_cast<std::uint32_t>(facts.completion_tokens);
    chunk.model_ns = facts.model_ns;
    chunk.model_arrival_ns = facts.model_arrival_ns;
    if (text != nullptr) chunk.answer = answer;
    tracker.OnChunk(chunk);
    if (facts.has_usage) {
      tracker.Usage(facts.prompt_tokens >= 0 ? std::optional<std::int64_t>(facts.prompt_tokens) : std::nullopt,
                    facts.completion_tokens >= 0 ? std::optional<std::int64_t>(facts.completion_tokens) : std::nullopt);
    }
  }
};

StreamRecorder::StreamRecorder(Api api, RequestTracker& tracker) : impl_(std::make_unique<Impl>(Impl{api, tracker})) {}

StreamRecorder::~StreamRecorder() = default;

void StreamRecorder::OnHead(const http::ResponseHead& head) {
  impl_->status = head.status;
  impl_->tracker.Status(head.status);
}

void StreamRecorder::OnBody(std::string_view data, std::int64_t received_ns) {
  if (impl_->status != 200) return;  // an error body is not an event stream
  Impl& impl = *impl_;
  // Kernel arrival times are moved from the real-time to the monotonic clock with an offset read
  // at each read, whose jitter (microseconds, more if the thread is preempted between the two clock
  // reads) can put a read before the previous one. Bytes cannot arrive before earlier bytes.
  received_ns = std::max(received_ns, impl.last_ns);
  impl.last_ns = received_ns;
  impl.sse.Feed(data, [&impl, received_ns](const http::SseEvent& event) { impl.OnEvent(event, received_ns); });
}

void StreamRecorder::Finish(const http::ClientResult& result) {
  Impl& impl = *impl_;
  RequestTracker& tracker = impl.tracker;
  if (result.sent_ns != 0) tracker.Sent(result.sent_ns);
  tracker.Status(result.status);
  const bool framing_ok = impl.sse.Finish();
  RequestEnd end;
  end.done_ns = result.done_ns;
  auto fail = [&end](std::string kind, std::string why) {
    end.error_kind = std::move(kind);
    end.error = std::move(why);
  };
  if (!result.ok()) {
    fail(std::string(http::ErrorKindName(result.error)), result.message);
  } else if (result.status != 200) {
    fail("http_status",
         "HTTP " + std::to_string(result.status) + (result.message.empty() ? "" : ": " + result.message));
  } else if (impl.malformed) {
    fail("malformed_sse", impl.malformed_reason);
  } else if (impl.error_event) {
    fail("server_error_event", "the stream carried an error event: " + impl.error_text);
  } else if (impl.sse.Failed()) {
    fail("malformed_sse", "an SSE event outgrew the parser's limit");
  } else if (!framing_ok) {
    fail("truncated_sse", "the stream ended inside an SSE event");
  }
  tracker.Done(end);
}

}  // namespace infermark::loadgen
