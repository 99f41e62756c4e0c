// The request timeline the client writes for the point page: one header, one line per request with
// its times in ms from the earliest due or send time, latency histograms that count every request and
// every chunk gap in log-spaced bins, and every k-th request listed past the bound.
#include "metrics/request_timeline.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace infermark::metrics {
namespace {

RequestRecord TimedRequest(std::size_t index, std::int64_t sent_ms, std::int64_t first_ms,
                           std::vector<std::int64_t> chunks_ms, bool ok = true) {
  RequestRecord r;
  r.index = index;
  r.intended_ns = (sent_ms - 1) * 1'000'000;
  r.sent_ns = sent_ms * 1'000'000;
  r.first_chunk_ns = first_ms * 1'000'000;
  for (std::int64_t c : chunks_ms) r.chunk_ns.push_back(c * 1'000'000);
  r.end_ns = r.chunk_ns.empty() ? r.first_chunk_ns : std::optional<std::int64_t>(r.chunk_ns.back());
  r.done_ns = r.end_ns;
  r.success = ok;
  r.server_output_tokens = static_cast<std::int64_t>(chunks_ms.size());
  return r;
}

std::vector<Json> Lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<Json> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(Json::parse(line));
  return lines;
}

// The count of histogram `h` in the bin that holds `ms`.
std::uint64_t CountAt(const Json& h, double ms) {
  const int bin =
      static_cast<int>(std::floor(std::log10(ms / h["lo_ms"].get<double>()) * h["bins_per_decade"].get<int>()));
  const int i = bin - h["first_bin"].get<int>();
  if (i < 0 || i >= static_cast<int>(h["counts"].size())) return 0;
  return h["counts"][static_cast<std::size_t>(i)].get<std::uint64_t>();
}

TEST(RequestTimeline, ListsEachRequestAndCountsEveryGap) {
  const std::vector<RequestRecord> records = {
      TimedRequest(0, 1000, 1050, {1050, 1060, 1070}),  // TTFT 50 ms, ITLs 10 and 10 ms
      TimedRequest(1, 1002, 1202, {1202, 1302}),        // TTFT 200 ms, ITL 100 ms
      TimedRequest(2, 1004, 1004, {}, false),           // failed: neither histogram
  };
  const std::vector<Json> lines = Lines(RequestTimelineJsonl(records, 1.7e9));
  ASSERT_EQ(lines.size(), 4u);
  const Json& header = lines[0];
  EXPECT_EQ(header["schema"], kRequestTimelineSchema);
  EXPECT_EQ(header["origin_unix"], 1.7e9);
  EXPECT_EQ(header["requests"], 3);
  EXPECT_EQ(header["stride"], 1);
  EXPECT_EQ(header["columns"],
            Json::array({"index", "intended_ms", "sent_ms", "first_token_ms", "last_token_ms", "output_tokens", "ok"}));
  // Times from the earliest intended time (999 ms on the clock).
  EXPECT_EQ(lines[1], Json::array({0, 0.0, 1.0, 51.0, 71.0, 3, 1}));
  EXPECT_EQ(lines[2], Json::array({1, 2.0, 3.0, 203.0, 303.0, 2, 1}));
  EXPECT_EQ(lines[3][6], 0);
  EXPECT_TRUE(lines[3][5].is_null());
  const Json& ttft = header["ttft_ms"];
  EXPECT_EQ(CountAt(ttft, 50), 1u);
  EXPECT_EQ(CountAt(ttft, 200), 1u);
  std::uint64_t ttft_total = 0;
  for (const Json& c : ttft["counts"]) ttft_total += c.get<std::uint64_t>();
  EXPECT_EQ(ttft_total, 2u);
  const Json& itl = header["itl_ms"];
  EXPECT_EQ(CountAt(itl, 10), 2u);
  EXPECT_EQ(CountAt(itl, 100), 1u);
  EXPECT_EQ(itl["zero"], 0);
}

TEST(RequestTimeline, ChunksReadTogetherCountAsZeroGaps) {
  const std::vector<RequestRecord> records = {TimedRequest(0, 0, 10, {10, 10, 20})};
  const Json header = Lines(RequestTimelineJsonl(records, 0))[0];
  EXPECT_EQ(header["itl_ms"]["zero"], 1);
  EXPECT_EQ(CountAt(header["itl_ms"], 10), 1u);
}

TEST(RequestTimeline, ALongRunListsEveryKthRequestButCountsAll) {
  std::vector<RequestRecord> records;
  const std::size_t n = kMaxTimelineRequests * 2 + 1;
  for (std::size_t i = 0; i < n; ++i) {
    records.push_back(TimedRequest(i, static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) + 7,
                                   {static_cast<std::int64_t>(i) + 7}));
  }
  const std::vector<Json> lines = Lines(RequestTimelineJsonl(records, 0));
  EXPECT_EQ(lines[0]["requests"], n);
  EXPECT_EQ(lines[0]["stride"], 3);
  EXPECT_EQ(lines.size() - 1, (n + 2) / 3);
  EXPECT_EQ(lines[2][0], 3);
  EXPECT_EQ(CountAt(lines[0]["ttft_ms"], 7), n);
}

}  // namespace
}  // namespace infermark::metrics
