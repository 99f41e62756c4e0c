// The built-in engine in max-speed mode (`engine serve --time-scale 0`) streaming to many
// concurrent clients: how many streams it holds with every one of them receiving tokens, and how
// many tokens per second leave it, with one token per SSE event. The engine is the real binary,
// pinned to CPU 0 (--cpus 0, one event-loop thread); the consumer is src/http's client on one
// loop pinned to CPU 1, parsing every event with SseParser. Closed loop: each stream asks for
// `max_tokens` tokens (ignore_eos) and asks again when they are done. CPU use is the engine
// process's (utime + stime from /proc) and the client loop thread's, over the measured window.
// Usage: bench_engine_stream [seconds] [streams ...]   (default: 3 s; 1 64 1024 10000)
// BENCH_ENGINE_ARGS adds flags to the engine's command line.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.hpp"
#include "http/client.hpp"
#include "http/fd_limit.hpp"
#include "http/sse_parser.hpp"
#include "loop_cpu_time.hpp"

namespace {

using namespace infermark::http;
using infermark::MonotonicNs;

using infermark::bench::LoopCpuSeconds;
using infermark::bench::ThreadCpuSeconds;

// CPU seconds (user + system) the process has used.
double ProcessCpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(in, stat);
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string skip;
  for (int i = 0; i < 11; ++i) fields >> skip;  // fields 3..13
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

// The engine as a child process.
class Engine {
 public:
  explicit Engine(int max_seqs) {
    int out[2];
    if (pipe(out) != 0) std::abort();
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, STDERR_FILENO);
      const std::string seqs = std::to_string(max_seqs);
      std::vector<std::string> args{INFERMARK_BINARY,
                                    "engine",
                                    "serve",
                                    "--model",
                                    "llama-3.1-8b",
                                    "--hardware",
                                    "b300",
                                    "--tp",
                                    "8",
                                    "--max-num-seqs",
                                    seqs,
                                    "--max-num-batched-tokens",
                                    std::to_string(std::max(max_seqs, 8192)),
                                    "--max-model-len",
                                    "100000",
                                    "--no-enable-prefix-caching",
                                    "--time-scale",
                                    "0",
                                    "--port",
                                    "0",
                                    "--cpus",
                                    "0"};
      // Extra engine flags for experiments, e.g. BENCH_ENGINE_ARGS="--flush-interval-us 200".
      if (const char* extra = std::getenv("BENCH_ENGINE_ARGS")) {
        std::istringstream words(extra);
        for (std::string w; words >> w;) args.push_back(w);
      }
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    std::string text;
    char buf[256];
    while (text.find('\n') == std::string::npos) {
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) {
        std::fprintf(stderr, "the engine did not start\n");
        std::exit(1);
      }
      text.append(buf, static_cast<std::size_t>(n));
    }
    close(out[0]);
    port_ = static_cast<std::uint16_t>(std::stoi(text.substr(text.rfind(':') + 1)));
  }
  ~Engine() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  std::uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

struct Row {
  int streams = 0;
  int receiving = 0;
  double tokens_per_s = 0;
  double engine_cpu = 0;
  double client_cpu = 0;
  double events_per_read = 0;
  int failed = 0;
};

