// Header fields as plain strings, shared by requests and responses on both sides.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::http {

/// One header field.
struct Header {
  std::string name{};   ///< Field name as received or to be sent (matched case-insensitively).
  std::string value{};  ///< Field value without surrounding whitespace.
};

/// Header fields in wire order.
using Headers = std::vector<Header>;

/// The value of the first field called `name` (ASCII case-insensitive), or nullopt.
std::optional<std::string_view> FindHeader(const Headers& headers, std::string_view name);

/// Whether `name: value` can be sent as is: a token name and a value without CR, LF or NUL (a
/// field that fails is dropped by the writers rather than let it split the message).
bool IsSendableHeader(std::string_view name, std::string_view value);

}  // namespace infermark::http
