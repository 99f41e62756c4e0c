// URL parsing, event loops, header helpers, the file limit.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "http/error_kind.hpp"
#include "http/event_loops.hpp"
#include "http/fd_limit.hpp"
#include "http/headers.hpp"
#include "http/url.hpp"

namespace infermark::http {
namespace {

TEST(Url, SplitsBaseUrls) {
  auto url = ParseUrl("http://localhost:8000/v1/completions?x=1#frag");
  ASSERT_TRUE(url);
  EXPECT_FALSE(url->tls);
  EXPECT_EQ(url->host, "localhost");
  EXPECT_EQ(url->port, 8000);
  EXPECT_EQ(url->target, "/v1/completions?x=1");
  url = ParseUrl("https://[::1]");
  ASSERT_TRUE(url);
  EXPECT_TRUE(url->tls);
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, 443);
  EXPECT_EQ(url->target, "/");
  std::string error;
  EXPECT_FALSE(ParseUrl("ftp://x", &error));
  EXPECT_FALSE(ParseUrl("http://:80", &error));
  EXPECT_FALSE(ParseUrl("http://h:99999", &error));
  EXPECT_NE(error.find("bad port"), std::string::npos);
  EXPECT_FALSE(ParseUrl("http://u@h", &error));
}

TEST(Headers, FindsCaseInsensitivelyAndRejectsInjection) {
  const Headers headers = {{"Content-Type", "a"}, {"content-type", "b"}};
  EXPECT_EQ(FindHeader(headers, "CONTENT-TYPE").value_or(""), "a");
  EXPECT_FALSE(FindHeader(headers, "x"));
  EXPECT_TRUE(IsSendableHeader("X-Ok", "fine value"));
  EXPECT_FALSE(IsSendableHeader("X-Bad", "a\r\nInjected: 1"));
  EXPECT_FALSE(IsSendableHeader("Bad Name", "x"));
  EXPECT_EQ(ErrorKindName(ErrorKind::kHttpStatus), "http_status");
}

TEST(EventLoops, RunsTasksAndTimersOnTheirLoop) {
  EventLoops loops(3);
  EXPECT_EQ(loops.size(), 3u);
  EXPECT_FALSE(loops.CurrentLoop());
  std::promise<std::size_t> ran;
  loops.Post(2, [&] { ran.set_value(*loops.CurrentLoop()); });
  EXPECT_EQ(ran.get_future().get(), 2u);
  const auto start = std::chrono::steady_clock::now();
  std::promise<std::chrono::steady_clock::time_point> fired;
  loops.RunAt(1, start + std::chrono::milliseconds(30), [&] { fired.set_value(std::chrono::steady_clock::now()); });
  EXPECT_GE(fired.get_future().get() - start, std::chrono::milliseconds(30));
  std::atomic<int> count{0};
  for (int i = 0; i < 1000; ++i) loops.Post(loops.NextLoop(), [&] { ++count; });
  for (int i = 0; i < 1000 && count < 1000; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_EQ(count, 1000);
  loops.Stop();
  loops.Stop();  // idempotent
}

TEST(FileLimit, RaisesTheSoftLimit) {
  EXPECT_GE(RaiseFileLimit(), 1024u);
}

}  // namespace
}  // namespace infermark::http
