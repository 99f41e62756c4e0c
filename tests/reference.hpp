// InferenceX's own Python, which the parity tests run unchanged: where it lives and the one rule
// for when it is missing. The copy sits outside the repository (../shared/reference/inferencex/
// beside the source tree, see its SOURCE.md); INFERMARK_REFERENCE_DIR points the tests elsewhere
// (a test of this rule hides it that way). Without it a parity test skips saying which path is
// missing, except under CI=true, where it fails: CI must never pass a parity test it did not run.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/subprocess.hpp"
#include "test_paths.hpp"

namespace infermark::test {

/// The reference copy's root: $INFERMARK_REFERENCE_DIR when set, else
/// ../shared/reference/inferencex relative to the source tree.
inline std::string ReferenceRoot() {
  const char* over = std::getenv("INFERMARK_REFERENCE_DIR");
  const std::filesystem::path root = over != nullptr && *over != '\0'
                                         ? std::filesystem::path(over)
                                         : std::filesystem::path(SourcePath("../shared/reference/inferencex"));
  return root.lexically_normal().string();
}

/// Absolute path of `relative` inside the reference copy.
inline std::string ReferencePath(const std::string& relative) {
  return ReferenceRoot() + "/" + relative;
}

/// True when the environment says it is CI (CI=true, as CI services set it).
inline bool InCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && (std::string(ci) == "true" || std::string(ci) == "1");
}

/// Why the reference cannot run here, or empty when it can: the first of `relative_files` (paths
/// inside the reference) that is missing, or a python3 that does not start or cannot run `probe`
/// (Python code run with the reference root as its working directory, e.g. an import).
inline std::string ReferenceUnavailable(const std::vector<std::string>& relative_files,
                                        const std::string& probe = "pass") {
  for (const std::string& relative : relative_files) {
    const std::string path = ReferencePath(relative);
    if (!std::filesystem::exists(path)) {
      return "InferenceX reference missing: " + path +
             " (the copy at commit 843c6254f belongs in ../shared/reference/inferencex/ beside the source tree, "
             "or set INFERMARK_REFERENCE_DIR)";
    }
  }
  ProcessResult ran;
  try {
    ran = RunCapture({"python3", "-c", probe}, ReferenceRoot());
  } catch (const std::exception& e) {
    return std::string("python3, which runs the InferenceX reference, cannot be started: ") + e.what();
  }
  if (ran.exit_code != 0) return "python3 cannot run the InferenceX reference here (" + probe + "): " + ran.err;
  return {};
}

}  // namespace infermark::test

/// Skips the current test with the reason when the reference is unavailable (see
/// ReferenceUnavailable for the arguments), or fails it with the same reason under CI=true.
#define INFERMARK_REQUIRE_REFERENCE(...)                                                                       \
  do {                                                                                                         \
    const std::string infermark_reference_why = ::infermark::test::ReferenceUnavailable(__VA_ARGS__);          \
    if (!infermark_reference_why.empty()) {                                                                    \
      if (::infermark::test::InCi()) FAIL() << infermark_reference_why << " [CI=true: parity tests must run]"; \
      GTEST_SKIP() << infermark_reference_why;                                                                 \
    }                                                                                                          \
  } while (0)
