#include "http/url.hpp"

#include <charconv>

namespace infermark::http {
namespace {

std::optional<Url> Fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return std::nullopt;
}

}  // namespace

std::optional<Url> ParseUrl(std::string_view text, std::string* error) {
  Url url;
  if (text.substr(0, 7) == "http://") {
    text.remove_prefix(7);
  } else if (text.substr(0, 8) == "https://") {
    url.tls = true;
    text.remove_prefix(8);
  } else {
    return Fail(error, "URL must start with http:// or https://");
  }
  const std::size_t path_start = text.find_first_of("/?#");
  std::string_view authority = text.substr(0, path_start);
  std::string_view rest = path_start == std::string_view::npos ? std::string_view() : text.substr(path_start);
  rest = rest.substr(0, rest.find('#'));
  if (authority.find('@') != std::string_view::npos) return Fail(error, "URL must not hold user info");
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return Fail(error, "unclosed '[' in URL host");
    url.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return Fail(error, "unexpected text after ']' in URL host");
      port_text = after.substr(1);
    }
  } else {
    const std::size_t colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (url.host.empty()) return Fail(error, "URL has no host");
  url.port = url.tls ? 443 : 80;
  if (!port_text.empty()) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), value);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || value == 0 || value > 65535) {
      return Fail(error, "bad port in URL: " + std::string(port_text));
    }
    url.port = static_cast<std::uint16_t>(value);
  }
  url.target = rest.empty() || rest.front() != '/' ? "/" + std::string(rest) : std::string(rest);
  return url;
}

}  // namespace infermark::http
