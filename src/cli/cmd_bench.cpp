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
#include "metrics/repeat_result.hpp"
#include "metrics/request_timeline.hpp"
#include "metrics/result_json.hpp"
#include "runner/sweep.hpp"

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
  double max_host_error_percent = 1.0;
  bool gpu_telemetry = false;
  double gpu_telemetry_interval_s = 1.0;
  long long expected_num_gpus = 0;
  int repeats = 1;
  int host_retries = 0;
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

// The result's file name: the flag's, else the reference's pattern for the run's date.
std::string ResultName(const loadgen::BenchConfig& c, const loadgen::BenchResult& r) {
  return c.result_filename.empty() ? loadgen::DefaultResultFilename(c, r.result.value("date", "")) : c.result_filename;
}

std::filesystem::path ResultPathOf(const loadgen::BenchConfig& c, const std::string& name) {
  return c.result_dir.empty() ? std::filesystem::path(name) : std::filesystem::path(c.result_dir) / name;
}

// Writes the result where the flags say (under `name`, else ResultName) and, with --save-detailed,
// one JSON line per request beside it; returns the result's path.
std::string SaveResult(const loadgen::BenchConfig& c, const loadgen::BenchResult& r, const std::string& name = "") {
  namespace fs = std::filesystem;
  const fs::path path = ResultPathOf(c, name.empty() ? ResultName(c, r) : name);
  if (!c.result_dir.empty()) fs::create_directories(c.result_dir);
  metrics::WriteResultJson(path.string(), r.result);
  if (c.save_detailed) {
    fs::path jsonl = path;
    jsonl.replace_extension(".requests.jsonl");
    metrics::WriteRecordsJsonl(jsonl.string(), r.records);
  }
  return path.string();
}

// `reason_marker` starts each verdict reason's line: the runner reads a client's INVALID reasons
// from its `  - ` lines, so a repeat's own reasons take another marker and the combined result's
// (each prefixed with its repeat) are the ones read.
void PrintBenchSummary(const loadgen::BenchResult& r, const std::string& result_path,
                       const char* reason_marker = "  - ") {
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
  // What the host added: the headline figure it moved most, and each statistic past the tolerance.
  const Json& own = r.result.contains("infermark") ? r.result["infermark"] : Json();
  if (own.is_object() && own.contains("host_error")) {
    std::string worst;
    double most = -1;
    for (const auto& [key, e] : own["host_error"].items()) {
      if (!metrics::IsHeadlineFigure(key) || !e["rel"].is_number()) continue;
      if (std::abs(e["rel"].get<double>()) > most) {
        most = std::abs(e["rel"].get<double>());
        worst = key;
      }
    }
    if (most >= 0) {
      std::printf("%-40s %+9.2f%% (%s, %s)\n", "Host error, largest headline:",
                  own["host_error"][worst]["rel"].get<double>() * 100, metrics::FigureLabel(worst).c_str(),
                  own.value("host_error_kind", "").c_str());
    }
    for (const auto& mark : r.verdict.marks) {
      if (!mark.headline) {
        std::printf("  marked: %s %+.2f %% (%s)\n", metrics::FigureLabel(mark.key).c_str(), mark.rel * 100,
                    mark.cause.c_str());
      }
    }
  }
  std::printf("%-40s %10s\n", "Verdict:", r.verdict.Name());
  for (const std::string& reason : r.verdict.reasons) std::printf("%s%s\n", reason_marker, reason.c_str());
  if (!result_path.empty()) std::printf("Result: %s\n", result_path.c_str());
  std::printf("==================================================\n");
  std::fflush(stdout);
}

// The combined figures of a repeated point: each headline number's median, its interval and range.
void PrintRepeatSummary(const Json& combined, const std::string& path) {
  const Json* block = metrics::RepeatsBlock(combined);
  if (block == nullptr) return;
  std::printf("============ Repeats: %d (%s) ============\n", block->value("count", 0),
              block->value("server", "") == "fresh" ? "a fresh server each" : "one server, back to back");
  std::printf("%-34s %12s %25s %22s\n", "", "median", "95% interval (coverage)", "min .. max");
  const Json& intervals = (*block)["intervals"];
  for (const char* key : {"request_throughput", "output_throughput", "total_token_throughput", "median_ttft_ms",
                          "p99_ttft_ms", "median_tpot_ms", "median_itl_ms", "p99_itl_ms", "median_e2el_ms"}) {
    const auto it = intervals.find(key);
    if (it == intervals.end()) continue;
    char interval[64];
    std::snprintf(interval, sizeof interval, "%.2f .. %.2f (%.1f%%)", it->value("low", 0.0), it->value("high", 0.0),
                  100 * it->value("confidence", 0.0));
    char range[64];
    std::snprintf(range, sizeof range, "%.2f .. %.2f", it->value("min", 0.0), it->value("max", 0.0));
    std::printf("%-34s %12.2f %25s %22s\n", key, it->value("median", 0.0), interval, range);
  }
  std::printf("%-34s %12s\n", "Verdict:", combined.value("verdict", "").c_str());
  for (const Json& reason : combined.value("verdict_reasons", Json::array())) {
    std::printf("  - %s\n", reason.get<std::string>().c_str());
  }
  std::printf("Result: %s\n", path.c_str());
  std::printf("==================================================\n");
  std::fflush(stdout);
}

