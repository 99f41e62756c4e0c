// `infermark gpu info` and `infermark gpu monitor`: what NVML sees, and power sampled in nvidia-smi's
// CSV format over a window (a duration, or while a command runs), with each GPU's energy counter
// read at both ends and compared with the energy the samples integrate to. All NVML work is in
// src/gpu; this file reads flags, runs the command and prints the comparison.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/argparse_compat.hpp"
#include "cli/commands.hpp"
#include "cli/gpu_telemetry.hpp"
#include "cli/list_flags.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "gpu/nvml.hpp"
#include "gpu/power_sampler.hpp"

extern char** environ;

namespace infermark::cli {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void RejectFlag(const std::string& flag, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

std::string Optional(const std::optional<unsigned>& value, const char* unit) {
  return value ? std::to_string(*value) + unit : "n/a";
}

int RunInfo(bool as_json) {
  const auto nvml = gpu::Nvml::Load();
  nlohmann::json out = {{"library", nvml->library()}, {"driver_version", nvml->DriverVersion()}, {"gpus", {}}};
  const unsigned count = nvml->DeviceCount();
  if (!as_json)
    std::printf("NVML %s, driver %s, %u GPUs\n", nvml->library().c_str(), nvml->DriverVersion().c_str(), count);
  for (unsigned i = 0; i < count; ++i) {
    const gpu::GpuIdentity id = nvml->Identity(i);
    const gpu::GpuReading r = nvml->Read(i);
    const std::optional<double> energy = nvml->EnergyJ(i);
    nlohmann::json g = {{"index", i}, {"name", id.name}, {"uuid", id.uuid}};
    g["power_w"] = r.power_w ? nlohmann::json(*r.power_w) : nlohmann::json();
    g["sm_clock_mhz"] = r.sm_clock_mhz ? nlohmann::json(*r.sm_clock_mhz) : nlohmann::json();
    g["memory_clock_mhz"] = r.memory_clock_mhz ? nlohmann::json(*r.memory_clock_mhz) : nlohmann::json();
    g["temperature_c"] = r.temperature_c ? nlohmann::json(*r.temperature_c) : nlohmann::json();
    g["energy_counter_j"] = energy ? nlohmann::json(*energy) : nlohmann::json();
    out["gpus"].push_back(g);
    if (!as_json) {
      std::printf("%u  %-24s %s  power %s  SM %s  memory %s  %s\n", i, id.name.c_str(), id.uuid.c_str(),
                  r.power_w ? (std::to_string(std::lround(*r.power_w)) + " W").c_str() : "n/a",
                  Optional(r.sm_clock_mhz, " MHz").c_str(), Optional(r.memory_clock_mhz, " MHz").c_str(),
                  Optional(r.temperature_c, " C").c_str());
    }
  }
  if (as_json) std::printf("%s\n", out.dump(2).c_str());
  return kExitOk;
}

struct MonitorFlags {
  std::string csv = "gpu_metrics.csv";
  std::vector<std::string> interval_texts;
  std::string last_interval;
  std::string gpus;
  double duration_s = 0;
  std::string json;
  std::vector<std::string> command;
};

// The CSV of one interval: `csv` itself with one interval, else `<stem>_<interval>s<ext>`.
fs::path IntervalCsv(const fs::path& csv, double interval, bool several) {
  if (!several) return csv;
  char text[32];
  std::snprintf(text, sizeof text, "_%gs", interval);
  return csv.parent_path() / (csv.stem().string() + text + csv.extension().string());
}

// Starts `argv` with this process's stdin, stdout and stderr, signals at their defaults.
pid_t Spawn(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], nullptr, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) RejectFlag("command", "cannot run '" + argv[0] + "': " + std::strerror(rc));
  return pid;
}

