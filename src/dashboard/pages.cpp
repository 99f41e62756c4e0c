#include "dashboard/pages.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace infermark::dashboard {
namespace {

// Whether `path` is `prefix` followed by a positive id (digits only).
bool IdPage(std::string_view path, std::string_view prefix) {
  if (path.substr(0, prefix.size()) != prefix) return false;
  const std::string_view id = path.substr(prefix.size());
  return !id.empty() && id.size() < 19 && id.front() != '0' &&
         std::all_of(id.begin(), id.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

std::optional<Asset> PageAsset(std::string_view path) {
  if (IdPage(path, "/point/")) return FindAsset("point.html");
  if (path == "/reliability") return FindAsset("reliability.html");
  return std::nullopt;
}

ApiReply OpenApiReply() {
  const std::optional<Asset> doc = FindAsset("openapi.json");
  if (!doc) return ErrorReply(404, "", "this build has no OpenAPI document");
  return {200, "application/json", std::string(doc->body)};
}

}  // namespace infermark::dashboard
