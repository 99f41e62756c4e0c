// `infermark dashboard`'s server: the store loaded into a snapshot, the JSON API, the embedded page,
// a token check when one is set, and a poll that reloads the snapshot when the store's runs or point
// counts change. Read-only: nothing is ever written to the store.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "dashboard/snapshot.hpp"

namespace infermark::dashboard {

/// How to serve.
struct DashboardOptions {
  std::string db;                        ///< Store: `sqlite:PATH`, a path, or `postgresql://…`.
  std::string bind = "127.0.0.1";        ///< Address to listen on.
  std::uint16_t port = 8080;             ///< Port; 0 picks a free one.
  std::string token;                     ///< Required on /api/ when set (Bearer header or `token=`).
  std::chrono::milliseconds poll{2000};  ///< How often the store is checked for changes.
  std::string price_dir;                 ///< Price table folder (data/prices); empty: none, no costs.
};

/// Whether `address` only reaches this host (127.0.0.0/8, ::1, localhost).
bool IsLoopback(const std::string& address);

/// A running dashboard.
class DashboardServer {
 public:
  /// Opens the store and loads the snapshot. Throws InputError for an unknown store URL, a missing
  /// store, a store written by a newer infermark, a bad price table, or a non-loopback --bind
  /// without --token.
  explicit DashboardServer(DashboardOptions options);
  /// Stops serving.
  ~DashboardServer();
  DashboardServer(const DashboardServer&) = delete;
  DashboardServer& operator=(const DashboardServer&) = delete;

  /// Binds, listens and starts the reload poll. Throws std::runtime_error when it cannot bind.
  void Start();
  /// Stops the poll and the server (idempotent).
  void Stop();
  /// The port listened on (after Start()).
  [[nodiscard]] std::uint16_t port() const;
  /// `http://ADDRESS:PORT/` (after Start()).
  [[nodiscard]] std::string Url() const;
  /// The snapshot queries read now.
  [[nodiscard]] std::shared_ptr<const Snapshot> snapshot() const;
  /// Checks the store and reloads the snapshot when its runs or point counts changed; returns whether
  /// it reloaded (the poll calls this).
  bool ReloadIfChanged();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infermark::dashboard
