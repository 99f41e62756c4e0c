// OpenAI-style errors of the built-in engine's HTTP API: `{"error":{"message","type","param","code"}}`
// with the status code a client expects (400 bad request, 404 unknown model or path, 405 wrong
// method, 429 queue full).
#pragma once

#include <string>

namespace infermark::engine {

/// One error answer.
struct ApiError {
  int status = 400;                            ///< HTTP status.
  std::string message;                         ///< For people.
  std::string type = "invalid_request_error";  ///< OpenAI error type.
  std::string param;                           ///< Offending request field (empty: null).
  std::string code;                            ///< Machine-readable code (empty: null).
};

/// The JSON body of `error`.
std::string ErrorBody(const ApiError& error);

}  // namespace infermark::engine
