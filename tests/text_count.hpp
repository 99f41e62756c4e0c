// How often a piece of text occurs in another (overlapping occurrences counted), for tests that
// check what a report or a page draws.
#pragma once

#include <cstddef>
#include <string>

namespace infermark::test {

/// The number of places `needle` starts in `text`.
inline std::size_t Occurrences(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace infermark::test
