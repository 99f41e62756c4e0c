// `infermark bench serve`: the serving benchmark client. Accepts the reference client's flags
// (InferenceX's benchmark_serving.py command lines run unchanged; flags without effect here are
// accepted and listed under "ignored_flags" in the result) plus infermark's own; all logic is in
// src/loadgen; this file reads flags, writes the result files and prints the summary. Exit 0 for a
// VALID run, 1 for an INVALID or unreachable one, 2 for bad flags, 3 for a fault of infermark.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/gpu_telemetry.hpp"
#include "cli/list_flags.hpp"
#include "cli/signal_watcher.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "loadgen/http_target.hpp"
#include "loadgen/run_benchmark.hpp"
#include "metrics/request_timeline.hpp"
#include "metrics/result_json.hpp"

namespace infermark::cli {
namespace {

struct BenchFlags {
  loadgen::BenchConfig config;
  std::string request_rate = "inf";
  std::string percentile_metrics = "ttft,tpot,itl,e2el";
  std::string metric_percentiles = "90,99,99.9";
  std::vector<std::string> goodput;
  std::vector<std::string> metadata;
  std::string cpus;
  int max_concurrency = 0;
  std::optional<int> logprobs_value;
  int logprobs = -1;
  bool disable_tqdm = false;
  bool no_progress = false;
  bool no_continuous_usage = false;
  double max_failure_percent = 5.0;
  double max_engine_slip_percent = 1.0;
  bool gpu_telemetry = false;
  double gpu_telemetry_interval_s = 1.0;
  long long expected_num_gpus = 0;
  std::vector<CLI::Option*> ignorable;
};

[[noreturn]] void BadFlag(const std::string& flag, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

double ParseNumber(const std::string& flag, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    BadFlag(flag, "'" + text + "' is not a number");
  }
}

// Writes the result where the flags say (the reference's default name otherwise) and, with
// --save-detailed, one JSON line per request beside it; returns the result's path.
std::string SaveResult(const loadgen::BenchConfig& c, const loadgen::BenchResult& r) {
  namespace fs = std::filesystem;
  const std::string name =
      c.result_filename.empty() ? loadgen::DefaultResultFilename(c, r.result.value("date", "")) : c.result_filename;
  const fs::path path = c.result_dir.empty() ? fs::path(name) : fs::path(c.result_dir) / name;
  if (!c.result_dir.empty()) fs::create_directories(c.result_dir);
  metrics::WriteResultJson(path.string(), r.result);
  if (c.save_detailed) {
    fs::path jsonl = path;
    jsonl.replace_extension(".requests.jsonl");
    metrics::WriteRecordsJsonl(jsonl.string(), r.records);
  }
  return path.string();
}

void PrintBenchSummary(const loadgen::BenchResult& r, const std::string& result_path) {
  const auto& m = r.metrics;
  std::printf("============ Serving Benchmark Result ============\n");
  std::printf("%-40s %10zu\n", "Successful requests:", m.completed);
  std::printf("%-40s %10zu\n", "Failed requests:", m.failed);
  std::printf("%-40s %10.2f\n", "Benchmark duration (s):", r.result.value("duration", 0.0));
  std::printf("%-40s %10lld\n", "Total input tokens:", static_cast<long long>(m.total_input));
  std::printf("%-40s %10lld\n", "Total generated tokens:", static_cast<long long>(m.total_output));
  std::printf("%-40s %10.2f\n", "Request throughput (req/s):", m.request_throughput);
  std::printf("%-40s %10.2f\n", "Output token throughput (tok/s):", m.output_throughput);
  std::printf("%-40s %10.2f\n", "Total Token throughput (tok/s):", m.total_token_throughput);
  const auto line = [](const char* name, const metrics::MetricSummary& s) {
    std::printf("%-40s %10.2f\n", (std::string("Mean ") + name + " (ms):").c_str(), s.mean);
    std::printf("%-40s %10.2f\n", (std::string("Median ") + name + " (ms):").c_str(), s.median);
    for (const auto& [p, v] : s.percentiles) {
      std::printf("%-40s %10.2f\n", ("P" + metrics::PercentileWord(p) + " " + name + " (ms):").c_str(), v);
    }
  };
  line("TTFT", m.ttft);
  line("TPOT", m.tpot);
  line("ITL", m.itl);
  line("E2EL", m.e2el);
  std::printf("%-40s %10s\n", "Verdict:", r.verdict.Name());
  for (const std::string& reason : r.verdict.reasons) std::printf("  - %s\n", reason.c_str());
  if (!result_path.empty()) std::printf("Result: %s\n", result_path.c_str());
  std::printf("==================================================\n");
  std::fflush(stdout);
}

int RunBench(BenchFlags& f) {
  loadgen::BenchConfig& c = f.config;
  if (f.request_rate != "inf") c.request_rate = ParseNumber("--request-rate", f.request_rate);
  if (f.max_concurrency != 0) c.max_concurrency = f.max_concurrency;
  if (f.logprobs >= 0) c.logprobs = f.logprobs;
  c.percentile_metrics = SplitComma(f.percentile_metrics);
  c.metric_percentiles.clear();
  for (const std::string& p : SplitComma(f.metric_percentiles)) {
    c.metric_percentiles.push_back(ParseNumber("--metric-percentiles", p));
  }
  for (const std::string& item : f.goodput) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) BadFlag("--goodput", "'" + item + "' is not KEY:VALUE (e.g. ttft:500)");
    c.goodput[item.substr(0, colon)] = ParseNumber("--goodput", item.substr(colon + 1));
  }
  for (const std::string& item : f.metadata) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) BadFlag("--metadata", "'" + item + "' is not KEY=VALUE");
    c.metadata.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  c.cpus = ParseCpuList("--cpus", f.cpus);
  c.continuous_usage_stats = !f.no_continuous_usage;
  c.limits.max_failure_fraction = f.max_failure_percent / 100.0;
  c.limits.max_engine_slip_fraction = f.max_engine_slip_percent / 100.0;
  c.progress = !f.disable_tqdm && !f.no_progress && isatty(STDERR_FILENO) != 0;
  for (CLI::Option* option : f.ignorable) {
    if (option->count() > 0) c.ignored_flags.push_back(option->get_name());
  }
  if (!c.ignored_flags.empty()) {
    std::string names;
    for (const auto& n : c.ignored_flags) names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr, "infermark bench: accepted without effect: %s\n", names.c_str());
  }

  if (f.gpu_telemetry) {
    if (!c.save_result && !c.save_detailed)
      BadFlag("--gpu-telemetry", "needs --save-result (the power fields go there)");
    if (!(f.gpu_telemetry_interval_s > 0)) BadFlag("--gpu-telemetry-interval", "must be a positive number of seconds");
    if (f.expected_num_gpus < 0) BadFlag("--expected-num-gpus", "must be 0 (the GPUs sampled) or more");
  }

  SignalWatcher signals("infermark bench");
  c.stop = signals.flag();
  // Started after the watcher blocked SIGINT/SIGTERM, so that the sampling thread never takes them.
  std::optional<GpuTelemetry> telemetry;
  if (f.gpu_telemetry) {
    // The name InferenceX's monitor writes, beside the result.
    telemetry.emplace(std::filesystem::path(c.result_dir.empty() ? "." : c.result_dir) / "gpu_metrics.csv",
                      f.gpu_telemetry_interval_s);
  }
  loadgen::BenchResult result;
  try {
    result = loadgen::RunHttpBenchmark(c);
  } catch (const loadgen::ServerUnreachable& e) {
    std::fprintf(stderr, "infermark bench: %s; no result written\n", e.what());
    return kExitRunFailed;
  }
  const std::string path = c.save_result || c.save_detailed ? SaveResult(c, result) : std::string();
  if (!c.timeline_path.empty()) {
    namespace fs = std::filesystem;
    if (const fs::path dir = fs::path(c.timeline_path).parent_path(); !dir.empty()) fs::create_directories(dir);
    WriteFileAtomic(c.timeline_path, metrics::RequestTimelineJsonl(
                                         result.records, result.result.value("benchmark_start_time_unix", 0.0)));
  }
  if (telemetry) {
    const PowerFields power = telemetry->Finish(path, f.expected_num_gpus);
    std::fprintf(stderr, "infermark bench: %s\n", power.summary.c_str());
  }
  PrintBenchSummary(result, path);
  if (result.dataset_length_mismatches > 0) {
    std::fprintf(stderr, "infermark bench: %zu prompts do not re-encode to their drawn length\n",
                 result.dataset_length_mismatches);
  }
  const auto steps = result.result["infermark"]["client"].value("realtime_clock_steps", std::uint64_t{0});
  if (steps > 0) {
    std::fprintf(stderr,
                 "infermark bench: the real-time clock stepped %llu times during the run (largest %.3f ms); bytes "
                 "read across a step carry kernel timestamps off by that much\n",
                 static_cast<unsigned long long>(steps),
                 result.result["infermark"]["client"].value("realtime_clock_step_max_ms", 0.0));
  }
  if (!result.verdict.valid) {
    std::fprintf(stderr, "infermark bench: INVALID run\n");
    return kExitRunFailed;
  }
  return kExitOk;
}

