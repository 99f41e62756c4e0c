// Paths the tests use: the source tree (fixtures) and the built binary (black-box tests).
#pragma once

#include <string>

namespace infermark::test {

/// Absolute path of a file under the source tree's tests/fixtures.
inline std::string Fixture(const std::string& relative) {
  return std::string(INFERMARK_SOURCE_DIR) + "/tests/fixtures/" + relative;
}

/// Absolute path of a file under the source tree.
inline std::string SourcePath(const std::string& relative) {
  return std::string(INFERMARK_SOURCE_DIR) + "/" + relative;
}

/// The infermark binary under test.
inline std::string Binary() {
  return INFERMARK_BINARY;
}

}  // namespace infermark::test
