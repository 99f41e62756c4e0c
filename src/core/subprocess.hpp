// Running a child program with an argv (never a shell string) and capturing its output.
#pragma once

#include <string>
#include <vector>

namespace infermark {

/// What a finished child produced.
struct ProcessResult {
  int exit_code = -1;  ///< Exit status, or 128 + signal number when killed by a signal.
  std::string out;     ///< Everything written to stdout.
  std::string err;     ///< Everything written to stderr.
};

/// Runs `argv` (argv[0] looked up in PATH) in `cwd` (empty: current directory), waits for it and
/// returns its output. Throws std::runtime_error when the program cannot be started.
ProcessResult RunCapture(const std::vector<std::string>& argv, const std::string& cwd = {});

}  // namespace infermark
