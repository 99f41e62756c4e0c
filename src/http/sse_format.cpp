#include "http/sse_format.hpp"

#include <cstring>

namespace infermark::http {

void AppendSseEvent(std::string& out, std::string_view data) {
  // Fast path: one line (JSON chunks never hold raw line breaks).
  if (std::memchr(data.data(), '\n', data.size()) == nullptr &&
      std::memchr(data.data(), '\r', data.size()) == nullptr) {
    out.append("data: ", 6);
    out.append(data);
    out.append("\n\n", 2);
    return;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t eol = data.find_first_of("\r\n", start);
    out.append("data: ", 6);
    out.append(data.substr(start, eol == std::string_view::npos ? std::string_view::npos : eol - start));
    out.push_back('\n');
    if (eol == std::string_view::npos) break;
    start = eol + ((data[eol] == '\r' && eol + 1 < data.size() && data[eol + 1] == '\n') ? 2 : 1);
  }
  out.push_back('\n');
}

}  // namespace infermark::http
