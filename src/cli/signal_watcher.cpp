#include "cli/signal_watcher.hpp"

#include <pthread.h>

#include <cstdio>

namespace infermark::cli {

SignalWatcher::SignalWatcher(std::string who) : who_(std::move(who)) {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  thread_ = std::thread([this] {
    timespec wait{0, 50'000'000};
    while (!done_.load()) {
      const int signal_number = sigtimedwait(&set_, nullptr, &wait);
      if (signal_number == SIGINT || signal_number == SIGTERM) {
        if (stop_.load()) continue;
        std::fprintf(stderr, "\n%s: %s, stopping: no new requests, in-flight ones drain or are cut\n", who_.c_str(),
                     signal_number == SIGINT ? "SIGINT" : "SIGTERM");
        stop_.store(true);
      }
    }
  });
}

SignalWatcher::~SignalWatcher() {
  done_.store(true);
  thread_.join();
}

}  // namespace infermark::cli
