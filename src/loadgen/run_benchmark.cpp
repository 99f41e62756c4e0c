#include "loadgen/run_benchmark.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

#include "core/diagnostic.hpp"
#include "http/client.hpp"
#include "http/monotonic_clock.hpp"
#include "http/url.hpp"
#include "loadgen/api_driver.hpp"
#include "loadgen/schedule.hpp"
#include "loadgen/tokenizer_source.hpp"
#include "metrics/numpy_stats.hpp"
#include "metrics/result_json.hpp"

namespace infermark::loadgen {
namespace {

using metrics::RequestRecord;
using Clock = std::chrono::steady_clock;

[[noreturn]] void BadFlag(const std::string& flag, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

Clock::time_point AtNs(std::int64_t ns) {
  return Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(ns)));
}

double Since(std::int64_t from_ns) {
  return static_cast<double>(http::MonotonicNs() - from_ns) / 1e9;
}

// Wall-clock seconds of a monotonic instant, for the reference's *_time_unix fields.
double UnixAt(std::int64_t mono_ns) {
  const double now_unix = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return now_unix - static_cast<double>(http::MonotonicNs() - mono_ns) / 1e9;
}

std::string LocalDate() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%d-%H%M%S", &tm);
  return text;
}

std::string DefaultEndpoint(Api api) {
  switch (api) {
    case Api::kChatCompletions:
      return "/v1/chat/completions";
    case Api::kTrtLlm:
      return "/v2/models/ensemble/generate_stream";
    case Api::kCompletions:
      break;
  }
  return "/v1/completions";
}

// Timers on every loop that measure how late the loop runs them: a loop busy with parsing or
// callbacks delays every timestamp it takes after the kernel's, and this is how we know.
class LoopLagProbe {
 public:
  LoopLagProbe(http::EventLoops& loops, std::chrono::microseconds period)
      : loops_(loops),
        period_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(period).count()),
        lateness_(loops.size()) {
    for (std::size_t i = 0; i < loops.size(); ++i) Arm(i, http::MonotonicNs() + period_ns_);
  }
  void Stop() { active_.store(false); }
  // Only after the loops stopped (or the probe stopped and a period passed).
  std::vector<double> LatenessSeconds() const {
    std::vector<double> all;
    for (const auto& v : lateness_) {
      for (const std::int64_t ns : v) all.push_back(static_cast<double>(ns) / 1e9);
    }
    return all;
  }

 private:
  void Arm(std::size_t loop, std::int64_t due) {
    loops_.RunAt(loop, AtNs(due), [this, loop, due] {
      if (!active_.load(std::memory_order_relaxed)) return;
      const std::int64_t now = http::MonotonicNs();
      lateness_[loop].push_back(now - due);
      Arm(loop, std::max(due + period_ns_, now + period_ns_ / 2));
    });
  }
  http::EventLoops& loops_;
  std::int64_t period_ns_;
  std::vector<std::vector<std::int64_t>> lateness_;
  std::atomic<bool> active_{true};
};

// One phase of sending (warm-up or measured run): which prompts, when, how many at once.
class Dispatcher {
 public:
  Dispatcher(http::Client& client, Api api, const BodyOptions& body, const std::string& target,
             const std::vector<Prompt>& prompts, std::vector<std::size_t> order, std::optional<int> concurrency,
             bool keep_text)
      : client_(client),
        api_(api),
        body_(body),
        target_(target),
        prompts_(prompts),
        order_(std::move(order)),
        concurrency_(concurrency),
        keep_text_(keep_text),
        records_(order_.size()),
        recorders_(order_.size()) {
    std::size_t text_bytes = 0;
    for (std::size_t i = 0; i < order_.size(); ++i) {
      records_[i].index = order_[i];
      records_[i].prompt_tokens = prompts_[order_[i]].prompt_len;
      records_[i].expected_output_tokens = prompts_[order_[i]].output_len;
      text_bytes += prompts_[order_[i]].text.size() + prompts_[order_[i]].messages_json.size();
    }
    if (const char* key = std::getenv("OPENAI_API_KEY"); key != nullptr && *key != '\0') {
      authorization_ = std::string("Bearer ") + key;
    }
    // Bodies are built before the clock starts, so the send path only writes bytes: a closed loop
    // whose requests all finish together refills every slot at once, and each JSON body built
    // there would delay the ones after it. Past kMaxPrebuiltBytes they are built when sent.
    if (text_bytes <= kMaxPrebuiltBytes) {
      bodies_.reserve(order_.size());
      for (const std::size_t k : order_) bodies_.push_back(BuildRequestBody(api_, body_, prompts_[k]));
    }
  }