// Waits for the window to end: the child's exit (returned), the duration, or a signal. SIGINT and
// SIGTERM are blocked here; one sent to this process alone is passed on to the child, while one
// from the terminal reaches the child by itself.
std::optional<int> WaitWindow(const sigset_t& signals, std::optional<pid_t> child, double duration_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(duration_s);
  for (;;) {
    if (child) {
      int status = 0;
      if (waitpid(*child, &status, WNOHANG) == *child) {
        return WIFEXITED(status) ? WEXITSTATUS(status) : kExitSignalBase + WTERMSIG(status);
      }
    } else if (duration_s > 0 && std::chrono::steady_clock::now() >= deadline) {
      return std::nullopt;
    }
    timespec wait{0, 50'000'000};
    siginfo_t info{};
    const int signal_number = sigtimedwait(&signals, &info, &wait);
    if (signal_number == SIGINT || signal_number == SIGTERM) {
      if (!child) return std::nullopt;
      if (info.si_code == SI_USER) kill(*child, signal_number);
    }
  }
}

// The value with `decimals` decimals (a sign with `signed_value`), or "n/a" for NaN.
std::string Cell(double value, int decimals, bool signed_value = false) {
  if (std::isnan(value)) return "n/a";
  char text[32];
  std::snprintf(text, sizeof text, signed_value ? "%+.*f" : "%.*f", decimals, value);
  return text;
}

// A number, or null for NaN.
nlohmann::json Number(double value) {
  return std::isnan(value) ? nlohmann::json() : nlohmann::json(value);
}

int RunMonitor(MonitorFlags& f) {
  std::vector<double> intervals;
  for (const std::string& text : f.interval_texts) {
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
      double interval = 0;
      const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), interval);
      if (item.empty() || error != std::errc() || end != item.data() + item.size() || !(interval > 0) ||
          !std::isfinite(interval)) {
        RejectFlag("--interval", "'" + item + "' is not a positive number of seconds");
      }
      if (std::find(intervals.begin(), intervals.end(), interval) != intervals.end()) {
        RejectFlag("--interval", "each interval once");
      }
      intervals.push_back(interval);
    }
  }
  if (intervals.empty()) intervals.push_back(1.0);
  if (f.duration_s < 0) RejectFlag("--duration", "must be 0 (until SIGINT or the command ends) or more seconds");
  if (f.duration_s > 0 && !f.command.empty()) RejectFlag("--duration", "give a duration or a command, not both");
  std::vector<unsigned> gpus;
  for (int g : ParseGpuList("--gpus", f.gpus)) gpus.push_back(static_cast<unsigned>(g));

  const auto nvml = gpu::Nvml::Load();
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  // Blocked before the sampler threads start, so that they inherit the mask and signals come here.
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::vector<std::unique_ptr<gpu::PowerSampler>> samplers;
  for (double interval : intervals) {
    gpu::PowerSamplerOptions options{IntervalCsv(f.csv, interval, intervals.size() > 1), interval, gpus};
    try {
      samplers.push_back(std::make_unique<gpu::PowerSampler>(nvml, options));
    } catch (const std::invalid_argument& e) {
      RejectFlag("--gpus", e.what());
    }
  }
  for (auto& s : samplers) s->Start();
  std::optional<int> child_exit;
  if (!f.command.empty()) {
    child_exit = WaitWindow(signals, Spawn(f.command), 0);
  } else {
    (void)WaitWindow(signals, std::nullopt, f.duration_s);
  }
  std::vector<gpu::PowerSamplerReport> reports;
  for (auto& s : samplers) reports.push_back(s->Stop());

  nlohmann::json summary = {{"driver_version", nvml->DriverVersion()}, {"samplers", nlohmann::json::array()}};
  if (!f.command.empty()) {
    summary["command"] = f.command;
    summary["exit_code"] = *child_exit;
  }
  bool failed = false;
  std::printf("%-10s %-5s %8s %16s %16s %13s\n", "interval", "gpu", "samples", "integrated J", "counter J",
              "difference %");
  for (const gpu::PowerSamplerReport& r : reports) {
    const SampledEnergy sampled =
        IntegrateSampledEnergy(r.csv, r.start_time_unix, r.end_time_unix, static_cast<int>(r.gpus.size()));
    nlohmann::json entry = {{"interval_s", r.interval_s},
                            {"csv", r.csv.string()},
                            {"start_time_unix", r.start_time_unix},
                            {"end_time_unix", r.end_time_unix},
                            {"duration_s", r.end_time_unix - r.start_time_unix},
                            {"ticks", r.ticks},
                            {"rows", r.rows},
                            {"skipped_ticks", r.skipped_ticks},
                            {"integration_valid", sampled.valid},
                            {"integration_reasons", sampled.reasons},
                            {"gpus", nlohmann::json::array()}};
    if (!r.error.empty()) {
      entry["error"] = r.error;
      std::fprintf(stderr, "infermark gpu monitor: sampling at %g s stopped early: %s\n", r.interval_s,
                   r.error.c_str());
      failed = true;
    }
    if (!sampled.valid) {
      std::string reasons;
      for (const auto& reason : sampled.reasons) reasons += (reasons.empty() ? "" : ", ") + reason;
      std::fprintf(stderr, "infermark gpu monitor: the %g s samples do not cover the window: %s\n", r.interval_s,
                   reasons.c_str());
    }
    for (const gpu::GpuEnergyCounter& counter : r.energy) {
      const std::string id = std::to_string(counter.gpu);
      const auto samples = sampled.samples.count(id) ? sampled.samples.at(id) : std::size_t{0};
      constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
      const double integrated = sampled.valid && sampled.energy_j.count(id) ? sampled.energy_j.at(id) : kMissing;
      const double delta = counter.delta_j().value_or(kMissing);
      const double difference = delta > 0 ? (integrated - delta) / delta * 100 : kMissing;
      entry["gpus"].push_back({{"index", counter.gpu},
                               {"samples", samples},
                               {"integrated_energy_j", Number(integrated)},
                               {"counter_energy_j", Number(delta)},
                               {"difference_percent", Number(difference)}});
      char interval[16];
      std::snprintf(interval, sizeof interval, "%g s", r.interval_s);
      std::printf("%-10s %-5u %8zu %16s %16s %13s\n", interval, counter.gpu, samples, Cell(integrated, 1).c_str(),
                  Cell(delta, 1).c_str(), Cell(difference, 3, true).c_str());
    }
    summary["samplers"].push_back(entry);
  }
  std::fflush(stdout);
  if (!f.json.empty()) WriteFileAtomic(f.json, summary.dump(2) + "\n");
  if (child_exit) return *child_exit;
  return failed ? kExitRunFailed : kExitOk;
}

