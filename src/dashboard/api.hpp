// The dashboard's JSON API, version 1 (docs/dashboard.md): one function from a request's path and
// query string to a reply, over an in-memory snapshot of the store. No sockets here, so every route
// is tested directly; the server (dashboard_server.hpp) only adds the token check and the wire.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json_text.hpp"
#include "dashboard/snapshot.hpp"
#include "results/point.hpp"

namespace infermark::dashboard {

/// The API's version (`api_version` of /api/v1/meta, the `v1` of every route).
inline constexpr int kApiVersion = 1;

/// A reply ready to send.
struct ApiReply {
  int status = 200;                               ///< HTTP status.
  std::string content_type = "application/json";  ///< Content-Type.
  std::string body;                               ///< The body.
};

/// What routes need beyond the snapshot.
struct ApiSources {
  /// The full stored points of run `run_id` (for /compare, which compares the processed records).
  std::function<std::vector<results::Point>(std::int64_t run_id)> run_points;
  /// The dated price table as JSON (`{"prices":[…]}` for /prices); empty: no table.
  std::function<Json()> prices;
  /// Runs a read on the store itself, for what the snapshot does not hold (a point's raw result and
  /// details, an attempt's logs, an evaluation's samples); empty: those routes answer 404.
  std::function<void(const std::function<void(results::ResultStore& store)>& read)> with_store;
};

/// Answers `GET path?query` for an API route (`/api/v1/...`): 200 with the route's JSON (or CSV),
/// 400 naming the parameter for a malformed or unknown one, 404 for an unknown route. The error
/// body is `{"error":{"status","field","message"}}`.
ApiReply HandleApi(const Snapshot& snapshot, const ApiSources& sources, std::string_view path, std::string_view query);

/// An error reply in the API's shape.
ApiReply ErrorReply(int status, const std::string& field, const std::string& message);

}  // namespace infermark::dashboard
