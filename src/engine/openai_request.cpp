#include "engine/openai_request.hpp"

#include <limits>
#include <nlohmann/json.hpp>

namespace infermark::engine {
namespace {

using Json = nlohmann::json;

ApiError ApiBad(std::string message, std::string param = {}) {
  ApiError e;
  e.message = std::move(message);
  e.param = std::move(param);
  return e;
}

// Reads an optional integer field; false (with `error` set) when present with another type.
bool ReadInt(const Json& j, const char* key, std::optional<std::int64_t>& out, ApiError& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_number_integer()) {
    error = ApiBad(std::string("'") + key + "' must be an integer", key);
    return false;
  }
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())) {
    error = ApiBad(std::string("'") + key + "' is too large", key);
    return false;
  }
  out = it->get<std::int64_t>();
  return true;
}

bool ReadBool(const Json& j, const char* key, bool& out, ApiError& error, const char* path = nullptr) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_boolean()) {
    error = ApiBad(std::string("'") + (path ? path : key) + "' must be a boolean", path ? path : key);
    return false;
  }
  out = it->get<bool>();
  return true;
}

// A token id array: every element a non-negative integer below 2^32.
bool ReadIds(const Json& array, std::vector<std::uint32_t>& ids, std::int64_t& max_id) {
  ids.reserve(array.size());
  for (const Json& v : array) {
    if (!v.is_number_integer()) return false;
    const std::int64_t id = v.is_number_unsigned() && v.get<std::uint64_t>() > 0xFFFFFFFFu ? -1 : v.get<std::int64_t>();
    if (id < 0 || id > 0xFFFFFFFFLL) return false;
    ids.push_back(static_cast<std::uint32_t>(id));
    max_id = std::max(max_id, id);
  }
  return true;
}

bool ReadPrompt(const Json& j, ApiRequest& r, ApiError& error) {
  const auto it = j.find("prompt");
  if (it == j.end() || it->is_null()) {
    error = ApiBad("'prompt' is required", "prompt");
    return false;
  }
  const Json& p = *it;
  if (p.is_string()) {
    r.prompt_text = p.get<std::string>();
    return true;
  }
  if (p.is_array()) {
    // One prompt per request: a string in a list, a list of ids, or one list of ids in a list.
    if (p.size() == 1 && p[0].is_string()) {
      r.prompt_text = p[0].get<std::string>();
      return true;
    }
    const Json* ids = &p;
    if (p.size() == 1 && p[0].is_array()) ids = &p[0];
    if (!ids->empty() && (*ids)[0].is_array()) {
      error = ApiBad("batched prompts are not supported: send one prompt per request", "prompt");
      return false;
    }
    if (!ids->empty() && (*ids)[0].is_string()) {
      error = ApiBad("batched prompts are not supported: send one prompt per request", "prompt");
      return false;
    }
    if (!ReadIds(*ids, r.prompt_ids, r.max_prompt_id)) {
      error = ApiBad("'prompt' must be a string or an array of token ids (non-negative integers)", "prompt");
      return false;
    }
    r.prompt_is_ids = true;
    return true;
  }
  error = ApiBad("'prompt' must be a string or an array of token ids", "prompt");
  return false;
}

bool ReadMessages(const Json& j, ApiRequest& r, ApiError& error) {
  const auto it = j.find("messages");
  if (it == j.end() || !it->is_array() || it->empty()) {
    error = ApiBad("'messages' must be a non-empty array", "messages");
    return false;
  }
  std::vector<ChatMessage> messages;
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& m = (*it)[i];
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) {
      error = ApiBad("'" + at + "' must be an object", at);
      return false;
    }
    ChatMessage message;
    const auto role = m.find("role");
    if (role == m.end() || !role->is_string()) {
      error = ApiBad("'" + at + ".role' must be a string", at + ".role");
      return false;
    }
    message.role = role->get<std::string>();
    const auto content = m.find("content");
    if (content != m.end() && content->is_string()) {
      message.content = content->get<std::string>();
    } else if (content != m.end() && content->is_array()) {
      // Content parts: the text parts, joined with newlines; other kinds (images) carry no text here.
      for (const Json& part : *content) {
        if (!part.is_object()) {
          error = ApiBad("'" + at + ".content' parts must be objects", at + ".content");
          return false;
        }
        const auto text = part.find("text");
        if (text == part.end()) continue;
        if (!text->is_string()) {
          error = ApiBad("'" + at + ".content[].text' must be a string", at + ".content");
          return false;
        }
        if (!message.content.empty()) message.content += '\n';
        message.content += text->get<std::string>();
      }
    } else if (content != m.end() && !content->is_null()) {
      error = ApiBad("'" + at + ".content' must be a string or an array of parts", at + ".content");
      return false;
    }
    messages.push_back(std::move(message));
  }
  r.prompt_text = RenderChatPrompt(messages);
  return true;
}

}  // namespace

std::variant<ApiRequest, ApiError> ParseApiRequest(std::string_view body, Endpoint endpoint) {
  const Json j = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return ApiBad("the request body is not valid JSON");
  if (!j.is_object()) return ApiBad("the request body must be a JSON object");
  ApiRequest r;
  r.endpoint = endpoint;
  ApiError error;
  if (const auto it = j.find("model"); it != j.end() && !it->is_null()) {
    if (!it->is_string()) return ApiBad("'model' must be a string", "model");
    r.model = it->get<std::string>();
  }
  if (!ReadBool(j, "stream", r.stream, error)) return error;
  if (const auto it = j.find("stream_options"); it != j.end() && !it->is_null()) {
    if (!it->is_object()) return ApiBad("'stream_options' must be an object", "stream_options");
    if (!r.stream) return ApiBad("'stream_options' is only allowed when 'stream' is true", "stream_options");
    if (!ReadBool(*it, "include_usage", r.include_usage, error, "stream_options.include_usage")) return error;
    if (!ReadBool(*it, "continuous_usage_stats", r.continuous_usage, error, "stream_options.continuous_usage_stats"))
      return error;
  }
  if (!ReadInt(j, "max_tokens", r.max_tokens, error)) return error;
  if (endpoint == Endpoint::kChat) {
    std::optional<std::int64_t> mct;
    if (!ReadInt(j, "max_completion_tokens", mct, error)) return error;
    if (mct) r.max_tokens = mct;
  }
  if (r.max_tokens && *r.max_tokens < 1) return ApiBad("'max_tokens' must be at least 1", "max_tokens");
  std::optional<std::int64_t> min_tokens;
  if (!ReadInt(j, "min_tokens", min_tokens, error)) return error;
  r.min_tokens = min_tokens.value_or(0);
  if (r.min_tokens < 0) return ApiBad("'min_tokens' must be non-negative", "min_tokens");
  if (r.max_tokens && r.min_tokens > *r.max_tokens)
    return ApiBad("'min_tokens' must not exceed 'max_tokens'", "min_tokens");
  if (!ReadBool(j, "ignore_eos", r.ignore_eos, error)) return error;
  std::optional<std::int64_t> seed;
  if (!ReadInt(j, "seed", seed, error)) return error;
  if (seed) r.seed = static_cast<std::uint64_t>(*seed);
  std::optional<std::int64_t> n;
  if (!ReadInt(j, "n", n, error)) return error;
  if (n && *n != 1) return ApiBad("only n = 1 is supported", "n");
  const bool ok = endpoint == Endpoint::kChat ? ReadMessages(j, r, error) : ReadPrompt(j, r, error);
  if (!ok) return error;
  return r;
}

}  // namespace infermark::engine
