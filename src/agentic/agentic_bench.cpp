#include "agentic/agentic_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "agentic/conversation.hpp"
#include "agentic/server_metrics.hpp"
#include "core/clock.hpp"
#include "core/diagnostic.hpp"
#include "http/client.hpp"
#include "http/url.hpp"
#include "loadgen/api_driver.hpp"
#include "loadgen/event_loops_executor.hpp"
#include "loadgen/http_target.hpp"
#include "tokenizer/locate.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::agentic {
namespace {

// `v` with `decimals` digits after the point.
std::string Format(double v, int decimals = 2) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The server's /metrics, scraped every interval on a thread of its own (and once more at each
// edge of the profiling window), never on the replay's event loop.
class MetricsThread {
 public:
  MetricsThread(std::vector<std::string> urls, double interval_s)
      : collector_(std::move(urls)),
        interval_(std::chrono::milliseconds(static_cast<std::int64_t>(interval_s * 1000))) {
    thread_ = std::thread([this] {
      std::unique_lock<std::mutex> lock(mutex_);
      while (!done_) {
        collector_.ScrapeOnce();
        wake_.wait_for(lock, interval_, [this] { return done_; });
      }
    });
  }
  ~MetricsThread() { Stop(); }
  MetricsThread(const MetricsThread&) = delete;
  MetricsThread& operator=(const MetricsThread&) = delete;
  void ScrapeNow() {
    std::lock_guard<std::mutex> lock(mutex_);
    collector_.ScrapeOnce();
  }
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  ServerMetricsCollector& collector() { return collector_; }

 private:
  ServerMetricsCollector collector_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  std::thread thread_;
};

// The HTTP target, with the server's /metrics scraped as the profiling window opens and closes.
class ScrapedTarget final : public loadgen::Target {
 public:
  ScrapedTarget(loadgen::HttpTarget& inner, MetricsThread& metrics, double& open_unix, double& close_unix)
      : inner_(inner), metrics_(metrics), open_unix_(open_unix), close_unix_(close_unix) {}
  void PreparePhase(std::span<const loadgen::Prompt> p, std::span<const std::size_t> o) override {
    inner_.PreparePhase(p, o);
  }
  void PrepareOpenPhase(std::size_t slots) override { inner_.PrepareOpenPhase(slots); }
  [[nodiscard]] std::string BuildBody(const loadgen::Prompt& prompt) const override { return inner_.BuildBody(prompt); }
  void Issue(const loadgen::RequestSpec& spec, loadgen::RequestTracker& tracker) override {
    inner_.Issue(spec, tracker);
  }
  void CancelAll(std::string_view why) override { inner_.CancelAll(why); }
  void OpenWindow() override {
    // The window's bounds enclose its edge scrapes, so the counters' increase covers all of it.
    open_unix_ = UnixNow();
    metrics_.ScrapeNow();
    inner_.OpenWindow();
  }
  void CloseWindow() override {
    inner_.CloseWindow();
    metrics_.ScrapeNow();
    close_unix_ = UnixNow();
  }
  [[nodiscard]] loadgen::TargetReport Report() const override { return inner_.Report(); }

 private:
  loadgen::HttpTarget& inner_;
  MetricsThread& metrics_;
  double& open_unix_;
  double& close_unix_;
};

}  // namespace

double LinearPercentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double k = (static_cast<double>(v.size()) - 1) * p / 100.0;
  const auto lo = static_cast<std::size_t>(std::floor(k));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (k - static_cast<double>(lo));
}

std::vector<std::string> JudgeReplay(const ReplayRun& run, double duration_s, double min_duration_s,
                                     bool unsafe_override, const std::vector<double>& send_lag_ms,
                                     double max_send_lag_p99_ms) {
  std::vector<std::string> reasons;
  if (run.cancelled) reasons.push_back("cancelled: " + run.cancel_reason);
  if (unsafe_override) reasons.push_back("--unsafe-override: InferenceX marks such runs invalid");
  if (duration_s < min_duration_s) {
    reasons.push_back("the profiling phase lasted " + Format(duration_s, 0) + " s, under the " +
                      Format(min_duration_s, 0) + " s minimum");
  }
  std::size_t profiled = 0;
  std::size_t ok = 0;
  std::size_t overflow = 0;
  std::size_t observed = 0;
  for (const ReplayRequest& r : run.requests) {
    if (r.warmup) continue;
    ++profiled;
    if (r.record.success) ++ok;
    if (r.overflow) ++overflow;
    // A completed request observed TTFT, and ITL when it streamed more than one chunk.
    if (r.record.success && r.record.first_chunk_ns && r.record.end_ns &&
        (*r.record.end_ns > *r.record.first_chunk_ns || r.record.server_output_tokens.value_or(1) <= 1)) {
      ++observed;
    }
  }
  if (ok == 0) reasons.push_back("no request of the profiling phase completed");
  if (profiled > 0 && static_cast<double>(overflow) > 0.01 * static_cast<double>(profiled)) {
    reasons.push_back(std::to_string(overflow) + " of " + std::to_string(profiled) +
                      " responses were context overflows (over 1 %)");
  }
  if (ok > 0 && static_cast<double>(observed) < 0.98 * static_cast<double>(ok)) {
    reasons.push_back("TTFT/ITL observations cover " +
                      Format(100.0 * static_cast<double>(observed) / static_cast<double>(ok), 1) +
                      " % of the completed requests (under 98 %)");
  }
  const double lag = LinearPercentile(send_lag_ms, 99);
  if (lag > max_send_lag_p99_ms) {
    reasons.push_back("the client sent calls late: p99 send lag " + Format(lag, 3) + " ms over " +
                      Format(max_send_lag_p99_ms, 3) + " ms (the client, not the server, set their times)");
  }
  return reasons;
}