  // Starts sending: request i is due at start_ns + offsets[i] (empty offsets: all due at start).
  void Start(std::int64_t start_ns, std::vector<double> offsets) {
    start_ns_ = start_ns;
    offsets_ = std::move(offsets);
    if (offsets_.empty()) {
      std::vector<std::size_t> now;
      {
        std::lock_guard lock(mu_);
        while (next_ < records_.size() && (!concurrency_ || in_flight_ < static_cast<std::size_t>(*concurrency_))) {
          records_[next_].intended_ns = start_ns;
          records_[next_].opening_wave = true;
          ++in_flight_;
          sent_.fetch_add(1);
          now.push_back(next_++);
        }
      }
      for (const std::size_t i : now) Send(i, std::nullopt);
    } else {
      all_due_at_start_ = offsets_.back() <= 0.0;  // an infinite rate
      Pace(0);
    }
  }

  // No request is sent after this.
  void StopSending() {
    std::lock_guard lock(mu_);
    stopped_ = true;
    waiting_.clear();
  }

  std::size_t Sent() const { return sent_.load(); }
  std::size_t Finished() const { return finished_.load(); }
  std::size_t Failed() const { return failed_.load(); }
  std::int64_t OutputTokens() const { return output_tokens_.load(); }
  std::size_t Total() const { return records_.size(); }
  // Whether every request that will be sent has finished.
  bool Done() const {
    std::lock_guard lock(mu_);
    return finished_.load() == sent_.load() && (stopped_ || (next_ == records_.size() && waiting_.empty()));
  }

  // Only once Done() (the loops no longer touch the records).
  std::vector<RequestRecord> TakeSentRecords() {
    std::vector<RequestRecord> out;
    for (auto& r : records_) {
      if (r.sent_ns != 0 || r.done_ns != 0) out.push_back(std::move(r));
    }
    return out;
  }

 private:
  // Open loop: runs on loop 0 at each arrival time, sends what is due and re-arms for the next.
  void Pace(std::size_t from) {
    const std::int64_t now = http::MonotonicNs();
    std::size_t i = from;
    std::vector<std::size_t> send_now;
    {
      std::lock_guard lock(mu_);
      if (stopped_) return;
      while (i < records_.size()) {
        const std::int64_t due = start_ns_ + static_cast<std::int64_t>(offsets_[i] * 1e9);
        if (due > now) break;
        records_[i].intended_ns = due;
        if (concurrency_ && in_flight_ >= static_cast<std::size_t>(*concurrency_)) {
          waiting_.push_back(i);
        } else {
          records_[i].opening_wave = all_due_at_start_;
          ++in_flight_;
          sent_.fetch_add(1);
          send_now.push_back(i);
        }
        ++i;
      }
      next_ = i;
    }
    for (const std::size_t k : send_now) Send(k, std::nullopt);
    if (i < records_.size()) {
      const std::int64_t due = start_ns_ + static_cast<std::int64_t>(offsets_[i] * 1e9);
      client_.loops().RunAt(0, AtNs(due), [this, i] { Pace(i); });
    }
  }

