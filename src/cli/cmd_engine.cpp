// `infermark engine …`: the built-in engine. `engine serve` runs it as an OpenAI-compatible
// server whose token timing follows the performance model (docs/engine-serve.md); it prints one
// ready line (`infermark engine: listening on http://HOST:PORT`) and stops cleanly on SIGINT or
// SIGTERM, flushing the emission log. `--role prefill|decode` runs one worker of a disaggregated
// deployment, `--role router` the router in front of them (docs/engine-serve.md). `engine calibrate` fits the step-time
// model's efficiency factors to measured points, reports the error on points left out of each fit (model left out, GPU
// left out) beside the measurements' own noise, and writes the profiles the engine uses
// (data/engine/calibrated/*.yaml) and the prediction bands `predict` puts around its figures
// (data/engine/bands/).
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "calibration/calibration_report.hpp"
#include "calibration/served_points.hpp"
#include "cli/commands.hpp"
#include "cli/deployment_flags.hpp"
#include "cli/list_flags.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "engine/engine_server.hpp"
#include "engine/router_server.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/kernel_classes.hpp"
#include "sim/predict.hpp"

namespace infermark::cli {
namespace {
namespace fs = std::filesystem;

struct CalibrateOptions {
  std::string measured;
  std::string repeat;
  std::string out_dir;
  std::string report;
  std::string points_csv;
  std::string bands_dir;
  std::string holdout;
  std::vector<std::string> hardware_profiles;
  unsigned threads = 1;
  int max_evaluations = 400;
  double prior_weight = 0.01;
  bool no_write = false;
  bool skip_protocols = false;
  std::string served;
  std::vector<int> fit_conc{1, 4, 16, 64};
};

// `--served DIR`: a sweep of a real engine (agg records), fitted on some concurrencies and
// predicting the others; writes <framework>-<hw>.yaml fitted on those concurrencies.
int RunCalibrateServed(const CalibrateOptions& o) {
  const perfmodel::EngineData& data = perfmodel::DefaultEngineData();
  auto points = calibration::LoadServedPoints(o.served);
  std::cerr << "calibrate: " << points.size() << " served points of " << o.served << "; simulating each once…\n";
  const calibration::Calibrator calibrator(data, std::move(points), o.threads, &sim::RecordTrace, o.hardware_profiles);
  calibration::FitSettings settings;
  settings.max_evaluations = o.max_evaluations;
  settings.prior_weight = o.prior_weight;
  settings.threads = o.threads;
  const std::vector<calibration::Fold> folds = calibration::ConcurrencyHeldOut(calibrator, o.fit_conc, settings);
  if (folds.empty()) {
    throw InputError(Diagnostic{
        {o.served, 0, 0}, "", "--fit-conc", "no deployment there has points both at and outside these concurrencies"});
  }
  if (!o.no_write) {
    const std::string out_dir = o.out_dir.empty() ? (fs::path(data.dir) / "calibrated").string() : o.out_dir;
    fs::create_directories(out_dir);
    for (const calibration::Fold& f : folds) {
      perfmodel::CalibratedProfile profile;
      profile.framework = calibrator.deployment(f.train.front()).framework.name;
      profile.scope = calibrator.deployment(f.train.front()).hardware.name;
      profile.efficiency = f.factors;
      std::set<std::string> classes;
      for (std::size_t i : f.train)
        for (auto& k : perfmodel::KernelClassesOf(calibrator.deployment(i))) classes.insert(std::move(k));
      profile.kernel_classes.assign(classes.begin(), classes.end());
      const calibration::ErrorSummary held = calibration::SummarizeErrors(f.errors);
      char line[256];
      std::snprintf(line, sizeof line,
                    "held-out error (%zu points): tok/s/GPU median %.1f %%, interactivity median %.1f %%.", held.points,
                    held.tput_median * 100, held.intvty_median * 100);
      WriteFileAtomic((fs::path(out_dir) / (profile.framework + "-" + profile.scope + ".yaml")).string(),
                      perfmodel::FormatCalibratedProfile(
                          profile, {"Written by `infermark engine calibrate --served`; do not edit by hand (rerun it).",
                                    "Fitted on the served points of " + o.served + ": " + f.description + "; " + line,
                                    "Field meanings: docs/engine-model.md, \"Efficiency factors\"."}));
    }
  }
  const std::string report = calibration::ServedCalibrationReport(calibrator, folds, o.served);
  if (!o.report.empty()) WriteFileAtomic(o.report, report);
  std::cout << report;
  return kExitOk;
}

int RunCalibrate(const CalibrateOptions& o) {
  if (!o.served.empty()) return RunCalibrateServed(o);
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const perfmodel::EngineData& data = perfmodel::DefaultEngineData();
  const fs::path measured_dir = fs::path(data.dir) / "measured";
  const std::string measured = o.measured.empty() ? (measured_dir / "measured_points.csv").string() : o.measured;
  const std::string repeat =
      o.repeat.empty() ? (measured_dir / "repeat_2025-10-25_vs_2025-10-28.csv").string() : o.repeat;
  const std::string out_dir = o.out_dir.empty() ? (fs::path(data.dir) / "calibrated").string() : o.out_dir;
  auto points = calibration::LoadMeasuredPoints(measured);
  std::cerr << "calibrate: " << points.size() << " measured points; simulating each once…\n";
  const calibration::Calibrator calibrator(data, std::move(points), o.threads, &sim::RecordTrace, o.hardware_profiles);
  std::cerr << "calibrate: traces ready in " << std::chrono::duration<double>(Clock::now() - t0).count() << " s\n";
  calibration::FitSettings settings;
  settings.max_evaluations = o.max_evaluations;
  settings.prior_weight = o.prior_weight;
  settings.threads = o.threads;
  // Protocol (c): points of architectures the calibration never sees, predicted, never fitted.
  std::unique_ptr<calibration::Calibrator> holdout;
  const std::string holdout_path =
      o.holdout.empty() ? (fs::path(data.dir) / "holdout" / "holdout_points.csv").string() : o.holdout;
  if (o.holdout != "none" && fs::exists(holdout_path)) {
    std::vector<calibration::MeasuredPoint> held;
    std::size_t skipped = 0;
    for (auto& p : calibration::LoadMeasuredPoints(holdout_path)) {
      // GB200 NVL72 keys are multi-node disaggregated deployments (their tp counts every GPU of
      // both roles), which this protocol does not model.
      if (p.hw_key.rfind("gb200", 0) == 0) {
        ++skipped;
        continue;
      }
      held.push_back(std::move(p));
    }
    std::cerr << "calibrate: " << held.size() << " held-out points of " << holdout_path << " (" << skipped
              << " multi-node disaggregated GB200 points left out)\n";
    holdout = std::make_unique<calibration::Calibrator>(data, std::move(held), o.threads, &sim::RecordTrace,
                                                        o.hardware_profiles);
  }
  const std::vector<calibration::RepeatedPoint> repeats =
      fs::exists(repeat) ? calibration::LoadRepeatedPoints(repeat) : std::vector<calibration::RepeatedPoint>{};
  const calibration::CalibrationOutcome outcome = calibration::Calibrate(
      calibrator, settings, o.skip_protocols, repeats,
      [](const std::string& line) { std::cerr << "calibrate: " << line << '\n'; }, holdout.get());
  if (!o.points_csv.empty()) WriteFileAtomic(o.points_csv, calibration::HeldOutCsv(outcome.held_out));
  if (!o.no_write) {
    fs::create_directories(out_dir);
    for (const auto& [profile, summary] : outcome.profiles) {
      WriteFileAtomic(
          (fs::path(out_dir) / (profile.framework + "-" + profile.scope + ".yaml")).string(),
          perfmodel::FormatCalibratedProfile(profile, calibration::ProfileComment(profile, summary, measured)));
    }
    // The bands go with the residuals they were built from, so that both can be checked again
    // (`engine bands`); skipped protocols leave the last ones in place.
    if (!outcome.bands.Empty()) {
      const fs::path bands_dir = o.bands_dir.empty() ? fs::path(data.dir) / "bands" : fs::path(o.bands_dir);
      fs::create_directories(bands_dir);
      WriteFileAtomic((bands_dir / calibration::kHeldOutFile).string(), calibration::HeldOutCsv(outcome.held_out));
      WriteFileAtomic((bands_dir / calibration::kPredictionBandsFile).string(),
                      calibration::FormatPredictionBands(outcome.bands, calibration::BandsComment(measured)));
    }
  }
  const std::string report = calibration::CalibrationReport(calibrator, outcome, measured,
                                                            std::chrono::duration<double>(Clock::now() - t0).count());
  if (!o.report.empty()) WriteFileAtomic(o.report, report);
  std::cout << report;
  return kExitOk;
}

struct ServeFlags {
  DeploymentFlags deployment;
  engine::ServeOptions serve;
  std::string cpus;
  long flush_interval_us = -1;
  std::vector<std::string> prefill_urls;
  std::vector<std::string> decode_urls;
  std::string policy = "round-robin";
};

// SIGINT and SIGTERM are taken by sigwait: blocked before any thread starts, so every event-loop
// thread inherits the mask and none of them is interrupted.
sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

std::string ListeningLine(const std::string& host, std::uint16_t port) {
  const std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return "infermark engine: listening on http://" + shown + ":" + std::to_string(port);
}

int RunRouter(const ServeFlags& flags) {
  engine::RouterOptions options;
  options.prefill = flags.prefill_urls;
  options.decode = flags.decode_urls;
  options.policy = flags.policy;
  options.model =
      flags.serve.served_model_name.empty() ? flags.deployment.options.model : flags.serve.served_model_name;
  options.host = flags.serve.host;
  options.port = flags.serve.port;
  options.threads = flags.serve.threads;
  sigset_t signals = BlockStopSignals();
  engine::RouterServer server(std::move(options));
  server.Start();
  std::cerr << "infermark engine: router for '" << flags.deployment.options.model << "', " << flags.prefill_urls.size()
            << " prefill and " << flags.decode_urls.size() << " decode workers, policy " << flags.policy << '\n';
  std::cout << ListeningLine(flags.serve.host, server.port()) << std::endl;
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::cerr << "infermark engine: " << (signal_number == SIGINT ? "SIGINT" : "SIGTERM") << ", shutting down\n";
  server.Stop();
  return kExitOk;
}

InputError FlagError(const std::string& flag, const std::string& rule) {
  return InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

int RunServe(const ServeFlags& flags) {
  const std::string& role = flags.serve.role;
  if (role == "router") return RunRouter(flags);
  if (!role.empty() && role != "prefill" && role != "decode")
    throw FlagError("--role", "must be prefill, decode or router, not '" + role + "'");
  if (!flags.prefill_urls.empty() || !flags.decode_urls.empty())
    throw FlagError(flags.prefill_urls.empty() ? "--decode" : "--prefill", "worker URLs are for --role router");
  if (flags.deployment.options.hardware.empty())
    throw FlagError("--hardware", "is required (the GPU the modelled deployment runs on)");
  engine::ServeOptions options = flags.serve;
  options.deployment = ResolveDeploymentFlags(flags.deployment);
  options.cpus = ParseCpuList("--cpus", flags.cpus);
  if (flags.flush_interval_us >= 0) options.flush_interval = std::chrono::microseconds(flags.flush_interval_us);
  sigset_t signals = BlockStopSignals();
  engine::EngineServer server(std::move(options));
  server.Start();
  const perfmodel::Deployment& d = server.deployment();
  const engine::ServeDescription& desc = server.description();
  std::cerr << "infermark engine: " << d.model.name << " " << d.precision.precision << " on " << d.tp << "x "
            << d.hardware.name << " (" << d.framework.name << "), max_model_len " << desc.max_model_len << ", KV "
            << d.memory.kv_capacity_tokens << " tokens, time scale " << desc.time_scale
            << (desc.time_scale == 0 ? " (max speed)" : "") << ", tokenizer " << desc.tokenizer
            << (desc.tokenizer_stand_in ? " (stand-in)" : "") << ", served as '" << desc.served_model_name << "'"
            << (role.empty() ? "" : ", role " + role) << '\n';
  for (const auto& change : d.profile_changes) std::cerr << "infermark engine: hardware profile: " << change << '\n';
  if (const std::string w = perfmodel::TransferWarning(d); !w.empty())
    std::cerr << "infermark engine: warning: " << w << '\n';
  std::cout << ListeningLine(flags.serve.host, server.port()) << std::endl;
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::cerr << "infermark engine: " << (signal_number == SIGINT ? "SIGINT" : "SIGTERM") << ", shutting down\n";
  server.Stop();
  return kExitOk;
}

void AddServeCommand(CLI::App* engine_cmd, CommandResult& result) {
  auto f = std::make_shared<ServeFlags>();
  auto* cmd = engine_cmd->add_subcommand(
      "serve",
      "Serve the modelled deployment as an OpenAI-compatible HTTP server (completions, chat, streaming, usage, "
      "/v1/models, /health, /metrics) whose token timing follows the performance model");
  AddDeploymentFlags(cmd, f->deployment);
  // The router models no GPU: --hardware is checked by the worker roles.
  cmd->get_option("--hardware")->required(false);
  engine::ServeOptions& s = f->serve;
  cmd->add_option("--served-model-name", s.served_model_name, "Model name clients use (default: --model as given)");
  cmd->add_option("--tokenizer", s.tokenizer,
                  "Prompt tokenizer: tokenizer.json or its folder, or 'none' (default: the model's package under "
                  "tools/tokenizers)");
  cmd->add_option("--time-scale", s.time_scale, "Run the modelled hardware X times faster; 0 = max speed")
      ->capture_default_str();
  cmd->add_option("--emission-log", s.emission_log, "Write one JSON line per SSE event sent to this file");
  cmd->add_option("--max-waiting", s.max_waiting, "Requests waiting for admission beyond this get 429 (0: no bound)")
      ->capture_default_str();
  cmd->add_option("--eos-mean-tokens", s.eos_mean_tokens,
                  "Mean output length before EOS without ignore_eos (exponential; 0: always max_tokens)")
      ->capture_default_str();
  cmd->add_option("--seed", s.seed, "Seed of the output-length model")->capture_default_str();
  cmd->add_option("--reasoning-fraction", s.reasoning_fraction,
                  "Reasoning models: share of a chat output sent as reasoning_content")
      ->capture_default_str();
  cmd->add_option("--host", s.host, "Address to listen on")->capture_default_str();
  cmd->add_option("--port", s.port, "Port (0: pick a free one and print it)")->required();
  cmd->add_option("--threads", s.threads,
                  "HTTP event-loop threads for connections (the engine's passes have their own thread)")
      ->capture_default_str();
  cmd->add_option("--prep-threads", s.prep_threads,
                  "Threads that parse and tokenize requests off the event loops, at a lowered priority (0: on "
                  "the connection's loop)")
      ->capture_default_str();
  cmd->add_option("--cpus", f->cpus, "CPUs to pin the event loops to, comma-separated");
  cmd->add_option("--flush-interval-us", f->flush_interval_us,
                  "Output waits this long to share socket writes (default: 0, or 1000 at max speed)");
  cmd->add_option("--role", s.role,
                  "Disaggregated serving: prefill or decode (one worker), or router (in front of them); none: a "
                  "whole engine");
  cmd->add_option("--kv-transfer", s.kv_transfer, "Prefill: the KV transfer backend (nixl, mooncake, mori, moriio)")
      ->capture_default_str();
  cmd->add_option("--kv-link", s.kv_link,
                  "Prefill: the KV link (auto: the NVLink domain on NVL72 hardware, else the scale-out NICs; "
                  "nvlink; scale-out)")
      ->capture_default_str();
  cmd->add_option("--prefill", f->prefill_urls, "Router: prefill workers' URLs, comma-separated")->delimiter(',');
  cmd->add_option("--decode", f->decode_urls, "Router: decode workers' URLs, comma-separated")->delimiter(',');
  cmd->add_option("--policy", f->policy, "Router: prefill pick (round-robin, least-loaded, kv-aware)")
      ->capture_default_str();
  cmd->callback([f, &result] { result.exit_code = RunServe(*f); });
}

void AddEngineCommand(CLI::App& app, CommandResult& result) {
  auto* cmd = CommandGroup(app, "engine", "The built-in engine: serve it over HTTP, calibrate its model");
  AddServeCommand(cmd, result);
  auto o = std::make_shared<CalibrateOptions>();
  auto* cal = cmd->add_subcommand(
      "calibrate",
      "Fit the step-time model's efficiency factors to measured points, report held-out errors (model left out, "
      "GPU left out) against the noise floor, and write data/engine/calibrated/*.yaml and the prediction bands "
      "(data/engine/bands/)");
  cal->add_option("--measured", o->measured, "Measured points CSV (default: data/engine/measured/measured_points.csv)");
  cal->add_option("--repeat", o->repeat, "Repeat-run CSV for the noise floor");
  cal->add_option("--out", o->out_dir, "Folder for the profiles (default: data/engine/calibrated)");
  cal->add_option("--hardware-profile", o->hardware_profiles,
                  "Measured profiles (infermark gpu probe); each applies to the points of the GPU it measured");
  cal->add_option("--holdout", o->holdout,
                  "Points of architectures never fitted, predicted with the new profiles (protocol (c); "
                  "default: data/engine/holdout/holdout_points.csv; `none` skips it)");
  cal->add_option("--report", o->report, "Also write the report (markdown) to this file");
  cal->add_option("--points-csv", o->points_csv, "Write every held-out prediction beside its measurement (CSV)");
  cal->add_option("--bands-dir", o->bands_dir,
                  "Folder for the prediction bands and the held-out predictions they come from (default: "
                  "data/engine/bands)");
  cal->add_option("--threads", o->threads, "Threads simulating points")->capture_default_str();
  cal->add_option("--max-evaluations", o->max_evaluations, "Loss evaluations per fit")->capture_default_str();
  cal->add_option("--prior-weight", o->prior_weight, "Pull towards the priors")->capture_default_str();
  cal->add_flag("--no-write", o->no_write, "Report only; leave the profiles and bands alone");
  cal->add_flag("--skip-protocols", o->skip_protocols, "Only fit and write the profiles");
  cal->add_option("--served", o->served,
                  "Instead: a real engine's sweep (a folder of agg_*.json records and their raw results): fit on "
                  "--fit-conc, predict its other concurrencies, write <framework>-<gpu>.yaml");
  cal->add_option("--fit-conc", o->fit_conc, "With --served: the concurrencies fitted on (1,4,16,64 or 1 4 16 64)")
      ->delimiter(',')
      ->capture_default_str();
  cal->callback([o, &result] { result.exit_code = RunCalibrate(*o); });
}

[[maybe_unused]] const bool kEngineRegistered = RegisterCommand("engine", &AddEngineCommand);

}  // namespace
}  // namespace infermark::cli
