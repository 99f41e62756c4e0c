// The dashboard's pages beyond `/` and the API's description: a point's page (`/point/ID`) and the
// reliability view (`/reliability`, opened on one row attempt by `?attempt=ID`) are embedded HTML
// files that read what they show from the address; `/api/openapi.json` describes every `/api/v1`
// route.
#pragma once

#include <optional>
#include <string_view>

#include "dashboard/api.hpp"
#include "dashboard/assets.hpp"

namespace infermark::dashboard {

/// The page served at `path` (`/point/12`, `/reliability`), or nullopt.
std::optional<Asset> PageAsset(std::string_view path);

/// `/api/openapi.json`: the embedded OpenAPI 3.1 document (404 when the build has none).
ApiReply OpenApiReply();

}  // namespace infermark::dashboard
