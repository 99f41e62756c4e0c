// `infermark gpu probe`: times HBM streams, GEMMs at the built-in models' shapes, grouped GEMMs at
// their MoE shapes and launch overheads on this host's GPU through libinfermark_gpu_probe.so (opened
// at run time: infermark links no CUDA), samples power with NVML meanwhile, and writes a hardware
// profile; with --collectives also NCCL collectives over the host's GPUs at the models' message
// sizes (NCCL opened at run time too). `infermark gpu profile-diff A B` prints how far two profiles' figures differ.
// The command holds the flags and the run's order; what is timed (gpu_probe_plan), the power
// windows (gpu_probe_power), the answer read into a profile (gpu_probe_profile) and what is
// printed (gpu_probe_render) live beside it.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cli/commands.hpp"
#include "cli/gpu_probe_plan.hpp"
#include "cli/gpu_probe_power.hpp"
#include "cli/gpu_probe_profile.hpp"
#include "cli/gpu_probe_render.hpp"
#include "core/diagnostic.hpp"
#include "core/exit_codes.hpp"
#include "core/file_io.hpp"
#include "core/host.hpp"
#include "core/json_text.hpp"
#include "core/subprocess.hpp"
#include "core/version.hpp"
#include "gpu/nvml.hpp"
#include "gpu/power_sampler.hpp"
#include "gpu/probe_library.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/hardware.hpp"
#include "perfmodel/hardware_profile.hpp"
#include "perfmodel/hardware_profile_diff.hpp"

namespace infermark::cli {
namespace {

namespace fs = std::filesystem;
using perfmodel::HardwareProfile;

struct ProbeFlags {
  std::string out;
  std::string hardware;
  std::vector<std::string> models;
  std::vector<int> tp = {1, 8};
  bool quick = false;
  int repeats = 40;
  int rounds = 20;
  int device = 0;
  std::string power_csv;
  bool collectives = false;
  bool collectives_only = false;
  std::vector<int> gpus = {1, 2, 4, 8};
};

[[noreturn]] void FailFlag(const std::string& flag, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

// `gpu collective-table`: each model's collectives per step, the model's cost at each GPU count and
// the probe's time beside it when a profile measured that size.
int RunCollectiveTable(const std::vector<std::string>& names, const std::string& hardware, const std::vector<int>& gpus,
                       const std::string& profile_path, bool quick) {
  const perfmodel::HardwareSpec* hw = nullptr;
  const auto catalog = perfmodel::LoadHardwareFile((fs::path(perfmodel::EngineDataDir()) / "hardware.yaml").string());
  for (const perfmodel::HardwareSpec& h : catalog)
    if (h.name == hardware) hw = &h;
  if (hw == nullptr) FailFlag("--hardware", "unknown hardware '" + hardware + "'");
  for (const int n : gpus)
    if (n < 1 || n > 64) FailFlag("--gpus", "each GPU count must be in 1..64");
  std::optional<HardwareProfile> profile;
  if (!profile_path.empty()) profile = perfmodel::LoadHardwareProfile(profile_path);
  PrintCollectiveTable(*hw, names, gpus, profile, profile_path, quick);
  return kExitOk;
}

// ---- Profile ----------------------------------------------------------------------------------

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// The command line, rebuilt from the flags as given or defaulted.
std::string CommandLine(const ProbeFlags& f) {
  auto list = [](const auto& values) {
    std::string out;
    for (const auto& v : values) {
      if (!out.empty()) out += ',';
      if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>) {
        out += v;
      } else {
        out += std::to_string(v);
      }
    }
    return out;
  };
  std::string out = "infermark gpu probe --out " + f.out;
  if (!f.hardware.empty()) out += " --hardware " + f.hardware;
  if (!f.models.empty()) out += " --models " + list(f.models);
  if (f.collectives_only) {
    if (f.quick) out += " --quick";
    return out + " --device " + std::to_string(f.device) + " --collectives-only --gpus " + list(f.gpus);
  }
  out += " --tp " + list(f.tp);
  if (f.quick) out += " --quick";
  out += " --repeats " + std::to_string(f.repeats) + " --rounds " + std::to_string(f.rounds) + " --device " +
         std::to_string(f.device);
  if (f.collectives) out += " --collectives --gpus " + list(f.gpus);
  return out;
}

// ---- Collectives ------------------------------------------------------------------------------

// libnccl.so.2: $NCCL_LIBRARY, else the one PyTorch's NCCL wheel installed beside python3.
std::string FindNccl() {
  if (const char* env = std::getenv("NCCL_LIBRARY"); env != nullptr && *env != '\0') {
    if (!fs::exists(env))
      throw gpu::ProbeUnavailable(std::string("NCCL_LIBRARY names ") + env + ", which does not exist");
    return env;
  }
  const char* script =
      "import glob, os\n"
      "try:\n"
      "    import nvidia.nccl as n\n"
      "except ImportError:\n"
      "    raise SystemExit(0)\n"
      "for p in n.__path__:\n"
      "    for f in sorted(glob.glob(os.path.join(p, '**', 'libnccl.so*'), recursive=True)):\n"
      "        print(f)\n"
      "        raise SystemExit(0)\n";
  try {
    const ProcessResult r = RunCapture({"python3", "-c", script});
    const std::string path = r.out.substr(0, r.out.find('\n'));
    if (r.exit_code == 0 && !path.empty() && fs::exists(path)) return path;
  } catch (const std::runtime_error&) {
  }
  throw gpu::ProbeUnavailable(
      "--collectives needs NCCL (libnccl.so.2): set NCCL_LIBRARY to its path, or install PyTorch's NCCL wheel "
      "(nvidia-nccl-cu12 or nvidia-nccl-cu13) for python3");
}

int RunProbe(const ProbeFlags& f) {
  if (f.repeats < 20) FailFlag("--repeats", "must be at least 20");
  if (f.rounds < 1 || f.rounds > f.repeats) FailFlag("--rounds", "must be in 1..--repeats");
  for (const int tp : f.tp)
    if (tp < 1 || tp > 64) FailFlag("--tp", "each degree must be in 1..64");
  for (const int n : f.gpus)
    if (n < 1 || n > 64) FailFlag("--gpus", "each GPU count must be in 1..64");
  const bool collectives = f.collectives || f.collectives_only;
  const std::vector<perfmodel::ModelSpec> models = Models(f.models);
  GemmPlan plan = f.collectives_only ? GemmPlan{} : PlanGemms(models, f.tp, f.quick);
  const CollectivePlan coll = collectives ? PlanCollectives(models, f.quick) : CollectivePlan{};
  const std::string nccl = collectives ? FindNccl() : std::string();
  const gpu::ProbeLibrary library(gpu::ProbeLibrary::DefaultPath());

  // Power and clocks at 10 Hz while the probe runs, when NVML is there.
  const fs::path csv = f.power_csv.empty() ? fs::path(f.out + ".power.csv") : fs::path(f.power_csv);
  constexpr double kInterval = 0.1;
  std::unique_ptr<gpu::PowerSampler> sampler;
  std::string driver;
  try {
    auto nvml = gpu::Nvml::Load();
    driver = nvml->DriverVersion();
    sampler = std::make_unique<gpu::PowerSampler>(
        nvml, gpu::PowerSamplerOptions{csv, kInterval, {static_cast<unsigned>(f.device)}});
    sampler->Start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "infermark: no power sampling (%s): power and clocks stay 0\n", e.what());
    sampler.reset();
  }

