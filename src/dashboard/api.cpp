#include "dashboard/api.hpp"

#include "dashboard/api_detail_routes.hpp"
#include "dashboard/api_routes.hpp"
#include "dashboard/query.hpp"

namespace infermark::dashboard {

ApiReply ErrorReply(int status, const std::string& field, const std::string& message) {
  Json error = Json::object();
  error["status"] = status;
  error["field"] = field.empty() ? Json(nullptr) : Json(field);
  error["message"] = message;
  Json body = Json::object();
  body["error"] = error;
  return {status, "application/json", body.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

ApiReply HandleApi(const Snapshot& snapshot, const ApiSources& sources, std::string_view path,
                   std::string_view query_text) {
  try {
    const Query query = Query::Parse(query_text);
    if (path == "/api/v1/meta") return routes::Meta(snapshot, query);
    if (path == "/api/v1/points") return routes::Points(snapshot, query);
    if (path == "/api/v1/runs") return routes::Runs(snapshot, query);
    if (path == "/api/v1/export.csv") return routes::ExportCsv(snapshot, query);
    if (path == "/api/v1/frontier") return routes::Frontier(snapshot, query);
    if (path == "/api/v1/iso") return routes::Iso(snapshot, query);
    if (path == "/api/v1/history") return routes::History(snapshot, query);
    if (path == "/api/v1/compare") return routes::Compare(snapshot, sources, query);
    if (path == "/api/v1/prices") return routes::Prices(sources, query);
    if (path == "/api/v1/evaluations") return routes::Evaluations(snapshot, query);
    if (std::optional<ApiReply> reply = HandleDetailApi(snapshot, sources, path, query)) return *reply;
    return ErrorReply(404, "", "no API route " + std::string(path));
  } catch (const QueryError& e) {
    return ErrorReply(400, e.field(), e.what());
  }
}

namespace routes {

ApiReply JsonReply(const Json& body) {
  return {200, "application/json", body.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

}  // namespace routes
}  // namespace infermark::dashboard