  void Send(std::size_t i, std::optional<std::size_t> loop) {
    http::ClientRequest request;
    request.target = target_;
    request.body = bodies_.empty() ? BuildRequestBody(api_, body_, prompts_[order_[i]]) : std::move(bodies_[i]);
    if (!authorization_.empty()) request.headers.push_back(http::Header{"Authorization", authorization_});
    recorders_[i] = std::make_unique<StreamRecorder>(api_, records_[i], keep_text_);
    http::StreamCallbacks callbacks;
    StreamRecorder* recorder = recorders_[i].get();
    callbacks.on_head = [recorder](const http::ResponseHead& head) { recorder->OnHead(head); };
    callbacks.on_body = [recorder](std::string_view data, std::int64_t t) { recorder->OnBody(data, t); };
    callbacks.on_complete = [this, i](const http::ClientResult& result) { Complete(i, result); };
    client_.Send(std::move(request), std::move(callbacks), loop);
  }

  // On the request's loop: hand the slot to the next request, then close this one's record (the
  // next request is due the moment this one ended, so it goes out first).
  void Complete(std::size_t i, const http::ClientResult& result) {
    std::optional<std::size_t> next;
    {
      std::lock_guard lock(mu_);
      --in_flight_;
      if (!stopped_) {
        if (!waiting_.empty()) {
          next = waiting_.front();
          waiting_.pop_front();
        } else if (offsets_.empty() && next_ < records_.size()) {
          next = next_++;
        }
        if (next) {
          // Closed loop: the request was due the moment this slot freed (or later, if paced).
          records_[*next].intended_ns = std::max(records_[*next].intended_ns, result.done_ns);
          ++in_flight_;
          sent_.fetch_add(1);
        }
      }
    }
    if (next) Send(*next, client_.loops().CurrentLoop());
    recorders_[i]->Finish(result);
    recorders_[i].reset();
    const RequestRecord& r = records_[i];
    if (!r.success) failed_.fetch_add(1);
    if (r.server_output_tokens) output_tokens_.fetch_add(*r.server_output_tokens);
    finished_.fetch_add(1);
  }

  http::Client& client_;
  Api api_;
  const BodyOptions& body_;
  const std::string& target_;
  const std::vector<Prompt>& prompts_;
  std::vector<std::size_t> order_;
  std::optional<int> concurrency_;
  bool keep_text_;
  std::string authorization_{};  // "Bearer <OPENAI_API_KEY>", read once
  static constexpr std::size_t kMaxPrebuiltBytes = std::size_t{2} << 30;
  std::vector<RequestRecord> records_;
  std::vector<std::unique_ptr<StreamRecorder>> recorders_;
  std::vector<std::string> bodies_{};  // request i's body until it is sent (empty: built when sent)
  std::vector<double> offsets_{};
  std::int64_t start_ns_ = 0;
  bool all_due_at_start_ = false;
  mutable std::mutex mu_;
  std::deque<std::size_t> waiting_{};
  std::size_t in_flight_ = 0;
  std::size_t next_ = 0;
  bool stopped_ = false;
  std::atomic<std::size_t> sent_{0};
  std::atomic<std::size_t> finished_{0};
  std::atomic<std::size_t> failed_{0};
  std::atomic<std::int64_t> output_tokens_{0};
};

