// The store a dashboard reads, named as `--db` takes it: `sqlite:PATH`, a plain path (SQLite), or
// `postgresql://…` / `postgres://…`. The dashboard only reads: a SQLite file that does not exist is an
// error, not a new empty store.
#pragma once

#include <memory>
#include <string>

#include "store/result_store.hpp"

namespace infermark::dashboard {

/// An open store and what kind it is.
struct OpenedStore {
  std::unique_ptr<results::ResultStore> store;  ///< The store (migrated forward if it was older).
  std::string kind;                             ///< `sqlite` or `postgresql`.
};

/// Opens the store `db` names. Throws InputError naming `db` for an unknown scheme, a missing SQLite
/// file, or a store written by a newer infermark.
OpenedStore OpenDashboardStore(const std::string& db);

}  // namespace infermark::dashboard
