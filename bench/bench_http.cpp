// Streamed SSE events per second through loopback: a server with one event-loop thread streams
// to every open stream in turns, as the built-in engine's scheduler does in max-speed mode (one
// token per SSE event; a turn is what the producer does before it yields to the loop, which then
// writes what the turn produced: `burst` events per stream per turn, 1 = yield after every step);
// a client with one event-loop thread receives them and parses every event with SseParser. Server
// loop pinned to CPU 0, client loop to CPU 1. `flush_us` > 0 sets ServerOptions::flush_interval,
// which coalesces the events of many turns into one write without the producer's help; `kts` 0
// turns the client's kernel receive timestamps off. Prints a table.
// Usage: bench_http [seconds] [streams:burst[:flush_us[:kts]] ...]
// (default: 3 s; 1:1 1:16 1000:1 1000:16 1000:1:1000)
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "http/client.hpp"
#include "http/fd_limit.hpp"
#include "http/server.hpp"
#include "http/sse_parser.hpp"
#include "loop_cpu_time.hpp"

namespace {

using namespace infermark::http;
using infermark::MonotonicNs;

// A vLLM /v1/completions streaming chunk carrying one token (236 bytes of JSON).
const std::string kChunk =
    R"({"id":"cmpl-8f3a1c2e4b5d6f708192a3b4c5d6e7f8","object":"text_completion","created":1767225600,)"
    R"("model":"amd/MiniMax-M3-MXFP4","choices":[{"index":0,"text":" the","logprobs":null,)"
    R"("finish_reason":null,"stop_reason":null}],"usage":null})";

// Output a stream may have waiting before the producer skips it for a turn.
constexpr std::size_t kStreamCap = 256 * 1024;

using infermark::bench::LoopCpuSeconds;
using infermark::bench::ThreadCpuSeconds;

// The producer, on the server's loop thread only: one event to every stream per turn, then it
// yields to the loop (which writes what the turn produced), like an engine step.
class Producer {
 public:
  Producer(EventLoops& loops, int burst) : loops_(loops), burst_(burst) {}
  void Add(StreamWriter writer) {
    writers_.push_back(std::move(writer));
    if (!scheduled_) Schedule();
  }
  void Stop() {
    stopping_ = true;
    for (auto& w : writers_) {
      w.SendEvent("[DONE]");
      w.End();
    }
    writers_.clear();
  }
  std::uint64_t sent() const { return sent_.load(std::memory_order_relaxed); }

 private:
  void Schedule() {
    scheduled_ = true;
    loops_.Post(0, [this] { Turn(); });
  }
  void Turn() {
    scheduled_ = false;
    if (stopping_) return;
    std::uint64_t sent = 0;
    for (int step = 0; step < burst_; ++step) {
      for (auto& w : writers_) {
        if (w.BufferedBytes() > kStreamCap) continue;  // the client is behind on this one
        if (w.SendEvent(kChunk) != SendStatus::kClosed) ++sent;
      }
    }
    sent_.store(sent_.load(std::memory_order_relaxed) + sent, std::memory_order_relaxed);
    Schedule();
  }

  EventLoops& loops_;
  const int burst_;
  std::vector<StreamWriter> writers_;
  std::atomic<std::uint64_t> sent_{0};
  bool scheduled_ = false;
  bool stopping_ = false;
};

struct Config {
  int streams = 1;
  int burst = 1;
  int flush_us = 0;
  int kernel_ts = 1;
};

struct Row {
  Config config;
  double events_per_s = 0;
  double mb_per_s = 0;
  double server_cpu = 0;
  double client_cpu = 0;
  double events_per_write = 0;
  double events_per_read = 0;
  int failed = 0;
};

Row Measure(const Config& config, double seconds) {
  const int streams = config.streams;
  const bool two_cpus = std::thread::hardware_concurrency() >= 2;
  ServerOptions server_options;
  server_options.flush_interval = std::chrono::microseconds(config.flush_us);
  if (two_cpus) server_options.cpus = {0};
  Server server(server_options);
  Producer producer(server.loops(), config.burst);
  server.Route("POST", "/v1/completions",
               [&producer](Request&, Responder responder) { producer.Add(responder.StartStream()); });
  server.Start();

  ClientOptions client_options;
  client_options.idle_timeout = std::chrono::seconds(20);  // a stall is a failure, not a hang
  client_options.port = server.port();
  client_options.kernel_timestamps = config.kernel_ts != 0;
  if (two_cpus) client_options.cpus = {1};
  Client client(client_options);

  // Client-side state, touched only by the client's loop thread.
  struct Stream {
    SseParser parser;
  };
  std::vector<Stream> state(static_cast<std::size_t>(streams));
  std::atomic<std::uint64_t> events{0};
  std::atomic<int> heads{0};
  std::atomic<int> done{0};
  std::atomic<int> failed{0};
  std::uint64_t local_events = 0;  // client loop thread
  for (int i = 0; i < streams; ++i) {
    ClientRequest request;
    request.target = "/v1/completions";
    request.body = R"({"model":"m","prompt":"hi","max_tokens":1000000,"stream":true})";
    Stream* s = &state[static_cast<std::size_t>(i)];
    client.Send(std::move(request),
                {.on_head = [&heads](const ResponseHead&) { heads.fetch_add(1); },
                 .on_body =
                     [s, &events, &local_events](std::string_view data, std::int64_t) {
                       local_events += s->parser.Feed(data, [](const SseEvent&) {});
                       events.store(local_events, std::memory_order_relaxed);
                     },
                 .on_complete =
                     [&done, &failed](const ClientResult& r) {
                       if (!r.ok()) failed.fetch_add(1);
                       done.fetch_add(1);
                     }},
                0);
  }
  const auto setup_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (heads.load() + failed.load() < streams && std::chrono::steady_clock::now() < setup_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // warm-up

  auto sample = [&] {
    struct Sample {
      std::int64_t ns;
      std::uint64_t events;
      double server_cpu, client_cpu;
      ServerStats server;
      ClientStats client;
    };
    return Sample{MonotonicNs(),  events.load(), LoopCpuSeconds(server.loops()), LoopCpuSeconds(client.loops()),
                  server.Stats(), client.Stats()};
  };
  const auto a = sample();
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(seconds * 1000)));
  const auto b = sample();

