// Streaming responses end to end: chunked SSE from producer threads, many concurrent streams,
// disconnects on either side, back-pressure, and byte-by-byte delivery through the client.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "http/client.hpp"
#include "http/server.hpp"
#include "http/sse_parser.hpp"
#include "raw_socket.hpp"

namespace infermark::http {
namespace {

// Collects what one streamed request delivered.
struct StreamRecord {
  std::vector<std::string> events;
  std::vector<std::int64_t> times;  // received_ns per body callback
  ClientResult result;
  int status = 0;
  bool clean_end = false;
};

// Waits for a number of completions.
class Latch {
 public:
  explicit Latch(int count) : count_(count) {}
  void CountDown() {
    std::lock_guard lock(mutex_);
    if (--count_ == 0) cv_.notify_all();
  }
  bool Wait(std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return count_ <= 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_;
};

// Streams a request's SSE events into `record` (records live until the latch opens).
StreamCallbacks Collect(StreamRecord& record, Latch& latch) {
  auto parser = std::make_shared<SseParser>();
  StreamCallbacks callbacks;
  callbacks.on_head = [&record](const ResponseHead& head) { record.status = head.status; };
  callbacks.on_body = [&record, parser](std::string_view data, std::int64_t received_ns) {
    record.times.push_back(received_ns);
    parser->Feed(data, [&record](const SseEvent& e) { record.events.emplace_back(e.data); });
  };
  callbacks.on_complete = [&record, &latch, parser](const ClientResult& result) {
    record.result = result;
    record.clean_end = parser->Finish();
    latch.CountDown();
  };
  return callbacks;
}

ClientRequest StreamRequest(std::string target = "/stream") {
  ClientRequest request;
  request.target = std::move(target);
  request.body = R"({"stream":true})";
  return request;
}

// A producer thread standing in for the engine's scheduler: it owns the writers and sends to all
// open streams in turns.
class Producer {
 public:
  // Sends nothing until `start_after` streams were added, so that many streams are open at once.
  explicit Producer(int events_per_stream, std::size_t start_after = 0)
      : events_per_stream_(events_per_stream), start_after_(start_after) {
    thread_ = std::thread([this] { Run(); });
  }
  ~Producer() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Add(StreamWriter writer) {
    {
      std::lock_guard lock(mutex_);
      incoming_.push_back(std::move(writer));
    }
    cv_.notify_all();
  }

