#include "dashboard/assets.hpp"

#include <utility>

#include "dashboard/embedded_files.hpp"

namespace infermark::dashboard {
namespace {

constexpr std::string_view kPlaceholder =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>infermark dashboard</title></head><body>"
    "<h1>infermark dashboard</h1><p>This build has no page assets. The JSON API is served: "
    "<a href=\"/api/v1/meta\">/api/v1/meta</a>, <a href=\"/api/v1/runs\">/api/v1/runs</a>, "
    "<a href=\"/api/v1/points\">/api/v1/points</a> (docs/dashboard.md).</p></body></html>\n";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

std::string_view ContentTypeFor(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".woff2", "font/woff2"},
      {".txt", "text/plain; charset=utf-8"},
  };
  for (const auto& [extension, type] : kTypes) {
    if (EndsWith(name, extension)) return type;
  }
  return "application/octet-stream";
}

std::optional<Asset> FindAsset(std::string_view name) {
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) {
    const detail::EmbeddedFile& f = detail::kEmbeddedFiles[i];
    if (name == f.name) {
      return Asset{{reinterpret_cast<const char*>(f.bytes), f.size}, ContentTypeFor(name)};
    }
  }
  return std::nullopt;
}

std::vector<std::string> AssetNames() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < detail::kEmbeddedFileCount; ++i) names.emplace_back(detail::kEmbeddedFiles[i].name);
  return names;
}

Asset IndexPage() {
  if (const std::optional<Asset> index = FindAsset("index.html")) return *index;
  return {kPlaceholder, "text/html; charset=utf-8"};
}

}  // namespace infermark::dashboard
