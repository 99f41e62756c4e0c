// The page's files as the server sends them: embedded at build time, looked up by name, each with
// its content type. When no index.html was embedded, a placeholder page stands in for it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::dashboard {

/// One file to send.
struct Asset {
  std::string_view body;          ///< Its bytes.
  std::string_view content_type;  ///< Its Content-Type.
};

/// The embedded file `name` (as under /assets/, e.g. `app.js`), or nullopt.
std::optional<Asset> FindAsset(std::string_view name);

/// Every embedded file's name, in build order.
std::vector<std::string> AssetNames();

/// The page served at `/`: the embedded index.html, or a placeholder page naming the API.
Asset IndexPage();

/// The Content-Type for a file name, by its extension (`application/octet-stream` when unknown).
std::string_view ContentTypeFor(std::string_view name);

}  // namespace infermark::dashboard
