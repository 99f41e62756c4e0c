// SIGINT and SIGTERM for a client run: taken by one thread with sigwait, so that no event-loop
// thread is interrupted; the run sees a flag, stops sending and writes what it has.
#pragma once

#include <signal.h>

#include <atomic>
#include <string>
#include <thread>

namespace infermark::cli {

/// Blocks SIGINT/SIGTERM for the process while alive and raises a flag on the first one.
class SignalWatcher {
 public:
  /// `who` prefixes the one line printed when a signal arrives ("infermark bench").
  explicit SignalWatcher(std::string who);
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;
  /// Set once a signal arrived.
  [[nodiscard]] const std::atomic<bool>* flag() const { return &stop_; }

 private:
  std::string who_;
  sigset_t set_{};
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace infermark::cli