  std::promise<void> stopped;
  server.loops().Post(0, [&] {
    producer.Stop();
    stopped.set_value();
  });
  stopped.get_future().wait();
  while (done.load() < streams) std::this_thread::sleep_for(std::chrono::milliseconds(5));

  const double wall = static_cast<double>(b.ns - a.ns) * 1e-9;
  const double n = static_cast<double>(b.events - a.events);
  Row row;
  row.config = config;
  row.events_per_s = n / wall;
  row.mb_per_s = static_cast<double>(b.client.bytes_read - a.client.bytes_read) / wall / 1e6;
  row.server_cpu = (b.server_cpu - a.server_cpu) / wall;
  row.client_cpu = (b.client_cpu - a.client_cpu) / wall;
  row.events_per_write = n / static_cast<double>(std::max<std::uint64_t>(1, b.server.writes - a.server.writes));
  row.events_per_read = n / static_cast<double>(std::max<std::uint64_t>(1, b.client.reads - a.client.reads));
  row.failed = failed.load();
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  std::vector<Config> configs;
  for (int i = 2; i < argc; ++i) {
    Config c;
    std::sscanf(argv[i], "%d:%d:%d:%d", &c.streams, &c.burst, &c.flush_us, &c.kernel_ts);
    configs.push_back(c);
  }
  // Both ends live in this process: each stream takes two descriptors.
  const auto max_streams = static_cast<int>((RaiseFileLimit() - 256) / 2);
  for (auto& c : configs) {
    if (c.streams > max_streams) {
      std::printf("%d streams need %d descriptors, over the limit: running %d\n", c.streams, 2 * c.streams,
                  max_streams);
      c.streams = max_streams;
    }
  }
  if (configs.empty()) {
    configs = {{1, 1, 0, 1}, {1, 16, 0, 1}, {1000, 1, 0, 1}, {1000, 16, 0, 1}, {1000, 1, 1000, 1}};
  }
  std::printf("SSE over loopback, one %zu-byte event per token, server loop on CPU 0, client loop on CPU 1, %.1f s\n",
              kChunk.size(), seconds);
  std::printf("%8s %6s %7s %4s %12s %8s %8s %8s %14s %8s %8s\n", "streams", "burst", "flush", "kts", "events/s", "MB/s",
              "srv CPU", "cli CPU", "ev/cli-CPU-s", "ev/write", "ev/read");
  for (const Config& config : configs) {
    const Row r = Measure(config, seconds);
    std::printf("%8d %6d %5dus %4s %12.0f %8.1f %7.0f%% %7.0f%% %14.0f %8.2f %8.2f%s\n", config.streams, config.burst,
                config.flush_us, config.kernel_ts ? "on" : "off", r.events_per_s, r.mb_per_s, r.server_cpu * 100,
                r.client_cpu * 100, r.events_per_s / std::max(r.client_cpu, 1e-9), r.events_per_write,
                r.events_per_read, r.failed ? "  (failed requests!)" : "");
    std::fflush(stdout);
  }
  std::printf(
      "burst: events per stream per producer turn; flush: ServerOptions::flush_interval; kts: client kernel\n"
      "receive timestamps; ev/cli-CPU-s: events per second of client CPU (what one client core parses\n"
      "when fully used); ev/write, ev/read: events per socket write / read\n");
  return 0;
}
