// Waiting for a server to become ready: its HTTP endpoints answer (`/health`, then `/v1/models`)
// or its log shows a start-up marker, whichever the target offers — while watching that the
// process still lives, that the start-up timeout has not passed and that no stop signal came.
#pragma once

#include <string>
#include <vector>

#include "runner/process_group.hpp"

namespace infermark::runner {

/// What readiness means for one server.
struct ReadinessOptions {
  std::string host = "127.0.0.1";  ///< Where the server listens.
  int port = 0;                    ///< Its port; 0: no HTTP probes (log markers only).
  std::string log_path;            ///< Log to search for markers (empty: none).
  /// Lines that mean "ready" in a server log (vLLM/SGLang's uvicorn line, infermark's own).
  std::vector<std::string> markers = {"Application startup complete", "infermark engine: listening on"};
  double timeout_s = 900;  ///< Longest wait.
  /// Leader exit with status 0 before readiness counts as done rather than failed (a launcher
  /// script that ran its whole job before a probe saw the server).
  bool exit_zero_is_done = false;
};

/// How waiting ended.
enum class ReadyState {
  kReady,        ///< Probes answered 200 (or a marker appeared when there are no probes).
  kDone,         ///< The leader exited 0 first and `exit_zero_is_done` was set.
  kExited,       ///< The leader exited first.
  kTimedOut,     ///< The timeout passed.
  kInterrupted,  ///< A stop signal arrived.
};

/// The outcome with a reason for people.
struct ReadyResult {
  ReadyState state = ReadyState::kTimedOut;  ///< How it ended.
  std::string detail;                        ///< Why, when not ready.
  double waited_s = 0;                       ///< Seconds waited.
};

/// Waits for `group`'s server per `options`.
ReadyResult WaitReady(ProcessGroup& group, const ReadinessOptions& options);

/// The last `lines` lines of a log file ("" when unreadable), for failure reasons.
std::string LogTail(const std::string& path, int lines = 5);

/// Whether `path` contains one of `markers`.
bool LogHasMarker(const std::string& path, const std::vector<std::string>& markers);

}  // namespace infermark::runner
