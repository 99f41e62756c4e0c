// `infermark bench agentic`: InferenceX's agentic-coding client (aiperf's inferencex-agentx-mvp
// scenario), its flags spelled as aiperf spells them, with InferenceX's values as defaults.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>

#include "agentic/agentic_bench.hpp"
#include "agentic/agentic_output.hpp"
#include "agentic/agentic_timeline.hpp"
#include "cli/commands.hpp"
#include "cli/gpu_telemetry.hpp"
#include "cli/list_flags.hpp"
#include "cli/signal_watcher.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "loadgen/http_target.hpp"
#include "power/agentic_power.hpp"

namespace infermark::cli {
namespace {

struct AgenticFlags {
  agentic::AgenticBenchConfig config;
  std::string result_dir = ".";
  std::string result_filename;
  std::string artifact_dir;
  std::string timeline;
  std::string cpus;
  double min_duration_s = 900;
  bool gpu_telemetry = false;
  double gpu_telemetry_interval_s = 1.0;
  long long expected_num_gpus = 0;
};

double Percentile(const std::vector<double>& v, double p) {
  return agentic::LinearPercentile(v, p);
}

void PrintAgenticSummary(const agentic::AgenticBench& b, const agentic::AgenticOutputs& outputs) {
  std::size_t profiled = 0;
  std::size_t ok = 0;
  std::size_t warm = 0;
  std::map<std::string, std::size_t> errors;
  std::int64_t in = 0;
  std::int64_t hit = 0;
  for (const agentic::ReplayRequest& r : b.run.requests) {
    if (r.warmup) {
      ++warm;
      continue;
    }
    ++profiled;
    if (r.record.success) {
      ++ok;
    } else {
      ++errors[r.overflow ? "context_overflow" : r.record.error_kind];
    }
    in += r.input_tokens;
    hit += r.theoretical_hit_tokens;
  }
  const double window = static_cast<double>(b.run.window_close_ns - b.run.window_open_ns) / 1e9;
  std::printf("============ Agentic Replay Result ============\n");
  std::printf("%-44s %12zu\n", "Sessions (plays) started / completed:", b.run.plays_started);
  std::printf("%-44s %12zu\n", "  completed:", b.run.plays_completed);
  std::printf("%-44s %12zu\n", "Warm-up requests:", warm);
  std::printf("%-44s %12zu\n", "Profiled requests:", profiled);
  std::printf("%-44s %12zu\n", "  successful:", ok);
  for (const auto& [kind, n] : errors) std::printf("%-44s %12zu\n", ("  failed, " + kind + ":").c_str(), n);
  std::printf("%-44s %12.1f\n", "Profiling phase (s):", window);
  std::printf("%-44s %12zu\n", "Most requests in flight:", b.run.max_in_flight);
  std::printf("%-44s %12.4f\n",
              "Theoretical prefix-cache hit rate:", in > 0 ? static_cast<double>(hit) / static_cast<double>(in) : 0.0);
  std::printf("%-44s %12.3f\n", "Send lag p50 (ms):", Percentile(b.send_lag_ms, 50));
  std::printf("%-44s %12.3f\n", "Send lag p99 (ms):", Percentile(b.send_lag_ms, 99));
  std::printf("%-44s %12.3f\n", "Send lag max (ms):", Percentile(b.send_lag_ms, 100));
  std::printf("%-44s %12.3f\n", "Opening wave: last call out after (ms):", Percentile(b.opening_lag_ms, 100));
  std::printf("%-44s %12s\n", "Verdict:", b.invalid_reasons.empty() ? "VALID" : "INVALID");
  for (const std::string& reason : b.invalid_reasons) std::printf("  - %s\n", reason.c_str());
  for (const std::string& line : outputs.summary) std::printf("%s\n", line.c_str());
  std::printf("Aggregate: %s\nArtifacts: %s\n", outputs.aggregate_path.c_str(), outputs.artifact_dir.c_str());
  std::printf("===============================================\n");
  std::fflush(stdout);
}

int RunAgentic(AgenticFlags& f) {
  agentic::AgenticBenchConfig& c = f.config;
  c.cpus = ParseCpuList("--cpus", f.cpus);
  c.min_duration_s = f.min_duration_s;
  if (f.gpu_telemetry) {
    if (!(f.gpu_telemetry_interval_s > 0)) {
      throw InputError(Diagnostic{{}, "", "--gpu-telemetry-interval", "must be a positive number of seconds"});
    }
    if (f.expected_num_gpus < 0) {
      throw InputError(Diagnostic{{}, "", "--expected-num-gpus", "must be 0 (the GPUs sampled) or more"});
    }
  }
  SignalWatcher signals("infermark bench agentic");
  c.replay.stop = signals.flag();
  // Started after the watcher blocked SIGINT/SIGTERM, so that the sampling thread never takes them;
  // the offset first, as InferenceX's runner writes it before starting its monitor.
  std::optional<GpuTelemetry> telemetry;
  if (f.gpu_telemetry) {
    WriteTimezoneOffset(f.result_dir);
    telemetry.emplace(std::filesystem::path(f.result_dir) / results::kAgenticPowerCsvFile, f.gpu_telemetry_interval_s);
  }
  agentic::AgenticBench bench;
  try {
    bench = agentic::RunAgenticBench(c);
  } catch (const loadgen::ServerUnreachable& e) {
    std::fprintf(stderr, "infermark bench agentic: %s; no result written\n", e.what());
    return kExitRunFailed;
  }
  agentic::AgenticOutputOptions o;
  o.result_dir = f.result_dir;
  o.result_filename = f.result_filename;
  o.artifact_dir = f.artifact_dir;
  o.model = c.served_model_name.empty() ? c.model : c.served_model_name;
  o.concurrency = c.replay.concurrency;
  o.identity = agentic::StandaloneIdentity(o, f.result_filename);
  const agentic::AgenticOutputs outputs = agentic::WriteAgenticOutputs(agentic::ViewOf(bench), o);
  if (!f.timeline.empty()) {
    if (const auto dir = std::filesystem::path(f.timeline).parent_path(); !dir.empty()) {
      std::filesystem::create_directories(dir);
    }
    WriteFileAtomic(f.timeline, agentic::AgenticTimelineJsonl(bench));
  }
  if (bench.traces.calls_over_context > 0) {
    std::fprintf(stderr, "infermark bench agentic: %zu calls over --max-context-length %lld were skipped\n",
                 bench.traces.calls_over_context, static_cast<long long>(c.max_context_length));
  }
  PrintAgenticSummary(bench, outputs);
  if (telemetry) {
    const PowerFields power = telemetry->FinishAgentic(f.result_dir, outputs.aggregate_path, f.expected_num_gpus);
    std::fprintf(stderr, "infermark bench agentic: %s\n", power.summary.c_str());
  }
  if (!bench.invalid_reasons.empty()) {
    std::fprintf(stderr, "infermark bench agentic: INVALID run\n");
    return kExitRunFailed;
  }
  return kExitOk;
}

void AddBenchAgenticCommand(CLI::App& app, CommandResult& result) {
  auto* cmd = CommandGroup(app, "bench", "Benchmark a running server")
                  ->add_subcommand("agentic",
                                   "Agentic-coding client: replays coding-agent session traces as lanes of session "
                                   "trees (InferenceX's AgentX); writes InferenceX's agentic aggregate and aiperf's "
                                   "artifacts; exit 0 VALID, 1 INVALID or server unreachable, 2 bad flags");
  auto f = std::make_shared<AgenticFlags>();
  agentic::AgenticBenchConfig& c = f->config;
  agentic::ReplayOptions& r = c.replay;
  // InferenceX's values (benchmark_lib.sh build_replay_cmd) are the defaults.
  r.duration_s = 3600;
  r.warmup_requests_per_lane = 10;
  r.start_min_ratio = 0.25;
  r.start_max_ratio = 0.75;
  r.trace_idle_gap_cap_s = 300;
  r.seed = 42;
  r.run_id = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) ^
             static_cast<std::uint64_t>(::getpid());
  cmd->add_option("--base-url,--url", c.base_url, "Server base URL, e.g. http://localhost:8000")->required();
  cmd->add_option("--endpoint", c.endpoint, "Chat completions path")->capture_default_str();
  cmd->add_option("--model", c.model, "Model name sent in requests (and the tokenizer's default)")->required();
  cmd->add_option("--served-model-name", c.served_model_name, "Model name in requests when it differs from --model");
  cmd->add_option("--tokenizer", c.tokenizer, "tokenizer.json, its folder, or a model in the HF cache");
  cmd->add_option("--traces,--public-dataset", c.traces,
                  "Trace corpus: .jsonl[.xz] file, folder of trace .json files, HF dataset folder or cache name")
      ->required();
  cmd->add_option("--concurrency", r.concurrency, "Live session trees (lanes)")->capture_default_str();
  cmd->add_option("--duration,--benchmark-duration", r.duration_s, "Seconds of the profiling phase")
      ->capture_default_str();
  cmd->add_option("--warmup-requests-per-lane", r.warmup_requests_per_lane,
                  "Extra 1-token warm-up requests per lane before its start turn")
      ->capture_default_str();
  cmd->add_option("--trajectory-start-min-ratio", r.start_min_ratio, "Start turns drawn in [min, max] of each trace")
      ->capture_default_str();
  cmd->add_option("--trajectory-start-max-ratio", r.start_max_ratio)->capture_default_str();
  cmd->add_option("--trace-idle-gap-cap-seconds", r.trace_idle_gap_cap_s, "Cap on each recorded gap (0: none)")
      ->capture_default_str();
  cmd->add_option("--system-idle-gap-cap-seconds", r.system_idle_gap_cap_s,
                  "When nothing is in flight, the next call starts within this (0: no guard)")
      ->capture_default_str();
  cmd->add_option("--max-context-length", c.max_context_length,
                  "Skip calls whose input + output exceeds this (0: keep all; counted)");
  cmd->add_option("--seed,--random-seed", r.seed, "Trace order and start turns")->capture_default_str();
  cmd->add_option("--server-metrics", c.server_metrics_urls, "More /metrics URLs to scrape (workers)")->expected(0, -1);
  cmd->add_option("--result-dir", f->result_dir, "Folder for the aggregate")->capture_default_str();
  cmd->add_flag("--gpu-telemetry", f->gpu_telemetry,
                "Sample GPU power through NVML during the run into gpu_metrics.csv in --result-dir, then measure it "
                "over aiperf's profiling window as InferenceX's power adapter: agentic_power_window.json, the power "
                "fields in the aggregate and power_validation.json");
  cmd->add_option("--gpu-telemetry-interval", f->gpu_telemetry_interval_s, "Seconds between GPU power samples")
      ->capture_default_str();
  cmd->add_option("--expected-num-gpus", f->expected_num_gpus,
                  "GPUs the deployment uses (TP·PP·PCP) for the power validity check (0: the GPUs sampled)")
      ->capture_default_str();
  cmd->add_option("--result-filename", f->result_filename,
                  "Aggregate name without .json (default agentic_<model>_conc<N>)");
  cmd->add_option("--output-artifact-dir", f->artifact_dir, "aiperf artifacts (default RESULT_DIR/aiperf_artifacts)");
  cmd->add_option("--save-timeline", f->timeline,
                  "Also each profiled call's send, first and last token times, session, input and prefix-cache hit "
                  "tokens, as JSON Lines in this file (what the dashboard's point page draws)");
  cmd->add_option("--failed-request-threshold", r.failed_request_threshold,
                  "Error ratio that cancels the run (and fails the gate)")
      ->capture_default_str();
  cmd->add_option("--warmup-grace-period", r.warmup_grace_s, "Seconds the warm-up may take")->capture_default_str();
  cmd->add_option("--benchmark-grace-period", r.grace_s, "Seconds in-flight calls may finish after the duration")
      ->capture_default_str();
  cmd->add_option("--min-duration", f->min_duration_s, "Profiling phases shorter than this are INVALID")
      ->capture_default_str();
  cmd->add_flag("--unsafe-override", c.unsafe_override, "Allow short runs; the result is marked invalid");
  cmd->add_option("--max-send-lag-ms", c.max_send_lag_p99_ms, "VALID only if the p99 send lag stays under this")
      ->capture_default_str();
  cmd->add_option("--cpus", f->cpus, "Pin the client's event loop to this CPU");
  cmd->callback([f, &result] { result.exit_code = RunAgentic(*f); });
}

[[maybe_unused]] const bool kBenchAgenticRegistered = RegisterCommand("bench", &AddBenchAgenticCommand);

}  // namespace
}  // namespace infermark::cli