// --repeats N: the benchmark run N times back to back against the one server, each repeat's result
// kept as `<name>.repeat-<k>.json`, then the combined result (metrics/repeat_result.hpp) written
// under the result's own name. A repeat INVALID for the host's reasons alone is measured again
// (--host-retries per repeat), its spoiled file kept as `<name>.repeat-<k>.attempt-<a>.json`.
int RunRepeats(const BenchFlags& f, const loadgen::BenchConfig& c, std::optional<GpuTelemetry>& telemetry) {
  namespace fs = std::filesystem;
  std::vector<Json> repeats;
  metrics::RepeatSetup setup;
  std::string name;
  for (int k = 1; k <= f.repeats; ++k) {
    int retries = 0;
    loadgen::BenchResult result;
    std::string path;
    for (;;) {
      try {
        result = loadgen::RunHttpBenchmark(c);
      } catch (const loadgen::ServerUnreachable& e) {
        std::fprintf(stderr, "infermark bench: repeat %d of %d: %s; no combined result written\n", k, f.repeats,
                     e.what());
        return kExitRunFailed;
      }
      if (name.empty()) name = ResultName(c, result);
      path = SaveResult(c, result, metrics::RepeatFileName(name, k));
      if (retries >= f.host_retries || !result.complete || !runner::InvalidForTheHostAlone(path)) break;
      ++retries;
      const fs::path spoiled = ResultPathOf(c, metrics::RepeatAttemptFileName(name, k, retries));
      std::error_code ec;
      fs::rename(path, spoiled, ec);
      std::fprintf(stderr,
                   "infermark bench: repeat %d of %d INVALID for the host's reasons alone, measured again (%s)\n", k,
                   f.repeats, spoiled.string().c_str());
    }
    PrintBenchSummary(result, path, "    · ");
    repeats.push_back(std::move(result.result));
    setup.files.push_back(fs::path(path).filename().string());
    setup.retries.push_back(retries);
    if (!repeats.back().value("complete", true)) break;  // a stop signal: no further repeats
  }
  const Json combined = metrics::CombineRepeatResults(repeats, setup);
  const std::string path = ResultPathOf(c, name).string();
  metrics::WriteResultJson(path, combined);
  if (telemetry) {
    const PowerFields power = telemetry->Finish(path, f.expected_num_gpus);
    std::fprintf(stderr, "infermark bench: %s\n", power.summary.c_str());
  }
  const Json written = Json::parse(ReadFile(path));
  PrintRepeatSummary(written, path);
  if (written.value("verdict", "") != "VALID") {
    std::fprintf(stderr, "infermark bench: INVALID point (%zu of %d repeats measured)\n", repeats.size(), f.repeats);
    return kExitRunFailed;
  }
  return kExitOk;
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
  c.limits.max_host_error_fraction = f.max_host_error_percent / 100.0;
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

  if (f.repeats < 1 || f.repeats > 1000) BadFlag("--repeats", "must be from 1 to 1000");
  if (f.host_retries < 0) BadFlag("--host-retries", "must be 0 or more");
  if (f.host_retries > 0 && f.repeats == 1) {
    BadFlag("--host-retries",
            "applies to each of --repeats (a single run is measured again by the runner's --host-retries)");
  }
  if (f.repeats > 1 && !c.save_result && !c.save_detailed) {
    BadFlag("--repeats", "needs --save-result: every repeat's result is kept in a file beside the combined one");
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
  if (f.repeats > 1) return RunRepeats(f, c, telemetry);
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
  cmd->add_option("--max-host-error-percent", f->max_host_error_percent,
                  "INVALID when the host moved a headline figure (throughputs, median TTFT/TPOT/ITL/E2EL, "
                  "interactivity) by more than this % of its ideal value; other statistics past it are marked")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--max-send-lag-ms", c.limits.max_send_lag_p99_ms,
                  "Diagnostic: a p99 send lag over this is named as a cause of host error")
      ->capture_default_str();
  cmd->add_option("--max-loop-lag-ms", c.limits.max_loop_lag_p99_ms,
                  "Diagnostic: a p99 event-loop lag over this is named as a cause of host error")
      ->capture_default_str();
  cmd->add_option("--max-engine-lateness-ms", c.limits.max_engine_lateness_p99_ms,
                  "Diagnostic (built-in engine): a p99 pass lateness over this is named as a cause of host error")
      ->capture_default_str();
  cmd->add_option("--max-engine-slip-percent", f->max_engine_slip_percent,
                  "Diagnostic (built-in engine): catching up on late passes for more than this % of the window is "
                  "named as a cause of host error")
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
  cmd->add_option("--repeats", f->repeats,
                  "Measure the point this many times back to back: each repeat's result as <name>.repeat-<k>.json, "
                  "the combined one (medians with 95% intervals) under the result's name")
      ->capture_default_str();
  cmd->add_option("--host-retries", f->host_retries,
                  "With --repeats: measure a repeat again, at most this many times, when it is INVALID only for the "
                  "host's reasons")
      ->capture_default_str();
  cmd->callback([f, &result] { result.exit_code = RunBench(*f); });
}

[[maybe_unused]] const bool kBenchRegistered = RegisterCommand("bench", &AddBenchCommand);

}  // namespace
}  // namespace infermark::cli
