// A fixed table of atomics: the only state a signal handler may touch safely.
#include "runner/stop_signal.hpp"

#include <signal.h>

#include <atomic>
#include <csignal>

namespace infermark::runner {
namespace {

constexpr int kSlots = 64;
std::atomic<pid_t> g_groups[kSlots];
std::atomic<int> g_signal{0};
std::atomic<bool> g_installed{false};

void OnSignal(int sig) {
  g_signal.store(sig);
  for (auto& slot : g_groups) {
    const pid_t pgid = slot.load();
    if (pgid > 0) kill(-pgid, SIGTERM);
  }
}

}  // namespace

void InstallStopHandlers() {
  if (g_installed.exchange(true)) return;
  struct sigaction action {};
  action.sa_handler = &OnSignal;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

int StopRequested() {
  return g_signal.load();
}

bool RegisterGroup(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, pgid)) return true;
  }
  return false;
}

void UnregisterGroup(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t expected = pgid;
    slot.compare_exchange_strong(expected, 0);
  }
}

}  // namespace infermark::runner
