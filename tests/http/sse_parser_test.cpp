#include "http/sse_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/sse_format.hpp"

namespace infermark::http {
namespace {

struct Seen {
  std::string data;
  std::string type;
  std::string id;
  bool operator==(const Seen&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Seen& s) {
  return os << "{data=" << testing::PrintToString(s.data) << " type=" << s.type << " id=" << s.id << "}";
}

// Feeds `pieces` in order and collects the events.
std::vector<Seen> Parse(const std::vector<std::string>& pieces, bool* clean_end = nullptr) {
  SseParser parser;
  std::vector<Seen> seen;
  for (const auto& piece : pieces) {
    parser.Feed(piece, [&](const SseEvent& e) {
      seen.push_back({std::string(e.data), std::string(e.type), std::string(e.id)});
    });
  }
  const bool clean = parser.Finish();
  if (clean_end != nullptr) *clean_end = clean;
  return seen;
}

std::vector<Seen> Parse(const std::string& whole) {
  return Parse(std::vector<std::string>{whole});
}

TEST(SseParser, ParsesOpenAiStyleStream) {
  bool clean = false;
  const auto seen = Parse({"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n"}, &clean);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].data, "{\"a\":1}");
  EXPECT_EQ(seen[1].data, "{\"b\":2}");
  EXPECT_EQ(seen[2].data, "[DONE]");
  EXPECT_TRUE(clean);
}

TEST(SseParser, HandlesCrLfAndLoneCrLineEnds) {
  EXPECT_EQ(Parse("data: a\r\n\r\ndata: b\r\rdata: c\n\n"),
            (std::vector<Seen>{{"a", "", ""}, {"b", "", ""}, {"c", "", ""}}));
}

TEST(SseParser, JoinsDataLinesAndReadsFields) {
  const auto seen = Parse(": keep-alive comment\nevent: delta\nid: 7\ndata: one\ndata:two\ndata:  three\nretry: 5\n\n");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (Seen{"one\ntwo\n three", "delta", "7"}));
}

TEST(SseParser, FollowsTheSpecOnEdgeCases) {
  // A field without a colon is a name with an empty value; an empty data line still dispatches;
  // an event with no data is not dispatched; the id persists; unknown fields are ignored.
  EXPECT_EQ(Parse("data\n\n"), (std::vector<Seen>{{"", "", ""}}));
  EXPECT_EQ(Parse("event: x\n\n"), std::vector<Seen>{});
  EXPECT_EQ(Parse("id: 1\ndata: a\n\ndata: b\n\n"), (std::vector<Seen>{{"a", "", "1"}, {"b", "", "1"}}));
  EXPECT_EQ(Parse("foo: bar\ndata: a\n\n"), (std::vector<Seen>{{"a", "", ""}}));
  EXPECT_EQ(Parse("data:\n\n"), (std::vector<Seen>{{"", "", ""}}));
  EXPECT_EQ(Parse("data: a\n\n\n\n"), (std::vector<Seen>{{"a", "", ""}}));
}

TEST(SseParser, ReportsATruncatedEnd) {
  bool clean = true;
  EXPECT_EQ(Parse({"data: a\n\ndata: b"}, &clean), (std::vector<Seen>{{"a", "", ""}}));
  EXPECT_FALSE(clean);
  EXPECT_EQ(Parse({"data: a\n\ndata: b\n"}, &clean), (std::vector<Seen>{{"a", "", ""}}));
  EXPECT_FALSE(clean);
}

TEST(SseParser, GivesTheSameEventsForEverySplitIntoThreePieces) {
  const std::string stream =
      "data: {\"id\":\"cmpl-1\",\"choices\":[{\"text\":\" the\"}]}\r\n\r\n"
      ": ping\r\n"
      "event: e\nid: 9\ndata: x\rdata: y\n\n"
      "data: tail\r\n\r\n"
      "data: [DONE]\n\n";
  const auto expected = Parse(stream);
  ASSERT_EQ(expected.size(), 4u);
  for (std::size_t i = 0; i <= stream.size(); ++i) {
    for (std::size_t j = i; j <= stream.size(); ++j) {
      const auto seen = Parse({stream.substr(0, i), stream.substr(i, j - i), stream.substr(j)});
      ASSERT_EQ(seen, expected) << "split at " << i << " and " << j;
    }
  }
}

TEST(SseParser, GivesTheSameEventsFedOneByteAtATime) {
  const std::string stream = "data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\ndata: e\r\n\r\n";
  std::vector<std::string> bytes;
  for (char c : stream) bytes.emplace_back(1, c);
  EXPECT_EQ(Parse(bytes), Parse(stream));
}

TEST(SseParser, HandsOutViewsIntoTheInputWhenTheEventIsWhole) {
  SseParser parser;
  const std::string input = "data: payload\n\n";
  const char* seen = nullptr;
  parser.Feed(input, [&](const SseEvent& e) { seen = e.data.data(); });
  EXPECT_EQ(seen, input.data() + 6);  // no copy
}

TEST(SseParser, StopsAtTheSizeLimit) {
  SseParser parser(64);
  std::size_t events = 0;
  parser.Feed("data: " + std::string(100, 'x'), [&](const SseEvent&) { ++events; });
  EXPECT_TRUE(parser.Failed());
  parser.Feed("\n\ndata: y\n\n", [&](const SseEvent&) { ++events; });
  EXPECT_EQ(events, 0u);
  EXPECT_FALSE(parser.Finish());
  EXPECT_FALSE(parser.Failed());  // Finish resets
}

TEST(SseParser, CountsEventsAndDetectsDone) {
  SseParser parser;
  int done = 0;
  const auto n = parser.Feed("data: 1\n\ndata: [DONE]\n\n", [&](const SseEvent& e) { done += e.IsDone() ? 1 : 0; });
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(done, 1);
}

TEST(SseFormat, RoundTripsThroughTheParser) {
  for (const std::string data : {"plain", "", "two\nlines", "cr\rlf\r\nmixed\n", "{\"json\":true}"}) {
    std::string wire;
    AppendSseEvent(wire, data);
    const auto seen = Parse(wire);
    ASSERT_EQ(seen.size(), 1u) << wire;
    std::string expected = data;
    // Line breaks of any kind come back as '\n'.
    for (std::size_t p = 0; (p = expected.find("\r\n", p)) != std::string::npos;) expected.replace(p, 2, "\n");
    for (auto& c : expected) c = c == '\r' ? '\n' : c;
    EXPECT_EQ(seen[0].data, expected);
  }
  std::string wire;
  AppendSseEvent(wire, "{\"a\":1}");
  EXPECT_EQ(wire, "data: {\"a\":1}\n\n");
}

}  // namespace
}  // namespace infermark::http
