// The load generator's own speed, printed as a table: streamed tokens/s, whether every stream
// received all its tokens with a VALID verdict, and the client-added timing error (client chunk
// arrival minus the time the server handed that chunk to the socket) at several concurrencies.
//
// Two targets:
//  - built in (default): an in-process emitter on its own core streams one token per SSE event to
//    every stream, as fast as it can (max speed) or every --token-interval-us; it records the write
//    time of every event (StreamWriter::OnWritten), so the client error is exact.
//  - --port P [--host H]: any OpenAI-compatible server (e.g. `infermark engine serve --time-scale 0`);
//    throughput and verdict only (compare against that server's --emission-log for the error).
// The client is pinned to --client-cpu (one event loop); the emitter to --server-cpu.
//
//   bench_loadgen --concurrency 64,1024,10000 --tokens 256 --client-cpu 0 --server-cpu 1
//   bench_loadgen --port 8000 --model meta-llama/Llama-3.1-8B-Instruct --concurrency 1024
//   bench_loadgen --parse-only 1   (the per-event cost of SSE framing, simdjson and the record alone)
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.hpp"
#include "http/server.hpp"
#include "loadgen/api_driver.hpp"
#include "loadgen/run_benchmark.hpp"

namespace {

using infermark::MonotonicNs;

struct Flags {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string model = "bench";
  std::vector<int> concurrency{64, 1024, 10000};
  int tokens = 256;
  int client_cpu = 0;
  int server_cpu = 1;
  int token_interval_us = 0;
  std::size_t threads = 1;
};

std::vector<int> ParseList(const std::string& text) {
  std::vector<int> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(std::atoi(text.substr(start, comma - start).c_str()));
    start = comma + 1;
  }
  return out;
}

// The built-in target: every stream gets `tokens` one-token events, then usage and [DONE].
class Emitter {
 public:
  Emitter(int cpu, int tokens, int interval_us) : tokens_(tokens), interval_us_(interval_us), server_(Options(cpu)) {
    server_.Route("GET", "/v1/models", [](infermark::http::Request&, infermark::http::Responder r) {
      r.Respond(200, "application/json", R"({"data":[{"id":"bench"}]})");
    });
    server_.Route("POST", "/v1/completions", [this](infermark::http::Request&, infermark::http::Responder r) {
      auto s = std::make_unique<Stream>();
      s->id = next_id_++;
      s->writer = r.StartStream();
      Stream* raw = s.get();
      s->writer.OnWritten([raw](std::uint64_t events, std::int64_t write_ns) {
        while (raw->written.size() < events) raw->written.push_back(write_ns);
      });
      {
        std::lock_guard lock(mu_);
        streams_.push_back(std::move(s));
      }
      if (!ticking_.exchange(true)) Tick();
    });
    server_.Start();
  }
  ~Emitter() { server_.Stop(); }
  std::uint16_t port() const { return server_.port(); }
  // Write time of event k of the stream whose chunks carry id "s<id>".
  const std::vector<std::int64_t>* WriteTimes(const std::string& response_id) const {
    const std::size_t id = std::strtoull(response_id.c_str() + 1, nullptr, 10);
    for (const auto& s : streams_) {
      if (s->id == id) return &s->written;
    }
    return nullptr;
  }
  void Reset() {
    std::lock_guard lock(mu_);
    streams_.clear();
  }