  const bool single = !f.collectives_only;
  Json request = {{"device", f.device}, {"repeats", f.repeats}, {"rounds", f.rounds},
                  {"warmup", 3},        {"hbm", single},        {"peak", single},
                  {"launch", single},   {"verbose", true},      {"gemms", plan.requests}};
  std::fprintf(stderr, "infermark: probing with %s: %zu GEMM shapes for %zu entries\n", library.path().c_str(),
               plan.requests.size(), plan.entries.size());
  if (collectives) {
    // NVLink multicast stays off (NCCL_NVLS_ENABLE=0): on shared hosts it can take the GPUs out of service.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    request["collectives"] = {{"nccl_library", nccl}, {"gpu_counts", f.gpus}, {"tests", coll.tests}};
    std::fprintf(stderr, "infermark: collectives with %s: %zu sizes over %zu GPU counts\n", nccl.c_str(),
                 coll.tests.size(), f.gpus.size());
  }
  Json result;
  try {
    result = library.Run(request);
  } catch (...) {
    if (sampler) sampler->Stop();
    throw;
  }
  std::vector<PowerSample> samples;
  if (sampler) {
    const gpu::PowerSamplerReport report = sampler->Stop();
    if (!report.error.empty())
      std::fprintf(stderr, "infermark: power sampling stopped early: %s\n", report.error.c_str());
    samples = ReadPowerCsv(csv, static_cast<unsigned>(f.device));
  }

  std::size_t failed = 0;
  HardwareProfile p = ProfileFromProbe(result, plan, samples, kInterval, driver, f.hardware, failed);
  p.measured_at = UtcNow();
  p.host = HostName();
  p.infermark_version = std::string(kVersion) + " (" + GitCommit() + ")";
  p.command = CommandLine(f);

