// The serving APIs the load generator speaks over HTTP: how a request body is built and how its
// streamed response is read into a RequestTracker's chunks, with the reference client's rules for
// which events carry a choice per backend. Parsing runs on the event loop as bytes arrive
// (simdjson), keeps nothing but what the tracker records, and never throws: a bad stream is a
// failed request with a reason.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "http/client_request.hpp"
#include "loadgen/dataset.hpp"
#include "loadgen/request_tracker.hpp"

namespace infermark::loadgen {

/// Wire protocols.
enum class Api {
  kCompletions,      ///< OpenAI /v1/completions (backends vllm, sglang, openai, lmdeploy, scalellm).
  kChatCompletions,  ///< OpenAI /v1/chat/completions (backend openai-chat).
  kTrtLlm,           ///< TensorRT-LLM /generate_stream (backend tensorrt-llm).
};

/// The API of a --backend name; nullopt for a backend that cannot be driven.
std::optional<Api> ApiOfBackend(std::string_view backend);

/// The path a backend posts to when --endpoint is not given.
std::string DefaultEndpoint(Api api);

/// What every request body carries besides the prompt.
struct BodyOptions {
  std::string model{};                 ///< `model` field (--served-model-name, else --model).
  bool ignore_eos = false;             ///< --ignore-eos.
  int best_of = 1;                     ///< --best-of (completions).
  std::optional<int> logprobs{};       ///< --logprobs (completions); null when absent.
  bool send_token_ids = false;         ///< Completions: send the prompt's token ids instead of its text.
  bool continuous_usage_stats = true;  ///< Ask for usage on every chunk (token counts per chunk).
};

/// The JSON body of one request.
std::string BuildRequestBody(Api api, const BodyOptions& options, const Prompt& prompt);

/// Reads one streamed response into its tracker. Feed it the response head and body as they
/// arrive, then Finish with how the request ended.
class StreamRecorder {
 public:
  /// Reports to `tracker` (which must outlive this); the answer's text is passed on when the
  /// tracker keeps text (for the client's own token count and --save-detailed).
  StreamRecorder(Api api, RequestTracker& tracker);
  ~StreamRecorder();
  StreamRecorder(const StreamRecorder&) = delete;
  StreamRecorder& operator=(const StreamRecorder&) = delete;

  /// The response head arrived.
  void OnHead(const http::ResponseHead& head);
  /// Body bytes that arrived at `received_ns` (taken at the socket read, before parsing).
  void OnBody(std::string_view data, std::int64_t received_ns);
  /// The request ended; decides the failure reason, if any, and closes the tracker.
  void Finish(const http::ClientResult& result);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infermark::loadgen
