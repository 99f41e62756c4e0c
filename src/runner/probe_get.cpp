#include "runner/probe_get.hpp"

#include <chrono>
#include <cstdint>
#include <utility>

namespace infermark::runner {

http::FetchResult ProbeGet(const std::string& host, int port, const std::string& target) {
  http::ClientOptions co;
  co.host = host;
  co.port = static_cast<std::uint16_t>(port);
  co.connect_timeout = std::chrono::milliseconds(1000);
  co.kernel_timestamps = false;
  http::Client client(co);
  http::ClientRequest request;
  request.method = "GET";
  request.target = target;
  request.content_type.clear();
  request.timeout = std::chrono::milliseconds(2000);
  return client.Fetch(std::move(request));
}

}  // namespace infermark::runner
