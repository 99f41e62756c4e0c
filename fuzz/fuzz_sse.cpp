// Fuzzes the SSE parser (src/http/sse_parser.cpp) for crashes and for correctness: the events of
// an input must not depend on how the input is split into feeds, and must equal those of a naive
// line-by-line reading of the WHATWG event-stream rules written here.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http/sse_parser.hpp"

namespace {

struct Event {
  std::string data;
  std::string type;
  std::string id;
  bool operator==(const Event&) const = default;
};

struct Outcome {
  std::vector<Event> events;
  bool clean = false;
  bool operator==(const Outcome&) const = default;
};

// The spec, read as literally as possible: split into lines, then interpret each line.
Outcome Reference(std::string_view s) {
  std::vector<std::string> lines;
  std::string current;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\r' || c == '\n') {
      lines.push_back(current);
      current.clear();
      if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
    } else {
      current.push_back(c);
    }
  }
  Outcome out;
  std::string data, type, id;
  bool have_data = false;
  for (const std::string& line : lines) {
    if (line.empty()) {
      if (have_data) out.events.push_back({data, type, id});
      data.clear();
      type.clear();
      have_data = false;
      continue;
    }
    if (line[0] == ':') continue;
    const std::size_t colon = line.find(':');
    const std::string name = line.substr(0, colon);
    std::string value = colon == std::string::npos ? std::string() : line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (name == "data") {
      data = have_data ? data + "\n" + value : value;
      have_data = true;
    } else if (name == "event") {
      type = value;
    } else if (name == "id" && value.find('\0') == std::string::npos) {
      id = value;
    }
  }
  out.clean = current.empty() && !have_data;
  return out;
}

Outcome Run(std::string_view input, const std::vector<std::size_t>& cuts) {
  infermark::http::SseParser parser;
  Outcome out;
  std::size_t start = 0;
  auto feed = [&](std::string_view piece) {
    parser.Feed(piece, [&](const infermark::http::SseEvent& e) {
      out.events.push_back({std::string(e.data), std::string(e.type), std::string(e.id)});
    });
  };
  for (std::size_t cut : cuts) {
    feed(input.substr(start, cut - start));
    start = cut;
  }
  feed(input.substr(start));
  out.clean = parser.Finish();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  if (size < 1) return 0;
  // The first byte seeds the split points; the rest is the stream.
  unsigned seed = bytes[0];
  const std::string_view input(reinterpret_cast<const char*>(bytes + 1), size - 1);
  std::vector<std::size_t> cuts;
  for (std::size_t at = 0; at < input.size();) {
    seed = seed * 1103515245u + 12345u;
    at += 1 + (seed >> 16) % 9;
    if (at < input.size()) cuts.push_back(at);
  }
  const Outcome whole = Run(input, {});
  if (!(whole == Reference(input))) std::abort();
  if (!(Run(input, cuts) == whole)) std::abort();
  // A tiny event limit must fail cleanly, never crash.
  infermark::http::SseParser small(16);
  small.Feed(input, [](const infermark::http::SseEvent&) {});
  small.Finish();
  return 0;
}
