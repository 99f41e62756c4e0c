// The store a reader serves (the dashboard's HTTP server, the MCP server): opened once, read into a
// snapshot, read again when the store's runs, point counts or row attempts change, and the
// ApiSources that reach the store itself, one reader at a time. The checks and the loads use a
// connection of their own, so that a request for a point's page never waits behind them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "dashboard/api.hpp"
#include "dashboard/snapshot.hpp"
#include "dashboard/store_location.hpp"
#include "report/price_table.hpp"

namespace infermark::dashboard {

/// A store and its current snapshot. Thread-safe.
class SnapshotSource {
 public:
  /// Opens the store `db` names (OpenDashboardStore) and loads its snapshot, with costs from the
  /// price table in `price_dir` ("": no costs). Throws InputError as OpenDashboardStore and
  /// LoadPriceDirectory do.
  SnapshotSource(const std::string& db, const std::string& price_dir);

  /// The snapshot queries read now.
  [[nodiscard]] std::shared_ptr<const Snapshot> Current() const;
  /// Loads a new snapshot when the store's runs, point counts or row attempts changed; returns
  /// whether it did.
  bool ReloadIfChanged();
  /// What the API's routes read beyond the snapshot, each under the store's lock.
  [[nodiscard]] ApiSources Sources();
  /// `sqlite` or `postgresql`.
  [[nodiscard]] const std::string& kind() const { return opened_.kind; }

 private:
  using Signature = std::vector<std::tuple<std::int64_t, int, int>>;

  // Loads a fresh snapshot; the caller holds load_mutex_.
  void Load();

  OpenedStore opened_;      // the API's connection
  std::mutex store_mutex_;  // a connection is used by one thread at a time
  OpenedStore loader_;      // the connection the checks and loads read
  std::mutex load_mutex_;
  results::PriceTable prices_;
  bool has_prices_ = false;
  mutable std::mutex snapshot_mutex_;
  std::shared_ptr<const Snapshot> current_;
  Signature signature_;
  std::string attempts_stamp_;
  std::optional<std::int64_t> commits_;  // the store's commit counter when last read
};

}  // namespace infermark::dashboard