 private:
  void Run() {
    std::vector<std::pair<StreamWriter, int>> streams;
    while (true) {
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || !incoming_.empty() || !streams.empty(); });
        if (stop_) return;
        for (auto& w : incoming_) streams.emplace_back(std::move(w), 0);
        added_ += incoming_.size();
        incoming_.clear();
      }
      if (added_ < start_after_) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      for (auto& [writer, sent] : streams) {
        writer.SendEvent("{\"n\":" + std::to_string(sent) + "}");
        if (++sent == events_per_stream_) {
          writer.SendEvent("[DONE]");
          writer.End();
        }
      }
      std::erase_if(streams, [&](const auto& s) { return s.second >= events_per_stream_; });
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  const int events_per_stream_;
  const std::size_t start_after_;
  std::size_t added_ = 0;  // producer thread (under mutex_)
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<StreamWriter> incoming_;
  bool stop_ = false;
  std::thread thread_;
};

TEST(Streaming, StreamsSseEventsWrittenFromAnotherThread) {
  Server server({.threads = 1});
  Producer producer(50);
  server.Route("POST", "/stream", [&](Request&, Responder responder) { producer.Add(responder.StartStream()); });
  server.Start();
  Client client({.port = server.port()});
  for (int round = 0; round < 3; ++round) {  // three streams, one after another, on one connection
    StreamRecord record;
    Latch latch(1);
    client.Send(StreamRequest(), Collect(record, latch));
    ASSERT_TRUE(latch.Wait(std::chrono::seconds(30)));
    ASSERT_TRUE(record.result.ok()) << record.result.message;
    EXPECT_EQ(record.status, 200);
    ASSERT_EQ(record.events.size(), 51u);
    for (int i = 0; i < 50; ++i)
      EXPECT_EQ(record.events[static_cast<std::size_t>(i)], "{\"n\":" + std::to_string(i) + "}");
    EXPECT_EQ(record.events.back(), "[DONE]");
    EXPECT_TRUE(record.clean_end);
    EXPECT_GT(record.times.size(), 1u);  // the events arrived over time, not in one read
  }
  EXPECT_EQ(client.Stats().connections_opened, 1u);
}

TEST(Streaming, HoldsAThousandConcurrentStreamsWithMonotonicTimestamps) {
  constexpr int kStreams = 1000;
  constexpr int kEvents = 20;
  Server server({.threads = 2});
  Producer producer(kEvents, kStreams);
  std::atomic<int> started{0};
  server.Route("POST", "/stream", [&](Request&, Responder responder) {
    ++started;
    producer.Add(responder.StartStream());
  });
  server.Start();
  Client client({.port = server.port(), .threads = 2});
  std::vector<StreamRecord> records(kStreams);
  Latch latch(kStreams);
  for (auto& record : records) client.Send(StreamRequest(), Collect(record, latch));
  ASSERT_TRUE(latch.Wait(std::chrono::seconds(120)));
  EXPECT_EQ(started, kStreams);
  for (const auto& record : records) {
    ASSERT_TRUE(record.result.ok()) << record.result.message;
    ASSERT_EQ(record.events.size(), static_cast<std::size_t>(kEvents + 1));
    EXPECT_TRUE(record.clean_end);
    for (std::size_t i = 1; i < record.times.size(); ++i) ASSERT_LE(record.times[i - 1], record.times[i]);
    EXPECT_LE(record.result.sent_ns, record.times.front());
    EXPECT_LE(record.times.back(), record.result.done_ns);
  }
  EXPECT_EQ(client.Stats().connections_opened, static_cast<std::uint64_t>(kStreams));
}

// While the server holds output, events written to streams wait on the server; releasing the
// hold sends them all (the engine holds it over each pass, so one pass's tokens leave together).
TEST(Streaming, HeldOutputLeavesOnlyWhenReleased) {
  Server server({.threads = 2});
  std::mutex mutex;
  std::vector<StreamWriter> writers;
  server.Route("POST", "/stream", [&](Request&, Responder responder) {
    std::lock_guard lock(mutex);
    writers.push_back(responder.StartStream());
  });
  server.Start();
  Client client({.port = server.port()});
  constexpr int kStreams = 8;
  std::vector<StreamRecord> records(kStreams);
  Latch latch(kStreams);
  std::atomic<int> bodies{0};
  for (auto& record : records) {
    StreamCallbacks callbacks = Collect(record, latch);
    callbacks.on_body = [&bodies, inner = callbacks.on_body](std::string_view data, std::int64_t received_ns) {
      ++bodies;
      inner(data, received_ns);
    };
    client.Send(StreamRequest(), callbacks);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (true) {
    {
      std::lock_guard lock(mutex);
      if (writers.size() == kStreams) break;
    }
    ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  server.HoldOutput();
  server.HoldOutput();  // holds nest
  for (auto& writer : writers) writer.SendEvent(R"({"n":0})");
  server.ReleaseOutput();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(bodies.load(), 0);
  server.ReleaseOutput();
  for (auto& writer : writers) {
    writer.SendEvent("[DONE]");
    writer.End();
  }
  ASSERT_TRUE(latch.Wait(std::chrono::seconds(30)));
  for (const auto& record : records) {
    ASSERT_EQ(record.events.size(), 2u);
    EXPECT_EQ(record.events[0], R"({"n":0})");
    EXPECT_EQ(record.events[1], "[DONE]");
  }
}

TEST(Streaming, ServerAbortMidStreamIsAnErrorForTheClient) {
  Server server(ServerOptions{});
  server.Route("POST", "/stream", [](Request&, Responder responder) {
    StreamWriter writer = responder.StartStream();
    writer.SendEvent("one");
    writer.SendEvent("two");
    writer.Abort();  // as if the server died
  });
  server.Start();
  Client client({.port = server.port()});
  StreamRecord record;
  Latch latch(1);
  client.Send(StreamRequest(), Collect(record, latch));
  ASSERT_TRUE(latch.Wait(std::chrono::seconds(10)));
  EXPECT_EQ(record.result.error, ErrorKind::kTruncated) << record.result.message;
  EXPECT_EQ(record.events, (std::vector<std::string>{"one", "two"}));
}

TEST(Streaming, DroppedWriterAbortsTheStream) {
  Server server(ServerOptions{});
  server.Route("POST", "/stream", [](Request&, Responder responder) {
    StreamWriter writer = responder.StartStream();
    writer.SendEvent("only");
  });  // writer destroyed without End()
  server.Start();
  Client client({.port = server.port()});
  StreamRecord record;
  Latch latch(1);
  client.Send(StreamRequest(), Collect(record, latch));
  ASSERT_TRUE(latch.Wait(std::chrono::seconds(10)));
  EXPECT_EQ(record.result.error, ErrorKind::kTruncated);
  EXPECT_EQ(record.events, (std::vector<std::string>{"only"}));
}

TEST(Streaming, ClientDisconnectClosesTheServerStream) {
  Server server(ServerOptions{});
  std::mutex mutex;
  std::condition_variable cv;
  StreamWriter kept;
  bool closed = false;
  server.Route("POST", "/stream", [&](Request&, Responder responder) {
    StreamWriter writer = responder.StartStream();
    writer.OnClose([&] {
      std::lock_guard lock(mutex);
      closed = true;
      cv.notify_all();
    });
    writer.SendEvent("hello");
    std::lock_guard lock(mutex);
    kept = std::move(writer);
    cv.notify_all();
  });
  server.Start();
  {
    test::Fd fd = test::ConnectLoopback(server.port());
    ASSERT_TRUE(test::SendAll(fd.get(), "POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"));
    const std::string got = test::ReadUntil(fd.get(), std::chrono::seconds(5), [](const std::string& r) {
      return r.find("data: hello\n\n") != std::string::npos;
    });
    EXPECT_NE(got.find("Transfer-Encoding: chunked"), std::string::npos) << got;
    EXPECT_NE(got.find("text/event-stream"), std::string::npos);
  }  // the client goes away mid-stream
  std::unique_lock lock(mutex);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return closed; }));
  EXPECT_FALSE(kept.Open());
  EXPECT_EQ(kept.SendEvent("late"), SendStatus::kClosed);
  kept = StreamWriter();
}

TEST(Streaming, ReportsBackPressureWhenThePeerDoesNotRead) {
  ServerOptions options;
  options.high_water_bytes = 64 * 1024;
  options.max_buffered_bytes = 8 * 1024 * 1024;
  Server server(options);
  std::promise<std::vector<SendStatus>> statuses;
  server.Route("POST", "/stream", [&](Request&, Responder responder) {
    std::thread([writer = responder.StartStream(), &statuses]() mutable {
      std::vector<SendStatus> seen;
      const std::string event(1000, 'x');
      for (int i = 0; i < 20000; ++i) {
        seen.push_back(writer.SendEvent(event));
        if (seen.back() == SendStatus::kClosed) break;
        if (i % 100 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      statuses.set_value(seen);
    }).detach();
  });
  server.Start();
  test::Fd fd = test::ConnectLoopback(server.port());
  ASSERT_TRUE(test::SendAll(fd.get(), "POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"));
  // Never read: the socket buffers fill, then the server's buffer, then it gives up.
  auto future = statuses.get_future();
  ASSERT_EQ(future.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  const auto seen = future.get();
  EXPECT_NE(std::find(seen.begin(), seen.end(), SendStatus::kBackPressure), seen.end());
  EXPECT_EQ(seen.back(), SendStatus::kClosed);  // over max_buffered_bytes: the connection is dropped
}

TEST(Streaming, ClientParsesAResponseDeliveredOneByteAtATime) {
  // A hand-written chunked SSE response, sent one byte per write: every chunk-size line, CRLF and
  // event is split at every byte boundary on its way through the client.
  const std::string events = "data: {\"a\":1}\r\n\r\ndata: two\n\ndata: [DONE]\n\n";
  std::string body;
  for (std::size_t i = 0; i < events.size(); i += 7) {
    const std::string piece = events.substr(i, 7);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
    body += size + piece + "\r\n";
  }
  body += "0\r\n\r\n";
  const std::string response =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + body;
  test::ScriptedServer raw([&](int fd) {
    test::ReadRequest(fd);
    for (char c : response) {
      if (!test::SendAll(fd, std::string_view(&c, 1))) return;
      std::this_thread::sleep_for(std::chrono::microseconds(300));
    }
    test::ReadUntil(fd, std::chrono::milliseconds(200));
  });
  Client client({.port = raw.port()});
  StreamRecord record;
  Latch latch(1);
  client.Send(StreamRequest(), Collect(record, latch));
  ASSERT_TRUE(latch.Wait(std::chrono::seconds(30)));
  ASSERT_TRUE(record.result.ok()) << record.result.message;
  EXPECT_EQ(record.events, (std::vector<std::string>{"{\"a\":1}", "two", "[DONE]"}));
  EXPECT_TRUE(record.clean_end);
  EXPECT_GT(record.times.size(), 10u);
  // One read may end one chunk and start the next: two pieces with the same read time.
  for (std::size_t i = 1; i < record.times.size(); ++i) EXPECT_LE(record.times[i - 1], record.times[i]);
}

TEST(Streaming, FlushIntervalCoalescesEventsAndOnWrittenReportsWrites) {
  ServerOptions options;
  options.flush_interval = std::chrono::milliseconds(20);
  Server server(options);
  struct Written {
    std::mutex mutex;
    std::vector<std::pair<std::uint64_t, std::int64_t>> writes;
  };
  auto written = std::make_shared<Written>();
  server.Route("POST", "/stream", [written](Request&, Responder responder) {
    std::thread([writer = responder.StartStream(), written]() mutable {
      writer.OnWritten([written](std::uint64_t events, std::int64_t write_ns) {
        std::lock_guard lock(written->mutex);
        written->writes.emplace_back(events, write_ns);
      });
      for (int i = 0; i < 100; ++i) {
        writer.SendEvent(std::to_string(i));
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
      writer.End();
    }).detach();
  });
  server.Start();
  Client client({.port = server.port()});
  StreamRecord record;
  Latch latch(1);
  client.Send(StreamRequest(), Collect(record, latch));
  ASSERT_TRUE(latch.Wait(std::chrono::seconds(30)));
  ASSERT_TRUE(record.result.ok()) << record.result.message;
  ASSERT_EQ(record.events.size(), 100u);
  EXPECT_EQ(record.events[99], "99");
  // 50+ ms of events in 20 ms windows: a few writes, not 100 (slack for a loaded machine).
  EXPECT_LE(server.Stats().writes, 30u);
  std::lock_guard lock(written->mutex);
  ASSERT_FALSE(written->writes.empty());
  EXPECT_EQ(written->writes.back().first, 100u);
  for (std::size_t i = 1; i < written->writes.size(); ++i) {
    EXPECT_LE(written->writes[i - 1].first, written->writes[i].first);
    EXPECT_LE(written->writes[i - 1].second, written->writes[i].second);
  }
  EXPECT_LE(written->writes.back().second, record.result.done_ns);
}

// While the client's loop is blocked, a response arrives; its bytes are read later. With kernel
// timestamps the reported time is when they arrived, not when the loop got round to them.
TEST(Streaming, TimestampsAreArrivalTimesEvenWhenTheLoopIsBusy) {
  for (const bool kernel : {true, false}) {
    std::atomic<std::int64_t> sent_ns{0};
    std::atomic<bool> loop_blocked{false};
    const std::string response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata: a\n\n\r\n0\r\n\r\n";
    test::ScriptedServer raw([&](int fd) {
      test::ReadRequest(fd);
      test::SendAll(fd, response);
      test::ReadRequest(fd);
      // Answer only once the client's loop is known to be blocked, so the bytes surely wait.
      while (!loop_blocked) std::this_thread::sleep_for(std::chrono::microseconds(100));
      sent_ns = MonotonicNs();
      test::SendAll(fd, response);
      test::ReadUntil(fd, std::chrono::seconds(2));
    });
    ClientOptions options;
    options.port = raw.port();
    options.kernel_timestamps = kernel;
    Client client(options);
    ASSERT_TRUE(client.Fetch(StreamRequest()).result.ok());   // the connection is now pooled
    std::promise<std::pair<std::int64_t, std::int64_t>> got;  // received_ns, time of the callback
    client.Send(StreamRequest(), {.on_body = [&](std::string_view, std::int64_t received_ns) {
                  got.set_value({received_ns, MonotonicNs()});
                }});
    client.loops().Post(0, [&] {
      loop_blocked = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    });
    const auto [received_ns, callback_ns] = got.get_future().get();
    ASSERT_GT(sent_ns.load(), 0);
    EXPECT_GE(callback_ns - sent_ns, 200'000'000) << "the loop was blocked";
    if (kernel) {
      // Kernel times are on the real-time clock. A VM that resynchronises its clock after a pause
      // steps it (seen: 500 µs every 100 ms for minutes); a step while the bytes wait moves their
      // time by the step, which the client reports and which is the slack here.
      const ClientStats stats = client.Stats();
      const auto slack = 1'000'000 + static_cast<std::int64_t>(stats.largest_realtime_clock_step_ns);
      EXPECT_GE(received_ns, sent_ns - slack) << "real-time clock steps seen: " << stats.realtime_clock_steps;
      EXPECT_LT(received_ns - sent_ns, 50'000'000) << "arrival time, not the time the loop read it";
      // The wait is not in the timestamp, but the client counts it as its own read delay.
      EXPECT_GE(DelayPercentileNs(client.Stats().read_delay, 100.0), 150'000'000);
    } else {
      EXPECT_EQ(DelayPercentileNs(client.Stats().read_delay, 100.0), 0) << "no kernel time, no read delay";
      EXPECT_GE(received_ns - sent_ns, 200'000'000) << "user-space time includes the blocked loop";
    }
  }
}

TEST(Streaming, Http10ClientGetsACloseDelimitedStream) {
  Server server(ServerOptions{});
  server.Route("POST", "/stream", [](Request&, Responder responder) {
    StreamWriter writer = responder.StartStream();
    writer.SendEvent("a");
    writer.End();
  });
  server.Start();
  test::Fd fd = test::ConnectLoopback(server.port());
  ASSERT_TRUE(test::SendAll(fd.get(), "POST /stream HTTP/1.0\r\nContent-Length: 0\r\n\r\n"));
  const std::string got = test::ReadUntil(fd.get(), std::chrono::seconds(5));
  EXPECT_EQ(got.find("Transfer-Encoding"), std::string::npos) << got;
  EXPECT_NE(got.find("Connection: close"), std::string::npos);
  EXPECT_EQ(got.substr(got.size() - 9), "data: a\n\n");
}

}  // namespace
}  // namespace infermark::http
