#include "http/request.hpp"

namespace infermark::http {

std::string_view Request::Path() const {
  const std::string_view t(target);
  return t.substr(0, t.find('?'));
}

std::string_view Request::Query() const {
  const std::string_view t(target);
  const auto q = t.find('?');
  return q == std::string_view::npos ? std::string_view() : t.substr(q + 1);
}

std::optional<std::string_view> Request::FindHeader(std::string_view name) const {
  return http::FindHeader(headers, name);
}

}  // namespace infermark::http
