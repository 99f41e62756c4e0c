// Black-box helper: an HTTP client for one `infermark engine serve` on loopback, with a
// two-minute request timeout, that posts JSON bodies and gets paths.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "http/client.hpp"

namespace infermark::test {

/// A client for one server.
class ServeApi {
 public:
  /// Connects (lazily) to 127.0.0.1:`port`.
  explicit ServeApi(std::uint16_t port) : client_(Options(port)) {}
  /// POSTs the JSON `body` to `path` and waits for the whole answer.
  http::FetchResult Post(const std::string& path, const std::string& body) {
    http::ClientRequest r;
    r.target = path;
    r.body = body;
    return client_.Fetch(std::move(r));
  }
  /// GETs `path` and waits for the whole answer.
  http::FetchResult Get(const std::string& path) {
    http::ClientRequest r;
    r.method = "GET";
    r.target = path;
    r.content_type.clear();
    return client_.Fetch(std::move(r));
  }
  /// The client itself, for streamed requests.
  http::Client& client() { return client_; }

 private:
  static http::ClientOptions Options(std::uint16_t port) {
    http::ClientOptions o;
    o.port = port;
    o.request_timeout = std::chrono::minutes(2);
    return o;
  }
  http::Client client_;
};

}  // namespace infermark::test
