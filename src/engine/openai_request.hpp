// Reading an OpenAI completions or chat-completions request body into what the engine needs:
// the prompt (text, token ids or chat messages), output limits and streaming options. Wrong JSON
// or wrong types become an ApiError (400) naming the field; nothing here throws on bad input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/api_error.hpp"
#include "engine/chat_template.hpp"

namespace infermark::engine {

/// Which endpoint a request came to.
enum class Endpoint {
  kCompletions,  ///< POST /v1/completions
  kChat,         ///< POST /v1/chat/completions
};

/// A request the engine can serve.
struct ApiRequest {
  Endpoint endpoint = Endpoint::kCompletions;  ///< Where it came.
  std::string model;                           ///< `model` (empty when absent).
  bool stream = false;                         ///< `stream`.
  bool include_usage = false;                  ///< `stream_options.include_usage`.
  bool continuous_usage = false;               ///< `stream_options.continuous_usage_stats`.
  std::optional<std::int64_t> max_tokens;      ///< `max_tokens` (chat: or `max_completion_tokens`).
  std::int64_t min_tokens = 0;                 ///< `min_tokens`.
  bool ignore_eos = false;                     ///< `ignore_eos`.
  std::optional<std::uint64_t> seed;           ///< `seed`.
  std::string prompt_text;                     ///< Completions: the prompt; chat: the rendered messages.
  bool prompt_is_ids = false;                  ///< The prompt came as token ids.
  std::vector<std::uint32_t> prompt_ids;       ///< Those ids.
  std::int64_t max_prompt_id = -1;             ///< Largest id given (checked against the vocabulary later).
};

/// Parses `body` for `endpoint`.
std::variant<ApiRequest, ApiError> ParseApiRequest(std::string_view body, Endpoint endpoint);

}  // namespace infermark::engine