  WriteFileAtomic(f.out, FormatHardwareProfile(p));
  if (single) PrintSummary(p, failed);
  if (collectives) PrintCollectives(p.scale_up, p.hardware);
  std::printf("wrote %s\n", f.out.c_str());
  return kExitOk;
}

int RunDiff(const std::string& a_path, const std::string& b_path, double tolerance) {
  const HardwareProfile a = perfmodel::LoadHardwareProfile(a_path);
  const HardwareProfile b = perfmodel::LoadHardwareProfile(b_path);
  const perfmodel::ProfileComparison c = perfmodel::CompareHardwareProfiles(a, b);
  const std::size_t over = PrintProfileDiff(c, tolerance);
  return over == 0 ? kExitOk : kExitRunFailed;
}

void AddGpuProbeCommands(CLI::App& app, CommandResult& result) {
  CLI::App* group = CommandGroup(app, "gpu", "GPU telemetry through NVML (needs the NVIDIA driver)");
  auto f = std::make_shared<ProbeFlags>();
  auto* probe = group->add_subcommand(
      "probe",
      "Time HBM bandwidth, GEMMs at the built-in models' shapes (bf16, fp8; grouped bf16 GEMMs for their experts), "
      "kernel launch and CUDA-graph overheads on this host's GPU, with power and clocks sampled meanwhile, and write "
      "a hardware profile (needs libinfermark_gpu_probe.so, built when CMake finds the CUDA toolkit)");
  probe->add_option("--out", f->out, "Hardware profile written (YAML; docs/gpu.md)")->required();
  probe->add_option("--hardware", f->hardware, "Catalog key the profile refines (default: guessed from the GPU name)");
  probe->add_option("--models", f->models, "Built-in models whose shapes are timed, comma-separated (default: all)")
      ->delimiter(',');
  probe->add_option("--tp", f->tp, "Parallel degrees whose per-rank shapes are timed (default 1,8)")->delimiter(',');
  probe->add_flag("--quick", f->quick, "Decode batches 1, 64 and 256 only (instead of 1, 8, 32, 64, 128, 256)");
  probe->add_option("--repeats", f->repeats, "Timed batches of each test (at least 20)")->capture_default_str();
  probe
      ->add_option("--rounds", f->rounds,
                   "Rounds the GEMMs' and launch tests' timed batches are interleaved over (1..--repeats)")
      ->capture_default_str();
  probe->add_option("--device", f->device, "CUDA device index")->capture_default_str();
  probe->add_option("--power-csv", f->power_csv, "Power samples written (default: OUT.power.csv)");
  probe->add_flag("--collectives", f->collectives,
                  "Also time NCCL all-reduce, all-gather, reduce-scatter and all-to-all over --gpus GPUs at the "
                  "models' message sizes (needs libnccl.so.2: NCCL_LIBRARY, else PyTorch's NCCL wheel for python3)");
  probe->add_flag("--collectives-only", f->collectives_only,
                  "Time the collectives alone (no HBM, GEMM or launch tests)");
  probe
      ->add_option("--gpus", f->gpus,
                   "Communicator sizes for --collectives, comma-separated (default 1,2,4,8; "
                   "those above the host's GPU count are skipped)")
      ->delimiter(',');
  probe->callback([f, &result] { result.exit_code = RunProbe(*f); });

  struct TableFlags {
    std::vector<std::string> models;
    std::string hardware = "h200";
    std::vector<int> gpus = {1, 2, 4, 8};
    std::string profile;
    bool quick = false;
  };
  auto t = std::make_shared<TableFlags>();
  auto* table = group->add_subcommand(
      "collective-table",
      "Print the collectives each built-in model exchanges per step (message sizes as gpu probe --collectives times "
      "them), the performance model's time for each at each GPU count, and a profile's measured time beside it");
  table->add_option("--models", t->models, "Built-in models, comma-separated (default: all)")->delimiter(',');
  table->add_option("--hardware", t->hardware, "Catalog hardware whose scale-up priors the model uses")
      ->capture_default_str();
  table->add_option("--gpus", t->gpus, "GPU counts, comma-separated (default 1,2,4,8)")->delimiter(',');
  table->add_option("--profile", t->profile, "Hardware profile with a scale_up section (gpu probe --collectives)");
  table->add_flag("--quick", t->quick, "Decode batches 1, 64 and 256 only");
  table->callback(
      [t, &result] { result.exit_code = RunCollectiveTable(t->models, t->hardware, t->gpus, t->profile, t->quick); });

  auto files = std::make_shared<std::vector<std::string>>();
  auto tolerance = std::make_shared<double>(0.03);
  auto* diff = group->add_subcommand(
      "profile-diff",
      "Print the relative difference of every figure two hardware profiles share (exit 1 when one differs by more "
      "than --tolerance)");
  diff->add_option("profiles", *files, "Profiles A and B")->required()->expected(2);
  diff->add_option("--tolerance", *tolerance, "Largest relative difference accepted")->capture_default_str();
  diff->callback([files, tolerance, &result] { result.exit_code = RunDiff((*files)[0], (*files)[1], *tolerance); });
}

[[maybe_unused]] const bool kGpuProbeRegistered = RegisterCommand("gpu", &AddGpuProbeCommands);

}  // namespace
}  // namespace infermark::cli