 private:
  struct Stream {
    std::size_t id = 0;
    infermark::http::StreamWriter writer;
    int sent = 0;
    bool done = false;
    std::vector<std::int64_t> written;
  };
  static infermark::http::ServerOptions Options(int cpu) {
    infermark::http::ServerOptions o;
    o.threads = 1;
    if (cpu >= 0) o.cpus = {cpu};
    o.high_water_bytes = 64 * 1024;
    return o;
  }
  // One round: one event to every stream not held back by its reader.
  void Tick() {
    bool active = false;
    char event[256];
    {
      std::lock_guard lock(mu_);
      for (auto& s : streams_) {
        if (s->done) continue;
        active = true;
        if (s->writer.BufferedBytes() > 64 * 1024) continue;
        if (s->sent < tokens_) {
          const int n = std::snprintf(event, sizeof event,
                                      R"({"id":"s%zu","object":"text_completion","choices":[{"index":0,"text":" tok",)"
                                      R"("finish_reason":null}],"usage":{"prompt_tokens":4,"completion_tokens":%d,)"
                                      R"("total_tokens":%d}})",
                                      s->id, s->sent + 1, s->sent + 5);
          s->writer.SendEvent(std::string_view(event, static_cast<std::size_t>(n)));
          ++s->sent;
        } else {
          const int n = std::snprintf(
              event, sizeof event, R"({"id":"s%zu","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":%d}})",
              s->id, tokens_);
          s->writer.SendEvent(std::string_view(event, static_cast<std::size_t>(n)));
          s->writer.SendEvent("[DONE]");
          s->writer.End();
          s->done = true;
        }
      }
    }
    if (!active) {
      ticking_.store(false);
      return;
    }
    if (interval_us_ > 0) {
      server_.loops().RunAt(0, std::chrono::steady_clock::now() + std::chrono::microseconds(interval_us_),
                            [this] { Tick(); });
    } else {
      server_.loops().Post(0, [this] { Tick(); });
    }
  }

  int tokens_;
  int interval_us_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::atomic<std::size_t> next_id_{0};
  std::atomic<bool> ticking_{false};
  infermark::http::Server server_;
};

