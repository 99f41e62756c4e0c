// `infermark engine …`: the built-in engine. `engine serve` runs it as an OpenAI-compatible
// server whose token timing follows the performance model (docs/engine-serve.md); it prints one
// ready line (`infermark engine: listening on http://HOST:PORT`) and stops cleanly on SIGINT or
// SIGTERM, flushing the emission log. `engine calibrate` fits the step-time model's
// efficiency factors to measured points, reports the error on points left out of each fit
// (model left out, GPU left out) beside the measurements' own noise, and writes the profiles
// the engine uses (data/engine/calibrated/*.yaml).
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/deployment_flags.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "engine/calibration.hpp"
#include "engine/engine_data.hpp"
#include "engine/engine_server.hpp"

namespace infermark::cli {
namespace {
namespace fs = std::filesystem;

struct CalibrateOptions {
  std::string measured;
  std::string repeat;
  std::string out_dir;
  std::string report;
  std::string points_csv;
  unsigned threads = 1;
  int max_evaluations = 400;
  double prior_weight = 0.01;
  bool no_write = false;
  bool skip_protocols = false;
};

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", v * 100);
  return buf;
}

std::string Row(const std::string& name, const engine::ErrorSummary& s) {
  return "| " + name + " | " + std::to_string(s.points) + " | " + Pct(s.tput_median) + " | " + Pct(s.tput_p90) + " | " +
         Pct(s.intvty_median) + " | " + Pct(s.intvty_p90) + " |\n";
}

std::vector<engine::PointError> Flatten(const std::vector<engine::Fold>& folds) {
  std::vector<engine::PointError> all;
  for (const auto& f : folds) all.insert(all.end(), f.errors.begin(), f.errors.end());
  return all;
}

int RunCalibrate(const CalibrateOptions& o) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const engine::EngineData& data = engine::DefaultEngineData();
  const fs::path repo = fs::path(data.dir).parent_path().parent_path();
  const std::string measured =
      o.measured.empty() ? (repo / "tests/fixtures/perf-2025-10/measured_points.csv").string() : o.measured;
  const std::string repeat =
      o.repeat.empty() ? (repo / "tests/fixtures/perf-2025-10/repeat_2025-10-25_vs_2025-10-28.csv").string() : o.repeat;
  const std::string out_dir = o.out_dir.empty() ? (fs::path(data.dir) / "calibrated").string() : o.out_dir;
  auto points = engine::LoadMeasuredPoints(measured);
  std::cerr << "calibrate: " << points.size() << " measured points; simulating each once…\n";
  const engine::Calibrator calibrator(data, std::move(points), o.threads);
  std::cerr << "calibrate: traces ready in " << std::chrono::duration<double>(Clock::now() - t0).count() << " s\n";
  engine::FitSettings settings;
  settings.max_evaluations = o.max_evaluations;
  settings.prior_weight = o.prior_weight;
  settings.threads = o.threads;

  std::ostringstream report;
  report << "# Calibration report\n\nMeasured points: `" << measured << "` (" << calibrator.points().size()
         << "). Errors are |predicted − measured| / measured on points NOT used in the fit.\n\n";
  report << "| protocol | points | tok/s/GPU median | tok/s/GPU p90 | interactivity median | interactivity p90 |\n"
            "|---|---|---|---|---|---|\n";
  std::vector<engine::Fold> a, b;
  if (!o.skip_protocols) {
    a = engine::ModelLeftOut(calibrator, settings);
    std::cerr << "calibrate: protocol (a) done\n";
    b = engine::GpuLeftOut(calibrator, settings);
    std::cerr << "calibrate: protocol (b) done\n";
    report << Row("(a) model left out", engine::SummarizeErrors(Flatten(a)));
    report << Row("(b) GPU left out", engine::SummarizeErrors(Flatten(b)));
  }
  if (fs::exists(repeat))
    report << Row("noise floor (repeat runs)", engine::NoiseFloor(engine::LoadRepeatedPoints(repeat)));
  auto fold_table = [&](const char* title, const std::vector<engine::Fold>& folds) {
    report << "\n## " << title
           << "\n\n| fold | points | tok/s/GPU median | tok/s/GPU p90 | interactivity median | "
              "interactivity p90 |\n|---|---|---|---|---|---|\n";
    for (const auto& f : folds) report << Row(f.description, engine::SummarizeErrors(f.errors));
  };
  if (!o.points_csv.empty()) {
    std::string csv =
        "protocol,fold,model,hw_key,precision,isl,osl,tp,conc,meas_tput,pred_tput,meas_intvty,pred_intvty\n";
    auto dump = [&](const char* protocol, const std::vector<engine::Fold>& folds) {
      for (const auto& f : folds)
        for (const auto& e : f.errors) {
          const engine::MeasuredPoint& p = calibrator.points()[e.index];
          char buf[512];
          std::snprintf(buf, sizeof buf, "%s,\"%s\",%s,%s,%s,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f\n", protocol,
                        f.description.c_str(), p.model.c_str(), p.hw_key.c_str(), p.precision.c_str(), p.isl, p.osl,
                        p.tp, p.conc, p.tput_per_gpu, e.pred_tput, p.intvty, e.pred_intvty);
          csv += buf;
        }
    };
    dump("a", a);
    dump("b", b);
    WriteFileAtomic(o.points_csv, csv);
  }
  if (!o.skip_protocols) {
    fold_table("(a) model left out, per fold", a);
    fold_table("(b) GPU left out, per fold", b);
  }
  const auto profiles = engine::FitProfiles(calibrator, settings);
  report << "\n## Profiles written (in-sample error)\n\n| profile | points | tok/s/GPU median | tok/s/GPU p90 | "
            "interactivity median | interactivity p90 |\n|---|---|---|---|---|---|\n";
  for (const auto& [profile, summary] : profiles) {
    report << Row(profile.framework + "-" + profile.scope, summary);
    if (o.no_write) continue;
    const std::vector<std::string> comment{
        "Written by `infermark engine calibrate`; do not edit by hand (rerun it).",
        "Fitted on " + std::to_string(summary.points) + " points of " + fs::path(measured).filename().string() + " (" +
            profile.framework + " on " + profile.scope + "); in-sample error: tok/s/GPU median " +
            Pct(summary.tput_median) + ", interactivity median " + Pct(summary.intvty_median) + ".",
        "Field meanings: docs/engine-model.md, \"Efficiency factors\"."};
    fs::create_directories(out_dir);
    WriteFileAtomic((fs::path(out_dir) / (profile.framework + "-" + profile.scope + ".yaml")).string(),
                    engine::FormatCalibratedProfile(profile, comment));
  }
  report << "\nWall time: " << std::chrono::duration<double>(Clock::now() - t0).count() << " s.\n";
  if (!o.report.empty()) WriteFileAtomic(o.report, report.str());
  std::cout << report.str();
  return kExitOk;
}

