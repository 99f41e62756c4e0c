// Dispatch of the detail routes: fixed paths, and paths that carry an id (`/api/v1/points/12`).
#include <charconv>
#include <string>

#include "dashboard/api_detail_routes.hpp"

namespace infermark::dashboard {
namespace {

// `text` as a store id (digits only), else nullopt.
std::optional<std::int64_t> Id(std::string_view text) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || id <= 0) return std::nullopt;
  return id;
}

// For `prefix` + `<id>` + `rest`: the id when `path` has that shape.
std::optional<std::int64_t> IdBetween(std::string_view path, std::string_view prefix, std::string_view rest) {
  if (path.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view tail = path.substr(prefix.size());
  if (tail.size() <= rest.size() || tail.substr(tail.size() - rest.size()) != rest) return std::nullopt;
  return Id(tail.substr(0, tail.size() - rest.size()));
}

}  // namespace

std::optional<ApiReply> HandleDetailApi(const Snapshot& snapshot, const ApiSources& sources, std::string_view path,
                                        const Query& query) {
  if (path == "/api/v1/reliability") return routes::Reliability(snapshot, query);
  if (path == "/api/v1/attempts") return routes::Attempts(snapshot, query);
  if (const auto id = IdBetween(path, "/api/v1/attempts/", "")) return routes::Attempt(snapshot, sources, *id, query);
  if (const auto id = IdBetween(path, "/api/v1/points/", "")) return routes::PointPage(snapshot, sources, *id, query);
  if (const auto id = IdBetween(path, "/api/v1/points/", "/timeline"))
    return routes::PointTimeline(snapshot, sources, *id, query);
  if (const auto id = IdBetween(path, "/api/v1/points/", "/telemetry"))
    return routes::PointTelemetry(snapshot, sources, *id, query);
  if (const auto id = IdBetween(path, "/api/v1/evaluations/", "/samples"))
    return routes::EvaluationSamples(snapshot, sources, *id, query);
  return std::nullopt;
}

}  // namespace infermark::dashboard
