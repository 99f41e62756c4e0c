#include "report/markdown_cell.hpp"

namespace infermark::results {

std::string MarkdownCell(std::string text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace infermark::results
