#include "dashboard/store_location.hpp"

#include <filesystem>

#include "core/diagnostic.hpp"

namespace infermark::dashboard {
namespace {

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

}  // namespace

OpenedStore OpenDashboardStore(const std::string& db) {
  if (StartsWith(db, "postgresql://") || StartsWith(db, "postgres://")) {
    throw InputError(
        Diagnostic{{db, 0, 0}, "", "--db", "this build has no PostgreSQL store (schemes known: sqlite:PATH, a path)"});
  }
  const std::size_t scheme_end = db.find("://");
  if (scheme_end != std::string::npos) {
    throw InputError(Diagnostic{{db, 0, 0},
                                "",
                                "--db",
                                "unknown store URL scheme '" + db.substr(0, scheme_end) +
                                    "' (schemes known: sqlite:PATH, postgresql://…, postgres://…, or a path)"});
  }
  const std::string path = StartsWith(db, "sqlite:") ? db.substr(7) : db;
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) {
    throw InputError(Diagnostic{{path, 0, 0},
                                "",
                                "--db",
                                "no results store here (store results with `infermark results ingest`, or pass --db)"});
  }
  return {results::OpenStore(path), "sqlite"};
}

}  // namespace infermark::dashboard