void AddGpuCommand(CLI::App& app, CommandResult& result) {
  CLI::App* group = CommandGroup(app, "gpu", "GPU telemetry through NVML (needs the NVIDIA driver)");
  group->require_subcommand(1);
  auto* info = group->add_subcommand("info", "Name, UUID, driver, power, clocks and energy counter of each GPU");
  auto as_json = std::make_shared<bool>(false);
  info->add_flag("--json", *as_json, "Print JSON instead of a table");
  info->callback([as_json, &result] { result.exit_code = RunInfo(*as_json); });

  auto* monitor = group->add_subcommand(
      "monitor",
      "Sample power in nvidia-smi's CSV format for a duration or while a command runs (`-- CMD ARGS…`; its exit "
      "code is returned), and compare NVML's energy counters with the energy the samples integrate to");
  auto f = std::make_shared<MonitorFlags>();
  monitor->add_option("--csv", f->csv, "CSV written (with several intervals: <stem>_<interval>s<ext> each)")
      ->capture_default_str();
  // One value per occurrence, each kept (a list option would also swallow the `--` before a command).
  Appending(monitor
                ->add_option("--interval", f->last_interval,
                             "Seconds between samples; repeat it or give a list (0.1,1) for one sampler and CSV "
                             "each over the same window (default 1)")
                ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
                ->each([f](const std::string& value) { f->interval_texts.push_back(value); }));
  monitor->add_option("--gpus", f->gpus, "NVML indices to sample, comma-separated (default: all)");
  monitor->add_option("--duration", f->duration_s, "Seconds to sample (0: until SIGINT, or while the command runs)")
      ->capture_default_str();
  monitor->add_option("--json", f->json, "Summary JSON: per interval and GPU, counter and integrated energy");
  monitor->add_option("command", f->command, "Command to run while sampling (after --)");
  monitor->callback([f, &result] { result.exit_code = RunMonitor(*f); });
}

[[maybe_unused]] const bool kGpuRegistered = RegisterCommand("gpu", &AddGpuCommand);

}  // namespace
}  // namespace infermark::cli
