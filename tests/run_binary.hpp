// Black-box helpers: run the built infermark binary and capture what it prints.
#pragma once

#include <string>
#include <vector>

#include "core/subprocess.hpp"
#include "test_paths.hpp"

namespace infermark::test {

/// Runs `infermark ARGS…` in `cwd` (empty: the current directory).
inline ProcessResult RunInfermark(std::vector<std::string> args, const std::string& cwd = {}) {
  args.insert(args.begin(), Binary());
  return RunCapture(args, cwd);
}

}  // namespace infermark::test
