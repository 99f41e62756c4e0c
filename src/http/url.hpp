// Splitting a base URL such as `http://localhost:8000/v1` into what the client connects to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace infermark::http {

/// The parts of an http or https URL the client needs.
struct Url {
  bool tls = false;        ///< Scheme is https.
  std::string host{};      ///< Host name or address (IPv6 without the brackets).
  std::uint16_t port = 0;  ///< Explicit port, else 80 or 443.
  std::string target{};    ///< Path and query; "/" when the URL has none.
};

/// Parses `http[s]://host[:port][/path][?query]`. Returns nullopt and sets `*error` (when given)
/// for any other form: another scheme, user info, an empty host, a bad port.
std::optional<Url> ParseUrl(std::string_view text, std::string* error = nullptr);

}  // namespace infermark::http