void AddBenchCommand(CLI::App& app, CommandResult& result) {
  auto* cmd =
      CommandGroup(app, "bench", "Benchmark a running server")
          ->add_subcommand(
              "serve",
              "Serving benchmark client: the reference client's flags, metrics and result JSON (see docs/loadgen.md); "
              "exit 0 VALID, 1 INVALID or server unreachable, 2 bad flags");
  auto f = std::make_shared<BenchFlags>();
  loadgen::BenchConfig& c = f->config;
  cmd->add_option("--backend", c.backend,
                  "vllm, sglang, openai, lmdeploy, scalellm (completions), openai-chat, tensorrt-llm")
      ->capture_default_str();
  cmd->add_option("--base-url", c.base_url, "Server base URL (else http://HOST:PORT)");
  cmd->add_option("--host", c.host, "Server host")->capture_default_str();
  cmd->add_option("--port", c.port, "Server port")->capture_default_str();
  cmd->add_option("--endpoint", c.endpoint, "API path (default /v1/completions; /v1/chat/completions for openai-chat)");
  cmd->add_option("--model", c.model, "Model name sent to the server")->required();
  cmd->add_option("--served-model-name", c.served_model_name, "Model name in requests when it differs from --model");
  cmd->add_option("--tokenizer", c.tokenizer,
                  "tokenizer.json, a folder holding one, or an HF id in the local HF cache (default: --model)");
  cmd->add_option("--dataset-name", c.dataset_name, "random or jsonl")->capture_default_str();
  cmd->add_option("--dataset-path", c.dataset_path,
                  "JSONL file: one {\"prompt\"|\"messages\", \"output_len\"?} per line");
  cmd->add_option("--random-input-len", c.random.input_len, "Random dataset: input length")->capture_default_str();
  cmd->add_option("--random-output-len", c.random.output_len, "Random dataset: output length (also jsonl default)")
      ->capture_default_str();
  cmd->add_option("--random-range-ratio", c.random.range_ratio, "Lengths uniform in [int(L*ratio), L]")
      ->capture_default_str();
  cmd->add_option("--random-prefix-len", c.random.prefix_len, "Shared random prefix tokens")->capture_default_str();
  cmd->add_option("--num-prompts", c.num_prompts, "Requests in the measured run")->capture_default_str();
  cmd->add_option("--max-concurrency", f->max_concurrency, "Requests in flight at most (closed loop)");
  cmd->add_option("--request-rate", f->request_rate, "Requests per second (open loop), or inf")->capture_default_str();
  cmd->add_option("--burstiness", c.burstiness, "Gamma shape of the arrival gaps (1 = Poisson)")->capture_default_str();
  cmd->add_flag("--ignore-eos", c.ignore_eos, "Ask the server to ignore EOS (exactly max_tokens tokens)");
  cmd->add_option("--num-warmups", c.num_warmups, "Warm-up requests (copies of the first prompt), not measured")
      ->capture_default_str();
  cmd->add_option("--percentile-metrics", f->percentile_metrics, "Metrics reported with percentiles")
      ->capture_default_str();
  cmd->add_option("--metric-percentiles", f->metric_percentiles, "Percentiles to report")->capture_default_str();
  cmd->add_option("--goodput", f->goodput, "SLOs KEY:ms for goodput (ttft, tpot, e2el)");
  cmd->add_option("--seed", c.seed, "Random seed")->capture_default_str();
  cmd->add_option("--best-of", c.best_of, "best_of sent with completions")->capture_default_str();
  cmd->add_option("--logprobs", f->logprobs, "logprobs sent with completions");
  cmd->add_option("--metadata", f->metadata, "KEY=VALUE pairs stored in the result");
  cmd->add_flag("--save-result", c.save_result, "Write the result JSON");
  cmd->add_flag("--save-detailed", c.save_detailed,
                "Also per-request arrays in the result and one JSON record per request in <result>.requests.jsonl");
  cmd->add_option("--save-timeline", c.timeline_path,
                  "Also each request's send, first and last token times and the TTFT/ITL histograms, as JSON Lines "
                  "in this file (what the dashboard's point page draws)");
  cmd->add_option("--result-dir", c.result_dir, "Folder for the result file");
  cmd->add_option("--result-filename", c.result_filename, "Result file name (default: the reference's pattern)");
  cmd->add_flag("--disable-tqdm", f->disable_tqdm, "No progress line");
  // Accepted for compatibility with the reference's command lines, without effect here.
  f->ignorable.push_back(cmd->add_option("--tokenizer-mode", "Accepted, ignored (tokenizer.json is read directly)"));
  f->ignorable.push_back(cmd->add_flag("--trust-remote-code")->description("Accepted, ignored (no code is run)"));
  f->ignorable.push_back(
      cmd->add_flag("--use-chat-template")
          ->description("Accepted, ignored: chat templates are applied by the server (use --backend openai-chat)"));
  f->ignorable.push_back(cmd->add_flag("--dsv4")->description("Accepted, ignored"));
  f->ignorable.push_back(cmd->add_flag("--profile")->description("Accepted, ignored (no profiler hooks)"));
  f->ignorable.push_back(
      cmd->add_option("--random-num-workers", "Accepted, ignored (the dataset is built on one thread)"));
  f->ignorable.push_back(cmd->add_option("--lora-modules", "Accepted, ignored")->expected(0, -1));
  for (const char* name : {"--sonnet-input-len", "--sonnet-output-len", "--sonnet-prefix-len", "--sharegpt-output-len",
                           "--hf-subset", "--hf-split", "--hf-output-len"}) {
    f->ignorable.push_back(cmd->add_option(name, "Accepted, ignored (dataset not supported)"));
  }
  // infermark's own.
  cmd->add_option("--threads", c.threads, "Event-loop threads")->capture_default_str();
  cmd->add_option("--cpus", f->cpus, "Pin loop i to the i-th of these CPUs (comma-separated)");
  cmd->add_option("--duration", c.duration_s, "Stop sending after this many seconds (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--timeout", c.timeout_s, "A request silent this many seconds fails as a stall (0: none)")
      ->capture_default_str();
  cmd->add_flag("--send-token-ids", c.send_token_ids, "Completions: send random prompts as token ids (exact length)");
  cmd->add_flag("--no-continuous-usage-stats", f->no_continuous_usage, "Do not ask for usage on every chunk");
  cmd->add_option("--drain-timeout", c.drain_s, "After SIGINT/SIGTERM, seconds to let in-flight requests finish")
      ->capture_default_str();
  cmd->add_option("--max-send-lag-ms", c.limits.max_send_lag_p99_ms, "VALID only if p99 send lag stays under this")
      ->capture_default_str();
  cmd->add_option("--max-loop-lag-ms", c.limits.max_loop_lag_p99_ms,
                  "VALID only if p99 event-loop lag stays under this")
      ->capture_default_str();
  cmd->add_option("--max-engine-lateness-ms", c.limits.max_engine_lateness_p99_ms,
                  "Against the built-in engine: VALID only if its passes' p99 lateness stays under this")
      ->capture_default_str();
  cmd->add_option("--max-engine-slip-percent", f->max_engine_slip_percent,
                  "Against the built-in engine: VALID only if its clock slips lose at most this % of the window")
      ->capture_default_str();
  cmd->add_option("--min-requests", c.limits.min_completed, "VALID only if at least this many requests completed")
      ->capture_default_str();
  cmd->add_option("--max-failure-percent", f->max_failure_percent, "VALID only if at most this % failed")
      ->capture_default_str();
  cmd->add_flag("--no-progress", f->no_progress, "No progress line even on a terminal");
  cmd->add_flag("--gpu-telemetry", f->gpu_telemetry,
                "Sample GPU power through NVML during the run into gpu_metrics.csv beside the result, then add "
                "InferenceX's power fields to the result and write power_validation_<result>.json");
  cmd->add_option("--gpu-telemetry-interval", f->gpu_telemetry_interval_s, "Seconds between GPU power samples")
      ->capture_default_str();
  cmd->add_option("--expected-num-gpus", f->expected_num_gpus,
                  "GPUs the deployment uses (TP·PP·PCP) for the power validity check (0: the GPUs sampled)")
      ->capture_default_str();
  cmd->callback([f, &result] { result.exit_code = RunBench(*f); });
}

[[maybe_unused]] const bool kBenchRegistered = RegisterCommand("bench", &AddBenchCommand);

}  // namespace
}  // namespace infermark::cli
