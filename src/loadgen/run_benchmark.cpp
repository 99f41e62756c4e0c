#include "loadgen/run_benchmark.hpp"

#include <algorithm>
#include <cstdio>

#include "core/clock.hpp"
#include "core/host.hpp"
#include "core/internal_error.hpp"
#include "core/numpy_stats.hpp"
#include "core/version.hpp"
#include "http/event_loops.hpp"
#include "loadgen/dispatcher.hpp"
#include "loadgen/event_loops_executor.hpp"
#include "loadgen/http_target.hpp"
#include "metrics/result_json.hpp"

namespace infermark::loadgen {
namespace {

double SecondsSince(std::int64_t from_ns) {
  return static_cast<double>(MonotonicNs() - from_ns) / 1e9;
}

void PrintProgress(const Dispatcher& d, std::int64_t start_ns, bool final_line) {
  const double elapsed = SecondsSince(start_ns);
  const std::size_t done = d.Finished();
  const double rate = elapsed > 0 ? static_cast<double>(d.OutputTokens()) / elapsed : 0.0;
  const double eta = done > 0 ? elapsed * static_cast<double>(d.Total() - done) / static_cast<double>(done) : 0.0;
  std::fprintf(stderr, "\r[bench] %zu/%zu done  %.0f tok/s  %zu errors  ETA %.0fs   %s", done, d.Total(), rate,
               d.Failed(), eta, final_line ? "\n" : "");
  std::fflush(stderr);
}

// Runs a started phase to its end, honouring the stop flag and the drain window (real time).
// Returns false when a stop signal cut the phase short.
bool WaitPhase(const BenchConfig& c, Target& target, Executor& executor, Dispatcher& d, bool measured) {
  bool complete = true;
  std::int64_t stopped_at = 0;  // real time sending stopped because of a signal; -1 once cancelled
  const std::int64_t start = MonotonicNs();
  std::int64_t last_progress = start;
  const bool progress = measured && c.progress;
  executor.RunUntil([&d] { return d.Done(); },
                    [&] {
                      const std::int64_t now = MonotonicNs();
                      if (stopped_at == 0 && c.stop != nullptr && c.stop->load()) {
                        d.StopSending();
                        complete = false;
                        stopped_at = now;
                      }
                      if (stopped_at > 0 && double(now - stopped_at) / 1e9 >= c.drain_s) {
                        target.CancelAll("interrupted: the drain window after the stop signal ended");
                        stopped_at = -1;
                      }
                      if (progress && now - last_progress > 500'000'000) {
                        PrintProgress(d, start, false);
                        last_progress = now;
                      }
                    });
  INFERMARK_CHECK(d.Done(), "every request of a phase ends before the phase does");
  if (progress) PrintProgress(d, start, true);
  return complete;
}

metrics::ResultHeader Header(const BenchPlan& plan, double duration_s, double start_unix, double end_unix) {
  const BenchConfig& c = plan.config;
  metrics::ResultHeader h;
  h.date = plan.date;
  h.backend = c.backend;
  h.model_id = c.model;
  h.tokenizer_id = plan.tokenizer_id;
  h.best_of = c.best_of;
  h.num_prompts = c.num_prompts;
  h.metadata = c.metadata;
  h.request_rate = c.request_rate;
  h.burstiness = c.burstiness;
  h.max_concurrency = c.max_concurrency;
  h.duration_s = duration_s;
  h.start_time_unix = start_unix;
  h.end_time_unix = end_unix;
  h.percentile_metrics.clear();
  for (const char* name : {"ttft", "tpot", "itl", "e2el"}) {
    if (std::find(c.percentile_metrics.begin(), c.percentile_metrics.end(), name) != c.percentile_metrics.end()) {
      h.percentile_metrics.emplace_back(name);
    }
  }
  h.detailed = c.save_detailed;
  return h;
}

}  // namespace

std::string DefaultResultFilename(const BenchConfig& c, const std::string& date) {
  const std::string rate = c.request_rate ? DumpJson(Json(*c.request_rate)) : "inf";
  const std::string concurrency = c.max_concurrency ? "-concurrency" + std::to_string(*c.max_concurrency) : "";
  const std::size_t slash = c.model.find_last_of('/');
  const std::string base = c.model.substr(slash == std::string::npos ? 0 : slash + 1);
  return c.backend + "-" + rate + "qps" + concurrency + "-" + base + "-" + date + ".json";
}

BenchResult RunBenchmark(const BenchPlan& plan, Target& target, Executor& executor) {
  const BenchConfig& c = plan.config;
  const std::vector<Prompt>& prompts = plan.dataset.prompts;

  // --- warm-up: copies of the first prompt, as the reference sends them, not measured ---
  const std::int64_t t_warmup = MonotonicNs();
  std::size_t warmup_failures = 0;
  bool complete = true;
  if (c.num_warmups > 0) {
    PhaseSpec warm;
    warm.order.assign(static_cast<std::size_t>(c.num_warmups), 0);
    warm.concurrency = c.max_concurrency;
    Dispatcher d(target, executor, prompts, std::move(warm));
    d.Start(executor.NowNs());
    complete = WaitPhase(c, target, executor, d, false);
    warmup_failures = d.Failed();
  }
  const double warmup_s = SecondsSince(t_warmup);

  // --- the measured window ---
  PhaseSpec run;
  run.order.resize(c.num_prompts);
  for (std::size_t i = 0; i < run.order.size(); ++i) run.order[i] = i;
  run.concurrency = c.max_concurrency;
  run.offsets = plan.offsets;
  run.keep_text = plan.keep_text;
  run.duration_s = c.duration_s;
  Dispatcher d(target, executor, prompts, std::move(run));
  target.OpenWindow();
  executor.StartLagProbe();
  const std::int64_t start_ns = executor.NowNs();
  if (complete) {
    d.Start(start_ns);
    complete = WaitPhase(c, target, executor, d, true);
  }
  const std::vector<double> lag = executor.StopLagProbe();
  target.CloseWindow();
  const std::int64_t t_metrics = MonotonicNs();

  BenchResult out;
  out.records = d.TakeSentRecords();
  out.complete = complete;
  out.dataset_length_mismatches = plan.dataset.length_mismatches;
  std::int64_t end_ns = start_ns;
  for (metrics::RequestRecord& r : out.records) {
    if (r.done_ns) end_ns = std::max(end_ns, *r.done_ns);
    if (plan.tokenizer && plan.keep_text && r.success) {
      r.client_output_tokens = static_cast<std::int64_t>(plan.tokenizer->CountTokens(r.generated_text));
    }
  }
  const double duration_s = std::max(static_cast<double>(end_ns - start_ns) / 1e9, 1e-9);

  metrics::MetricsOptions mo;
  mo.percentiles = c.metric_percentiles;
  mo.goodput_slo_ms = c.goodput;
  out.metrics = metrics::ComputeMetrics(out.records, duration_s, mo);

  TargetReport report = target.Report();
  if (report.engine) report.engine->window_s = duration_s;
  metrics::ClientSelfCheck self;
  self.loop_lag_samples = lag.size();
  self.loop_lag_p99_ms = NumpyPercentile(lag, 99.0) * 1000.0;
  self.loop_lag_max_ms = lag.empty() ? 0.0 : *std::max_element(lag.begin(), lag.end()) * 1000.0;
  // A predicted run has no host: its timeline is the ideal one.
  std::optional<metrics::HostError> host_error;
  if (!report.predicted) {
    metrics::HostErrorOptions ho;
    ho.window_start_ns = start_ns;
    ho.model_time_scale = report.model_time_scale;
    ho.metrics = mo;
    ho.gpus = report.gpus;
    ho.model_epoch_ns = report.model_epoch_ns;
    host_error = metrics::ComputeHostError(out.records, out.metrics, duration_s, ho);
  }
  out.verdict = metrics::Judge(out.metrics, out.records.size(), self, complete, c.limits,
                               report.engine ? &*report.engine : nullptr, host_error ? &*host_error : nullptr);

  const metrics::ResultHeader h = Header(plan, duration_s, executor.UnixAt(start_ns), executor.UnixAt(end_ns));
  Json own = Json::object();
  own["infermark_version"] = kVersion;
  own["git_commit"] = GitCommit();
  own["host"] = HostName();
  if (report.predicted) {
    own["predicted"] = true;
    own["kind"] = "predicted";
  }
  own["time_scale"] = report.time_scale;
  own["ignored_flags"] = c.ignored_flags;
  own["attempted"] = out.records.size();
  own["not_sent"] = c.num_prompts - out.records.size();
  own["warmups"] = c.num_warmups;
  own["warmup_failures"] = warmup_failures;
  own["dataset"] = {{"name", c.dataset_name},
                    {"length_mismatches", plan.dataset.length_mismatches},
                    {"send_token_ids", c.send_token_ids},
                    {"seed", c.seed}};
  own["phases_s"] = {{"dataset", plan.planning_s},
                     {"setup", report.setup_s},
                     {"warmup", warmup_s},
                     {"run", duration_s},
                     {"metrics", SecondsSince(t_metrics)}};
  Json client = report.client;
  client["loop_lag_p99_ms"] = self.loop_lag_p99_ms;
  client["loop_lag_max_ms"] = self.loop_lag_max_ms;
  client["loop_lag_samples"] = self.loop_lag_samples;
  own["client"] = std::move(client);
  if (!report.server.is_null()) own["server"] = report.server;
  if (host_error) {
    own["host_error_kind"] = metrics::HostErrorKindName(host_error->kind);
    own["host_error"] = metrics::HostErrorJson(*host_error);
    own["host_error_marks"] = metrics::FigureMarksJson(out.verdict.marks);
    own["host_timing"] = metrics::HostTimingJson(*host_error);
  }
  own["limits"] = {{"max_failure_fraction", c.limits.max_failure_fraction},
                   {"max_host_error_fraction", c.limits.max_host_error_fraction},
                   {"max_send_lag_p99", c.limits.max_send_lag_p99_ms},
                   {"max_loop_lag_p99", c.limits.max_loop_lag_p99_ms},
                   {"max_engine_lateness_p99", c.limits.max_engine_lateness_p99_ms},
                   {"max_engine_slip_fraction", c.limits.max_engine_slip_fraction},
                   {"min_completed", c.limits.min_completed}};
  out.result = metrics::BuildResultJson(h, out.metrics, out.records, out.verdict, complete, std::move(own));
  return out;
}

BenchResult RunHttpBenchmark(const BenchConfig& c) {
  const BenchPlan plan = PlanBenchmark(c, PromptForm::kText);
  HttpTargetOptions o;
  o.base_url = c.base_url.empty() ? "http://" + c.host + ":" + std::to_string(c.port) : c.base_url;
  o.url_flag = c.base_url.empty() ? "--host" : "--base-url";
  o.endpoint = c.endpoint.empty() ? DefaultEndpoint(plan.api) : c.endpoint;
  o.api = plan.api;
  o.body.model = c.served_model_name.empty() ? c.model : c.served_model_name;
  o.body.ignore_eos = c.ignore_eos;
  o.body.best_of = c.best_of;
  o.body.logprobs = c.logprobs;
  o.body.send_token_ids = c.send_token_ids;
  o.body.continuous_usage_stats = c.continuous_usage_stats;
  o.threads = c.threads;
  o.cpus = c.cpus;
  o.idle_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(c.timeout_s * 1000.0));
  HttpTarget target(std::move(o));
  target.Connect(c.max_concurrency ? std::min(static_cast<std::size_t>(*c.max_concurrency), c.num_prompts) : 0);
  EventLoopsExecutor executor(target.loops());
  BenchResult result = RunBenchmark(plan, target, executor);
  target.Shutdown();
  return result;
}

}  // namespace infermark::loadgen
