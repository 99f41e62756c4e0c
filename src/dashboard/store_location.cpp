#include "dashboard/store_location.hpp"

#include "core/diagnostic.hpp"
#include "store/store_url.hpp"

namespace infermark::dashboard {

OpenedStore OpenDashboardStore(const std::string& db) {
  const results::StoreUrl url = results::ParseStoreUrl(db);  // an unknown scheme: InputError naming the known ones
  if (!results::StoreUrlExists(db)) {
    throw InputError(Diagnostic{{url.location, 0, 0},
                                "",
                                "--db",
                                "no results store here (store results with `infermark results ingest`, or pass --db)"});
  }
  return {results::OpenStoreUrl(db), url.kind == results::StoreKind::kPostgres ? "postgresql" : "sqlite"};
}

}  // namespace infermark::dashboard