// Opens `n` keep-alive connections before the measured window, each with a cheap request of its
// own (the client paces the opening; the pools keep them), so the first requests of a closed-loop
// run do not pay for TCP connects in their send time and TTFT. Returns how many answered.
std::size_t PrewarmConnections(http::Client& client, std::size_t n) {
  std::atomic<std::size_t> pending{n};
  std::atomic<std::size_t> answered{0};
  for (std::size_t i = 0; i < n; ++i) {
    http::ClientRequest request;
    request.method = "GET";
    request.target = "/v1/models";
    request.content_type.clear();
    request.timeout = std::chrono::milliseconds(30'000);
    request.new_connection = true;
    http::StreamCallbacks callbacks;
    callbacks.on_complete = [&pending, &answered](const http::ClientResult& result) {
      if (result.ok()) answered.fetch_add(1);
      pending.fetch_sub(1);
    };
    client.Send(std::move(request), std::move(callbacks));
  }
  while (pending.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return answered.load();
}

bool StopRequested(const BenchConfig& c) {
  return c.stop != nullptr && c.stop->load();
}

void PrintProgress(const Dispatcher& d, std::int64_t start_ns, bool final_line) {
  const double elapsed = Since(start_ns);
  const std::size_t done = d.Finished();
  const double rate = elapsed > 0 ? static_cast<double>(d.OutputTokens()) / elapsed : 0.0;
  const double eta = done > 0 ? elapsed * static_cast<double>(d.Total() - done) / static_cast<double>(done) : 0.0;
  std::fprintf(stderr, "\r[bench] %zu/%zu done  %.0f tok/s  %zu errors  ETA %.0fs   %s", done, d.Total(), rate,
               d.Failed(), eta, final_line ? "\n" : "");
  std::fflush(stderr);
}

// Waits for the dispatcher to finish, honouring the stop flag, --duration and the drain window.
// Returns false when a stop signal cut the phase short.
bool WaitPhase(const BenchConfig& c, http::Client& client, Dispatcher& d, std::int64_t start_ns, bool measured) {
  bool complete = true;
  std::int64_t stop_at = 0;  // when sending stopped because of a signal
  auto last_progress = Clock::now();
  while (!d.Done()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (stop_at == 0 && StopRequested(c)) {
      d.StopSending();
      complete = false;
      stop_at = http::MonotonicNs();
    }
    if (measured && stop_at == 0 && c.duration_s > 0 && Since(start_ns) >= c.duration_s) {
      d.StopSending();
      stop_at = -1;  // by design: the in-flight requests finish normally
    }
    if (stop_at > 0 && Since(stop_at) >= c.drain_s) {
      client.CancelAll("interrupted: the drain window after the stop signal ended");
      stop_at = -1;
    }
    if (measured && c.progress && Clock::now() - last_progress > std::chrono::milliseconds(500)) {
      PrintProgress(d, start_ns, false);
      last_progress = Clock::now();
    }
  }
  if (measured && c.progress) PrintProgress(d, start_ns, true);
  return complete;
}

std::vector<double> Percentiles(std::vector<double> seconds_to_ms) {
  for (double& v : seconds_to_ms) v *= 1000.0;
  return seconds_to_ms;
}

// A read-delay percentile in ms (the upper edge of its histogram bucket).
double DelayMs(const http::DelayCounts& counts, double percent) {
  return static_cast<double>(http::DelayPercentileNs(counts, percent)) / 1e6;
}

}  // namespace

std::string DefaultResultFilename(const BenchConfig& c, const std::string& date) {
  const std::string rate = c.request_rate ? DumpJson(Json(*c.request_rate)) : "inf";
  const std::string concurrency = c.max_concurrency ? "-concurrency" + std::to_string(*c.max_concurrency) : "";
  const std::string base =
      c.model.substr(c.model.find_last_of('/') == std::string::npos ? 0 : c.model.find_last_of('/') + 1);
  return c.backend + "-" + rate + "qps" + concurrency + "-" + base + "-" + date + ".json";
}

BenchResult RunBenchmark(const BenchConfig& c) {
  const std::int64_t t_begin = http::MonotonicNs();
  const std::string date = LocalDate();
  const std::optional<Api> api = ApiOfBackend(c.backend);
  if (!api)
    BadFlag("--backend",
            "'" + c.backend +
                "' is not driven by infermark (vllm, sglang, openai, openai-chat, tensorrt-llm, lmdeploy, scalellm)");
  if (c.model.empty()) BadFlag("--model", "is required");
  if (c.num_prompts == 0) BadFlag("--num-prompts", "must be at least 1");
  if (c.max_concurrency && *c.max_concurrency < 1) BadFlag("--max-concurrency", "must be at least 1");
  if (c.request_rate && !(*c.request_rate > 0)) BadFlag("--request-rate", "must be positive (or inf)");
  if (!(c.burstiness > 0)) BadFlag("--burstiness", "must be positive");
  if (c.threads < 1) BadFlag("--threads", "must be at least 1");
  for (const auto& [metric, ms] : c.goodput) {
    if (metric != "ttft" && metric != "tpot" && metric != "e2el")
      BadFlag("--goodput", "'" + metric + "' is not ttft, tpot or e2el");
    if (!(ms >= 0)) BadFlag("--goodput", "SLO values must be non-negative milliseconds");
  }
  for (const std::string& m : c.percentile_metrics) {
    if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el")
      BadFlag("--percentile-metrics", "'" + m + "' is not ttft, tpot, itl or e2el");
  }
  for (const double p : c.metric_percentiles) {
    if (!(p >= 0 && p <= 100)) BadFlag("--metric-percentiles", "percentiles must lie in [0, 100]");
  }

  // --- tokenizer and dataset ---
  const std::string tokenizer_spec = c.tokenizer.empty() ? c.model : c.tokenizer;
  std::optional<tokenizer::Tokenizer> tok;
  if (const auto path = ResolveTokenizer(tokenizer_spec)) {
    tok = tokenizer::Tokenizer::Load(*path);
  } else if (c.dataset_name == "random" || !c.tokenizer.empty()) {
    BadFlag("--tokenizer", "'" + tokenizer_spec +
                               "' is neither a tokenizer.json, a folder holding one, nor a model in the local Hugging "
                               "Face cache");
  }
  NumpyRandomState global(c.seed);
  Dataset dataset;
  if (c.dataset_name == "random") {
    RandomDatasetOptions options = c.random;
    options.num_prompts = c.num_prompts;
    dataset = BuildRandomDataset(*tok, options, global);
  } else if (c.dataset_name == "jsonl") {
    if (c.dataset_path.empty()) BadFlag("--dataset-path", "is required with --dataset-name jsonl");
    dataset = LoadJsonlDataset(c.dataset_path, tok ? &*tok : nullptr, c.random.output_len, c.num_prompts);
  } else {
    BadFlag("--dataset-name", "'" + c.dataset_name + "' is not supported (random, jsonl)");
  }
  if (c.send_token_ids && *api == Api::kCompletions) {
    // Token ids reach the server as they are: no special tokens are added to them.
    for (Prompt& p : dataset.prompts) {
      if (!p.ids.empty()) p.prompt_len = static_cast<std::int64_t>(p.ids.size());
    }
  }
  const double dataset_s = Since(t_begin);
  const std::vector<double> offsets = ArrivalOffsets(c.num_prompts, c.request_rate, c.burstiness, global);

  // --- client and reachability ---
  const std::string base = c.base_url.empty() ? "http://" + c.host + ":" + std::to_string(c.port) : c.base_url;
  std::string url_error;
  const auto url = http::ParseUrl(base, &url_error);
  if (!url) BadFlag(c.base_url.empty() ? "--host" : "--base-url", url_error);
  std::string target = url->target == "/" ? "" : url->target;
  if (!target.empty() && target.back() == '/') target.pop_back();
  target += c.endpoint.empty() ? DefaultEndpoint(*api) : c.endpoint;

  http::ClientOptions client_options;
  client_options.host = url->host;
  client_options.port = url->port;
  client_options.tls = url->tls;
  client_options.threads = c.threads;
  client_options.cpus = c.cpus;
  client_options.idle_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(c.timeout_s * 1000.0));
  auto client = std::make_unique<http::Client>(client_options);

  const std::int64_t t_probe = http::MonotonicNs();
  {
    http::ClientRequest probe;
    probe.method = "GET";
    probe.target = "/v1/models";
    probe.content_type.clear();
    probe.timeout = std::chrono::milliseconds(10'000);
    const http::FetchResult answer = client->Fetch(probe);
    const auto e = answer.result.error;
    if (e == http::ErrorKind::kConnect || e == http::ErrorKind::kTls || e == http::ErrorKind::kTimeout ||
        e == http::ErrorKind::kReset) {
      throw ServerUnreachable("cannot reach the server at " + base + ": " + answer.result.message);
    }
  }
  // The pool is sized to the concurrency up front (the reference opens connections lazily, and
  // InferenceX's 2·C warm-ups are what keep its first measured requests off the connect path).
  std::size_t prewarmed = 0;
  if (c.max_concurrency) {
    prewarmed = PrewarmConnections(*client, std::min(static_cast<std::size_t>(*c.max_concurrency), c.num_prompts));
  }
  const double probe_s = Since(t_probe);

  BodyOptions body;
  body.model = c.served_model_name.empty() ? c.model : c.served_model_name;
  body.ignore_eos = c.ignore_eos;
  body.best_of = c.best_of;
  body.logprobs = c.logprobs;
  body.send_token_ids = c.send_token_ids;
  body.continuous_usage_stats = c.continuous_usage_stats;
  const bool keep_text = tok.has_value() || c.save_detailed;

  // --- warm-up: copies of the first prompt, as the reference sends them, not measured ---
  const std::int64_t t_warmup = http::MonotonicNs();
  std::size_t warmup_failures = 0;
  bool complete = true;
  if (c.num_warmups > 0) {
    Dispatcher warm(*client, *api, body, target, dataset.prompts,
                    std::vector<std::size_t>(static_cast<std::size_t>(c.num_warmups), 0), c.max_concurrency, false);
    warm.Start(http::MonotonicNs(), {});
    complete = WaitPhase(c, *client, warm, t_warmup, false);
    warmup_failures = warm.Failed();
  }
  const double warmup_s = Since(t_warmup);

  // --- the measured run ---
  std::vector<std::size_t> order(c.num_prompts);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  Dispatcher run(*client, *api, body, target, dataset.prompts, std::move(order), c.max_concurrency, keep_text);
  auto probe = std::make_unique<LoopLagProbe>(client->loops(), std::chrono::microseconds(1000));
  const std::int64_t start_ns = http::MonotonicNs();
  if (complete) {
    run.Start(start_ns, c.request_rate ? offsets : std::vector<double>{});
    complete = WaitPhase(c, *client, run, start_ns, true) && complete;
  }
  probe->Stop();
  const http::ClientStats stats = client->Stats();
  client.reset();  // joins the loops: records and probe samples are ours alone from here
  const std::int64_t t_metrics = http::MonotonicNs();

  BenchResult out;
  out.records = run.TakeSentRecords();
  out.complete = complete;
  out.dataset_length_mismatches = dataset.length_mismatches;
  std::int64_t end_ns = start_ns;
  for (RequestRecord& r : out.records) {
    end_ns = std::max(end_ns, r.done_ns);
    if (tok && r.success) r.client_output_tokens = static_cast<std::int64_t>(tok->CountTokens(r.generated_text));
  }
  const double duration_s = std::max(static_cast<double>(end_ns - start_ns) / 1e9, 1e-9);

  metrics::MetricsOptions mo;
  mo.percentiles = c.metric_percentiles;
  mo.goodput_slo_ms = c.goodput;
  out.metrics = metrics::ComputeMetrics(out.records, duration_s, mo);

  const std::vector<double> lag = probe->LatenessSeconds();
  metrics::ClientSelfCheck self;
  self.loop_lag_samples = lag.size();
  self.loop_lag_p99_ms = metrics::NumpyPercentile(lag, 99.0) * 1000.0;
  const std::vector<double> lag_ms = Percentiles(lag);
  self.loop_lag_max_ms = lag_ms.empty() ? 0.0 : *std::max_element(lag_ms.begin(), lag_ms.end());
  out.verdict = metrics::Judge(out.metrics, out.records.size(), self, complete, c.limits);

  metrics::ResultHeader h;
  h.date = date;
  h.backend = c.backend;
  h.model_id = c.model;
  h.tokenizer_id = tokenizer_spec;
  h.best_of = c.best_of;
  h.num_prompts = c.num_prompts;
  h.metadata = c.metadata;
  h.request_rate = c.request_rate;
  h.burstiness = c.burstiness;
  h.max_concurrency = c.max_concurrency;
  h.duration_s = duration_s;
  h.start_time_unix = UnixAt(start_ns);
  h.end_time_unix = UnixAt(end_ns);
  h.percentile_metrics.clear();
  for (const char* name : {"ttft", "tpot", "itl", "e2el"}) {
    if (std::find(c.percentile_metrics.begin(), c.percentile_metrics.end(), name) != c.percentile_metrics.end()) {
      h.percentile_metrics.emplace_back(name);
    }
  }
  h.detailed = c.save_detailed;

  Json own = Json::object();
  own["version"] = "infermark";
  own["ignored_flags"] = c.ignored_flags;
  own["attempted"] = out.records.size();
  own["not_sent"] = c.num_prompts - out.records.size();
  own["warmups"] = c.num_warmups;
  own["warmup_failures"] = warmup_failures;
  own["dataset"] = {{"name", c.dataset_name},
                    {"length_mismatches", dataset.length_mismatches},
                    {"send_token_ids", c.send_token_ids},
                    {"seed", c.seed}};
  own["phases_s"] = {{"dataset", dataset_s},
                     {"probe", probe_s},
                     {"warmup", warmup_s},
                     {"run", duration_s},
                     {"metrics", Since(t_metrics)}};
  own["client"] = {{"threads", c.threads},
                   {"cpus", c.cpus},
                   {"connections_opened", stats.connections_opened},
                   {"prewarmed_connections", prewarmed},
                   {"reads", stats.reads},
                   {"bytes_read", stats.bytes_read},
                   {"loop_lag_p99_ms", self.loop_lag_p99_ms},
                   {"loop_lag_max_ms", self.loop_lag_max_ms},
                   {"loop_lag_samples", self.loop_lag_samples},
                   {"read_delay_p50_ms", DelayMs(stats.read_delay, 50.0)},
                   {"read_delay_p99_ms", DelayMs(stats.read_delay, 99.0)},
                   {"read_delay_max_ms", DelayMs(stats.read_delay, 100.0)},
                   {"realtime_clock_steps", stats.realtime_clock_steps},
                   {"realtime_clock_step_max_ms", double(stats.largest_realtime_clock_step_ns) / 1e6}};
  own["limits"] = {{"max_failure_fraction", c.limits.max_failure_fraction},
                   {"max_send_lag_p99", c.limits.max_send_lag_p99_ms},
                   {"max_loop_lag_p99", c.limits.max_loop_lag_p99_ms},
                   {"min_completed", c.limits.min_completed}};
  out.result = metrics::BuildResultJson(h, out.metrics, out.records, out.verdict, complete, std::move(own));

  if (c.save_result || c.save_detailed) {
    const std::string name = c.result_filename.empty() ? DefaultResultFilename(c, date) : c.result_filename;
    const std::filesystem::path path =
        c.result_dir.empty() ? std::filesystem::path(name) : std::filesystem::path(c.result_dir) / name;
    if (!c.result_dir.empty()) std::filesystem::create_directories(c.result_dir);
    metrics::WriteResultJson(path.string(), out.result);
    out.result_path = path.string();
    if (c.save_detailed) {
      std::filesystem::path jsonl = path;
      jsonl.replace_extension(".requests.jsonl");
      metrics::WriteRecordsJsonl(jsonl.string(), out.records);
    }
  }
  return out;
}

}  // namespace infermark::loadgen