Row Measure(int streams, double seconds) {
  const bool two_cpus = std::thread::hardware_concurrency() >= 2;
  Engine engine(std::max(streams, 16));
  ClientOptions options;
  options.port = engine.port();
  options.idle_timeout = std::chrono::seconds(60);
  if (two_cpus) options.cpus = {1};
  Client client(options);

  // Per-stream state, touched only by the client's loop thread.
  struct Stream {
    SseParser parser;
    std::uint64_t tokens = 0;
  };
  std::vector<Stream> state(static_cast<std::size_t>(streams));
  std::atomic<std::uint64_t> total{0};
  std::atomic<int> failed{0};
  std::atomic<bool> stopping{false};
  std::atomic<int> open{0};
  std::uint64_t local_total = 0;
  // Enough tokens that a stream rarely restarts, few enough that 10,000 fit in the KV cache.
  const int max_tokens = std::clamp(8'000'000 / std::max(streams, 1), 200, 20'000);
  const std::string body = R"({"model":"llama-3.1-8b","prompt":"Hello","max_tokens":)" + std::to_string(max_tokens) +
                           R"(,"ignore_eos":true,"stream":true})";
  std::function<void(std::size_t)> send = [&](std::size_t i) {
    ClientRequest request;
    request.target = "/v1/completions";
    request.body = body;
    Stream* s = &state[i];
    open.fetch_add(1);
    client.Send(std::move(request),
                {.on_head = {},
                 .on_body =
                     [s, &total, &local_total](std::string_view data, std::int64_t) {
                       s->parser.Feed(data, [s, &local_total](const SseEvent& e) {
                         if (!e.IsDone()) {
                           ++s->tokens;
                           ++local_total;
                         }
                       });
                       total.store(local_total, std::memory_order_relaxed);
                     },
                 .on_complete =
                     [i, &send, &failed, &stopping, &open](const ClientResult& r) {
                       open.fetch_sub(1);
                       if (stopping.load()) return;
                       if (!r.ok()) {
                         if (failed.fetch_add(1) == 0) std::fprintf(stderr, "first failure: %s\n", r.message.c_str());
                         return;
                       }
                       send(i);  // closed loop: the next request on this slot
                     }},
                0);
  };
  for (int i = 0; i < streams; ++i) send(static_cast<std::size_t>(i));
  // Wait until every stream has received a token (or a minute passed).
  auto receiving = [&] {
    std::promise<int> n;
    client.loops().Post(0, [&] {
      n.set_value(
          static_cast<int>(std::count_if(state.begin(), state.end(), [](const Stream& s) { return s.tokens > 0; })));
    });
    return n.get_future().get();
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (receiving() < streams && failed.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  auto snapshot = [&] {
    std::promise<std::vector<std::uint64_t>> p;
    client.loops().Post(0, [&] {
      std::vector<std::uint64_t> v;
      v.reserve(state.size());
      for (const auto& s : state) v.push_back(s.tokens);
      p.set_value(std::move(v));
    });
    return p.get_future().get();
  };
  const auto before = snapshot();
  const std::int64_t t0 = MonotonicNs();
  const std::uint64_t total0 = total.load();
  const double engine_cpu0 = ProcessCpuSeconds(engine.pid());
  const double client_cpu0 = LoopCpuSeconds(client.loops());
  const ClientStats stats0 = client.Stats();
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int>(seconds * 1000)));
  const auto after = snapshot();
  const std::int64_t t1 = MonotonicNs();
  const std::uint64_t total1 = total.load();
  const double engine_cpu1 = ProcessCpuSeconds(engine.pid());
  const double client_cpu1 = LoopCpuSeconds(client.loops());
  const ClientStats stats1 = client.Stats();

  stopping.store(true);
  client.CancelAll("bench over");
  while (open.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));

  const double wall = static_cast<double>(t1 - t0) * 1e-9;
  Row row;
  row.streams = streams;
  for (std::size_t i = 0; i < before.size(); ++i) row.receiving += after[i] > before[i];
  row.tokens_per_s = static_cast<double>(total1 - total0) / wall;
  row.engine_cpu = (engine_cpu1 - engine_cpu0) / wall;
  row.client_cpu = (client_cpu1 - client_cpu0) / wall;
  row.events_per_read = static_cast<double>(total1 - total0) /
                        static_cast<double>(std::max<std::uint64_t>(1, stats1.reads - stats0.reads));
  row.failed = failed.load();
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 3.0;
  std::vector<int> counts;
  for (int i = 2; i < argc; ++i) counts.push_back(std::atoi(argv[i]));
  if (counts.empty()) counts = {1, 64, 1024, 10000};
  const auto limit = RaiseFileLimit();
  std::printf(
      "engine serve --time-scale 0 (llama-3.1-8b, 8x b300 modelled) on CPU 0, src/http client on CPU 1, "
      "one token per SSE event, %.1f s per row; fd limit %llu; load average before: %s\n",
      seconds, static_cast<unsigned long long>(limit), LoadAverage().c_str());
  std::printf("%8s %10s %12s %11s %11s %9s\n", "streams", "receiving", "tokens/s", "engine CPU", "client CPU",
              "ev/read");
  for (const int streams : counts) {
    const Row r = Measure(streams, seconds);
    std::printf("%8d %10d %12.0f %10.0f%% %10.0f%% %9.1f%s\n", r.streams, r.receiving, r.tokens_per_s,
                r.engine_cpu * 100, r.client_cpu * 100, r.events_per_read, r.failed ? "  (failed requests!)" : "");
    std::fflush(stdout);
  }
  std::printf("receiving: streams that received tokens during the measured window; load average after: %s\n",
              LoadAverage().c_str());
  return 0;
}