// The client's own work per event, without sockets: one stream of vLLM-style one-token events with
// continuous usage, fed to a StreamRecorder in 4 KiB reads.
void ParseOnly() {
  std::string stream;
  const int events = 1'000'000;
  char event[256];
  for (int k = 0; k < events; ++k) {
    const int n =
        std::snprintf(event, sizeof event,
                      "data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\","
                      "\"choices\":[{\"index\":0,\"text\":\" tok\",\"logprobs\":null,\"finish_reason\":null}],"
                      "\"usage\":{\"prompt_tokens\":4,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n",
                      k + 5, k + 1);
    stream.append(event, static_cast<std::size_t>(n));
  }
  for (const bool keep_text : {false, true}) {
    infermark::metrics::RequestRecord record;
    record.chunk_ns.reserve(events);
    record.chunk_tokens.reserve(events);
    struct Ignore final : infermark::loadgen::RequestListener {
      void OnFreed(std::size_t, std::int64_t) override {}
      void OnClosed(std::size_t) override {}
    } listener;
    infermark::loadgen::RequestTracker tracker(record, listener, 0, keep_text);
    infermark::loadgen::StreamRecorder recorder(infermark::loadgen::Api::kCompletions, tracker);
    infermark::http::ResponseHead head;
    head.status = 200;
    recorder.OnHead(head);
    const std::int64_t start = MonotonicNs();
    for (std::size_t at = 0; at < stream.size(); at += 4096) {
      recorder.OnBody(std::string_view(stream).substr(at, 4096), MonotonicNs());
    }
    const double ns = static_cast<double>(MonotonicNs() - start);
    std::printf("| parse only, %s | %zu events | %.0f ns/event | %.2f M events/s |\n",
                keep_text ? "text kept" : "text not kept", record.chunk_ns.size(), ns / events, events / ns * 1e3);
  }
}

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5))];
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--host")
      f.host = v;
    else if (k == "--port")
      f.port = std::atoi(v.c_str());
    else if (k == "--model")
      f.model = v;
    else if (k == "--concurrency")
      f.concurrency = ParseList(v);
    else if (k == "--tokens")
      f.tokens = std::atoi(v.c_str());
    else if (k == "--client-cpu")
      f.client_cpu = std::atoi(v.c_str());
    else if (k == "--server-cpu")
      f.server_cpu = std::atoi(v.c_str());
    else if (k == "--token-interval-us")
      f.token_interval_us = std::atoi(v.c_str());
    else if (k == "--threads")
      f.threads = static_cast<std::size_t>(std::atoi(v.c_str()));
    else if (k == "--parse-only") {
      ParseOnly();
      return 0;
    } else {
      std::fprintf(stderr, "unknown flag %s (see the comment at the top of bench/bench_loadgen.cpp)\n", k.c_str());
      return 2;
    }
  }
  const std::string dataset =
      (std::filesystem::temp_directory_path() / ("bench_loadgen_" + std::to_string(getpid()) + ".jsonl")).string();
  std::ofstream(dataset) << "{\"prompt\": \"Tell me a long story.\"}\n";

  std::unique_ptr<Emitter> emitter;
  if (f.port == 0) emitter = std::make_unique<Emitter>(f.server_cpu, f.tokens, f.token_interval_us);
  std::printf(
      "| target | concurrency | tokens/stream | streamed tok/s | streams served | verdict | client − write p50 µs | "
      "p99 µs | max µs | ITL p99 ms | loop lag p99 ms | send lag p99 ms |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const int c : f.concurrency) {
    infermark::loadgen::BenchConfig cfg;
    cfg.backend = "vllm";
    cfg.host = f.host;
    cfg.port = emitter ? emitter->port() : f.port;
    cfg.model = f.model;
    cfg.dataset_name = "jsonl";
    cfg.dataset_path = dataset;
    cfg.random.output_len = f.tokens;
    cfg.ignore_eos = true;
    cfg.num_prompts = static_cast<std::size_t>(c);
    cfg.max_concurrency = c;
    cfg.threads = f.threads;
    if (f.client_cpu >= 0) cfg.cpus = {f.client_cpu};
    cfg.percentile_metrics = {"itl"};
    cfg.metric_percentiles = {50, 99};
    infermark::loadgen::BenchResult r;
    try {
      r = infermark::loadgen::RunHttpBenchmark(cfg);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "concurrency %d: %s\n", c, e.what());
      return 1;
    }
    std::size_t served = 0, chunks = 0;
    std::vector<double> error_us;
    for (const auto& rec : r.records) {
      chunks += rec.chunk_ns.size();
      if (rec.success && rec.chunk_ns.size() == static_cast<std::size_t>(f.tokens)) ++served;
      if (!emitter) continue;
      const std::vector<std::int64_t>* written = emitter->WriteTimes(rec.response_id);
      if (written == nullptr) continue;
      for (std::size_t k = 0; k < rec.chunk_ns.size() && k < written->size(); ++k) {
        error_us.push_back(static_cast<double>(rec.chunk_ns[k] - (*written)[k]) / 1e3);
      }
    }
    const double duration = r.result["duration"].get<double>();
    const auto& own = r.result["infermark"];
    std::printf("| %s | %d | %d | %.0f | %zu/%d | %s | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f |\n",
                emitter ? (f.token_interval_us > 0 ? "emitter paced" : "emitter max speed") : "server", c, f.tokens,
                static_cast<double>(chunks) / duration, served, c, r.verdict.Name(), Pct(error_us, 50),
                Pct(error_us, 99), error_us.empty() ? 0.0 : *std::max_element(error_us.begin(), error_us.end()),
                r.metrics.itl.percentiles.size() > 1 ? r.metrics.itl.percentiles[1].second : 0.0,
                own["client"]["loop_lag_p99_ms"].get<double>(),
                r.metrics.send_lag.percentiles.size() > 1 ? r.metrics.send_lag.percentiles[1].second : 0.0);
    for (const auto& reason : r.verdict.reasons) std::printf("|   | %s |\n", reason.c_str());
    std::fflush(stdout);
    if (emitter) emitter->Reset();
  }
  std::filesystem::remove(dataset);
  return 0;
}
