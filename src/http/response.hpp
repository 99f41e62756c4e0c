// A complete (non-streaming) response, as a handler hands it to the server.
#pragma once

#include <string>

#include "http/headers.hpp"

namespace infermark::http {

/// A response sent in one piece with a Content-Length.
struct Response {
  int status = 200;                               ///< Status code, e.g. 200, 404, 503.
  std::string content_type = "application/json";  ///< Content-Type; empty sends none.
  std::string body{};                             ///< The whole body.
  Headers headers{};  ///< Extra fields; the server writes Content-Type, Content-Length and Connection itself.
};

}  // namespace infermark::http