struct ServeFlags {
  DeploymentFlags deployment;
  engine::ServeOptions serve;
  std::string cpus;
  long flush_interval_us = -1;
};

std::vector<int> ParseCpus(const std::string& text) {
  std::vector<int> cpus;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      std::size_t used = 0;
      const int cpu = std::stoi(item, &used);
      if (used != item.size() || cpu < 0) throw std::invalid_argument(item);
      cpus.push_back(cpu);
    } catch (const std::exception&) {
      throw InputError(
          Diagnostic{SourceMark{}, "", "--cpus", "expected CPU numbers separated by commas, got '" + item + "'"});
    }
  }
  return cpus;
}

int RunServe(const ServeFlags& flags) {
  engine::ServeOptions options = flags.serve;
  options.deployment = ResolveDeploymentFlags(flags.deployment);
  options.cpus = ParseCpus(flags.cpus);
  if (flags.flush_interval_us >= 0) options.flush_interval = std::chrono::microseconds(flags.flush_interval_us);
  // SIGINT and SIGTERM are taken by sigwait below: blocked before any thread starts, so every
  // event-loop thread inherits the mask and none of them is interrupted.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  engine::EngineServer server(std::move(options));
  server.Start();
  const engine::Deployment& d = server.deployment();
  const engine::ServeDescription& desc = server.description();
  std::cerr << "infermark engine: " << d.model.name << " " << d.precision.precision << " on " << d.tp << "x "
            << d.hardware.name << " (" << d.framework.name << "), max_model_len " << desc.max_model_len << ", KV "
            << d.memory.kv_capacity_tokens << " tokens, time scale " << desc.time_scale
            << (desc.time_scale == 0 ? " (max speed)" : "") << ", tokenizer " << desc.tokenizer
            << (desc.tokenizer_stand_in ? " (stand-in)" : "") << ", served as '" << desc.served_model_name << "'\n";
  const std::string host =
      flags.serve.host.find(':') != std::string::npos ? "[" + flags.serve.host + "]" : flags.serve.host;
  std::cout << "infermark engine: listening on http://" << host << ":" << server.port() << std::endl;
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
  cmd->add_option("--threads", s.threads, "HTTP event-loop threads (the engine runs on the first)")
      ->capture_default_str();
  cmd->add_option("--cpus", f->cpus, "CPUs to pin the event loops to, comma-separated");
  cmd->add_option("--flush-interval-us", f->flush_interval_us,
                  "Output waits this long to share socket writes (default: 0, or 1000 at max speed)");
  cmd->callback([f, &result] { result.exit_code = RunServe(*f); });
}

void AddEngineCommand(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("engine", "The built-in engine: serve it over HTTP, calibrate its model");
  cmd->require_subcommand(1);
  AddServeCommand(cmd, result);
  auto o = std::make_shared<CalibrateOptions>();
  auto* cal = cmd->add_subcommand(
      "calibrate",
      "Fit the step-time model's efficiency factors to measured points, report held-out errors (model left out, "
      "GPU left out) against the noise floor, and write data/engine/calibrated/*.yaml");
  cal->add_option("--measured", o->measured, "Measured points CSV (default: tests/fixtures/perf-2025-10/)");
  cal->add_option("--repeat", o->repeat, "Repeat-run CSV for the noise floor");
  cal->add_option("--out", o->out_dir, "Folder for the profiles (default: data/engine/calibrated)");
  cal->add_option("--report", o->report, "Also write the report (markdown) to this file");
  cal->add_option("--points-csv", o->points_csv, "Write every held-out prediction beside its measurement (CSV)");
  cal->add_option("--threads", o->threads, "Threads simulating points")->capture_default_str();
  cal->add_option("--max-evaluations", o->max_evaluations, "Loss evaluations per fit")->capture_default_str();
  cal->add_option("--prior-weight", o->prior_weight, "Pull towards the priors")->capture_default_str();
  cal->add_flag("--no-write", o->no_write, "Report only; leave the profiles alone");
  cal->add_flag("--skip-protocols", o->skip_protocols, "Only fit and write the profiles");
  cal->callback([o, &result] { result.exit_code = RunCalibrate(*o); });
}

[[maybe_unused]] const bool kRegistered = RegisterCommand("engine", &AddEngineCommand);

}  // namespace
}  // namespace infermark::cli
