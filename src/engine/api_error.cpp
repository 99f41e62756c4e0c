#include "engine/api_error.hpp"

#include <nlohmann/json.hpp>

namespace infermark::engine {

std::string ErrorBody(const ApiError& error) {
  nlohmann::ordered_json e;
  e["message"] = error.message;
  e["type"] = error.type;
  e["param"] = error.param.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(error.param);
  e["code"] = error.code.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(error.code);
  nlohmann::ordered_json body;
  body["error"] = std::move(e);
  // Invalid UTF-8 echoed from a request is replaced rather than thrown on.
  return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace infermark::engine