AgenticBench RunAgenticBench(const AgenticBenchConfig& config) {
  AgenticBench out;
  if (config.replay.concurrency == 0) {
    throw InputError(Diagnostic{SourceMark{}, "", "--concurrency", "must be at least 1 (live session trees)"});
  }
  if (!(config.replay.duration_s > 0)) {
    throw InputError(Diagnostic{SourceMark{}, "", "--duration", "must be a positive number of seconds"});
  }
  if (config.replay.start_min_ratio < 0 || config.replay.start_max_ratio > 1 ||
      config.replay.start_min_ratio > config.replay.start_max_ratio) {
    throw InputError(Diagnostic{SourceMark{}, "", "--trajectory-start-min-ratio",
                                "the start ratios must satisfy 0 <= min <= max <= 1"});
  }
  const std::string tok_spec = config.tokenizer.empty() ? config.model : config.tokenizer;
  const std::optional<std::string> tok_path = tokenizer::Locate(tok_spec);
  if (!tok_path) {
    throw InputError(Diagnostic{SourceMark{}, "", config.tokenizer.empty() ? "--model" : "--tokenizer",
                                "no tokenizer.json found for '" + tok_spec +
                                    "' (a file, a folder holding one, or a model in the local Hugging Face cache)"});
  }
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::Load(*tok_path);
  out.tokenizer_source = *tok_path;
  TraceReadOptions read;
  read.max_context_tokens = config.max_context_length;
  out.traces = ReadTraces(config.traces, read);
  const FillerText text(&tok);

  loadgen::HttpTargetOptions o;
  o.base_url = config.base_url;
  o.endpoint = config.endpoint;
  o.api = loadgen::Api::kChatCompletions;
  o.body.model = config.served_model_name.empty() ? config.model : config.served_model_name;
  o.body.ignore_eos = true;
  o.threads = 1;  // one client core runs every lane
  o.cpus = config.cpus;
  loadgen::HttpTarget http(o);
  // Subagents take a tree past one request in flight: twice the lanes, as InferenceX sizes the
  // engines' --max-num-seqs, so a spawn does not pay for a TCP connect on the send path.
  http.Connect(2 * config.replay.concurrency);

  std::vector<std::string> urls{config.base_url + "/metrics"};
  urls.insert(urls.end(), config.server_metrics_urls.begin(), config.server_metrics_urls.end());
  MetricsThread metrics(urls, config.scrape_interval_s);
  double open_unix = 0;
  double close_unix = 0;
  ScrapedTarget target(http, metrics, open_unix, close_unix);
  loadgen::EventLoopsExecutor executor(http.loops());
  out.unix_at_zero = executor.UnixAt(0);
  out.run = Replay(out.traces.corpus, config.replay, &text, target, executor);
  out.report = http.Report();
  http.Shutdown();
  metrics.Stop();
  out.server_metrics = metrics.collector().Export(open_unix > 0 ? std::optional<double>(open_unix) : std::nullopt,
                                                  close_unix > 0 ? std::optional<double>(close_unix) : std::nullopt);
  out.metrics_scrapes = metrics.collector().scrapes().size() + metrics.collector().failures();
  out.metrics_scrape_failures = metrics.collector().failures();

  for (const ReplayRequest& r : out.run.requests) {
    if (r.warmup || !r.record.sent_ns || !r.record.intended_ns) continue;
    (r.record.opening_wave ? out.opening_lag_ms : out.send_lag_ms)
        .push_back(static_cast<double>(*r.record.sent_ns - *r.record.intended_ns) / 1e6);
  }
  const double duration_s = static_cast<double>(out.run.window_close_ns - out.run.window_open_ns) / 1e9;
  out.invalid_reasons = JudgeReplay(out.run, duration_s, config.min_duration_s, config.unsafe_override, out.send_lag_ms,
                                    config.max_send_lag_p99_ms);
  if (out.report.engine) {
    // The built-in engine times its own passes: a run it could not keep up with is not a measurement.
    const metrics::EngineSelfCheck& e = *out.report.engine;
    const double slipped = e.window_s > 0 ? e.clock_slipped_ms / (e.window_s * 1000.0) : 0.0;
    if (e.lateness_p99_ms > 1.0 || slipped > 0.01) {
      out.invalid_reasons.push_back("the built-in engine ran behind its model (pass lateness p99 " +
                                    Format(e.lateness_p99_ms, 3) + " ms, clock slips " + Format(100 * slipped, 2) +
                                    " % of the window)");
    }
  }
  return out;
}

}  // namespace infermark::agentic
