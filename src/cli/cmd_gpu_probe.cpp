// `infermark gpu probe`: times HBM streams, GEMMs at the built-in models' shapes, grouped GEMMs at
// their MoE shapes and launch overheads on this host's GPU through libinfermark_gpu_probe.so (opened
// at run time: infermark links no CUDA), samples power with NVML meanwhile, and writes a hardware
// profile; with --collectives also NCCL collectives over the host's GPUs at the models' message
// sizes (NCCL opened at run time too). `infermark gpu profile-diff A B` prints how far two profiles' figures differ.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "cli/commands.hpp"
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
#include "perfmodel/collective_shapes.hpp"
#include "perfmodel/efficiency.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/hardware.hpp"
#include "perfmodel/hardware_profile.hpp"
#include "perfmodel/hardware_profile_diff.hpp"
#include "perfmodel/kernel_shapes.hpp"
#include "perfmodel/model_spec.hpp"

namespace infermark::cli {
namespace {

namespace fs = std::filesystem;
using perfmodel::HardwareProfile;
using perfmodel::ProbedGemm;

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

[[noreturn]] void BadFlag(const std::string& flag, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, "", flag, rule});
}

constexpr std::int64_t kPrefillTokens = 8192;

std::vector<std::int64_t> DecodeBatches(bool quick) {
  if (quick) return {1, 64, 256};
  return {1, 8, 32, 64, 128, 256};
}

// The built-in models (data/engine/models/*.yaml), those named by --models only.
std::vector<perfmodel::ModelSpec> Models(const std::vector<std::string>& names) {
  std::vector<perfmodel::ModelSpec> all;
  const fs::path dir = fs::path(perfmodel::EngineDataDir()) / "models";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) all.push_back(perfmodel::LoadModelFile(file.string()));
  if (names.empty()) return all;
  std::vector<perfmodel::ModelSpec> chosen;
  for (const std::string& name : names) {
    bool found = false;
    for (const perfmodel::ModelSpec& m : all) {
      if (m.name == name || std::find(m.aliases.begin(), m.aliases.end(), name) != m.aliases.end()) {
        chosen.push_back(m);
        found = true;
        break;
      }
    }
    if (!found) {
      std::string known;
      for (const perfmodel::ModelSpec& m : all) known += (known.empty() ? "" : ", ") + m.name;
      BadFlag("--models", "unknown model '" + name + "' (built-in: " + known + ")");
    }
  }
  return chosen;
}

// The profile's GEMM entries (times still 0) and the request's unique shapes they map to.
struct GemmPlan {
  std::vector<ProbedGemm> entries;
  std::vector<std::size_t> request_index;  // per entry
  Json requests = Json::array();
};

void AddGemm(GemmPlan& plan,
             std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, int>, std::size_t>& unique,
             ProbedGemm entry) {
  const auto key = std::make_tuple(entry.dtype, entry.m, entry.n, entry.k, entry.experts);
  auto it = unique.find(key);
  if (it == unique.end()) {
    it = unique.emplace(key, plan.requests.size()).first;
    plan.requests.push_back(
        {{"dtype", entry.dtype}, {"m", entry.m}, {"n", entry.n}, {"k", entry.k}, {"experts", entry.experts}});
  }
  plan.request_index.push_back(it->second);
  plan.entries.push_back(std::move(entry));
}

GemmPlan PlanGemms(const std::vector<perfmodel::ModelSpec>& models, const std::vector<int>& tps, bool quick) {
  GemmPlan plan;
  std::map<std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, int>, std::size_t> unique;
  std::vector<std::pair<std::string, std::int64_t>> phases;
  for (const std::int64_t m : DecodeBatches(quick)) phases.emplace_back("decode", m);
  phases.emplace_back("prefill", kPrefillTokens);
  for (const perfmodel::ModelSpec& model : models) {
    for (const int tp : tps) {
      for (const perfmodel::KernelShape& shape : perfmodel::KernelShapes(model, tp)) {
        for (const auto& [phase, tokens] : phases) {
          // A prefill step projects only each sequence's last token onto the vocabulary.
          if (phase == "prefill" && shape.op == "lm_head") continue;
          ProbedGemm g;
          g.model = model.name;
          g.op = shape.op;
          g.phase = phase;
          g.tp = shape.tp;
          g.n = shape.n;
          g.k = shape.k;
          if (shape.Grouped()) {
            const perfmodel::ExpertLoad load = perfmodel::UniformExpertLoad(shape, tokens);
            g.m = load.m;
            g.experts = load.experts;
            g.dtype = "bf16";
            AddGemm(plan, unique, g);
            continue;
          }
          g.m = tokens;
          for (const char* dtype : {"bf16", "fp8"}) {
            g.dtype = dtype;
            AddGemm(plan, unique, g);
          }
        }
      }
    }
  }
  return plan;
}

// The probe's entry for `op` over `gpus` GPUs at `bytes` (the probe rounds sizes up to whole
// elements per rank: the nearest entry within 2·gpus bytes), or null.
const perfmodel::ProbedCollective* Measured(const perfmodel::ScaleUpProfile& s, const std::string& op, int gpus,
                                            std::int64_t bytes) {
  const perfmodel::ProbedCollective* best = nullptr;
  for (const perfmodel::ProbedCollective& c : s.collectives)
    if (c.op == op && c.gpus == gpus && c.bytes >= bytes && c.bytes - bytes <= 2 * gpus &&
        (best == nullptr || c.bytes < best->bytes))
      best = &c;
  return best;
}

// `gpu collective-table`: each model's collectives per step, the model's cost at each GPU count and
// the probe's time beside it when a profile measured that size.
int RunCollectiveTable(const std::vector<std::string>& names, const std::string& hardware, const std::vector<int>& gpus,
                       const std::string& profile_path, bool quick) {
  const perfmodel::HardwareSpec* hw = nullptr;
  const auto catalog = perfmodel::LoadHardwareFile((fs::path(perfmodel::EngineDataDir()) / "hardware.yaml").string());
  for (const perfmodel::HardwareSpec& h : catalog)
    if (h.name == hardware) hw = &h;
  if (hw == nullptr) BadFlag("--hardware", "unknown hardware '" + hardware + "'");
  for (const int n : gpus)
    if (n < 1 || n > 64) BadFlag("--gpus", "each GPU count must be in 1..64");
  std::optional<HardwareProfile> profile;
  if (!profile_path.empty()) profile = perfmodel::LoadHardwareProfile(profile_path);
  const perfmodel::EfficiencyFactors factors;
  std::printf("# model: %s priors (link %.0f GB/s x fraction %.2f, all-reduce %.1f us, all-to-all %.1f us)%s\n",
              hw->name.c_str(), hw->link_bytes_per_s / 1e9, factors.link_bw_fraction, hw->allreduce_latency_s * 1e6,
              hw->alltoall_latency_s * 1e6, profile ? ("; measured: " + profile_path).c_str() : "");
  std::printf("%-16s %-18s %-7s %6s %11s %5s", "model", "use", "phase", "tokens", "bytes", "/step");
  for (const int n : gpus)
    std::printf(" %9s %9s", ("model" + std::to_string(n)).c_str(), ("meas" + std::to_string(n)).c_str());
  std::printf("   (us per call)\n");
  for (const perfmodel::ModelSpec& m : Models(names)) {
    for (const perfmodel::CollectiveShape& c : perfmodel::CollectiveShapes(m, DecodeBatches(quick), kPrefillTokens)) {
      std::printf("%-16s %-18s %-7s %6lld %11lld %5d", c.model.c_str(), c.use.c_str(), c.phase.c_str(),
                  static_cast<long long>(c.tokens), static_cast<long long>(c.bytes), c.per_step);
      for (const int n : gpus) {
        const double t = perfmodel::ModelCollectiveSeconds(*hw, factors, c.op, n, static_cast<double>(c.bytes));
        const perfmodel::ProbedCollective* p = profile ? Measured(profile->scale_up, c.op, n, c.bytes) : nullptr;
        char model_text[24] = "-", meas_text[24] = "-";
        if (t >= 0) std::snprintf(model_text, sizeof model_text, "%.2f", t * 1e6);
        if (p != nullptr) std::snprintf(meas_text, sizeof meas_text, "%.2f", p->seconds * 1e6);
        std::printf(" %9s %9s", model_text, meas_text);
      }
      std::printf("\n");
    }
  }
  return kExitOk;
}

// ---- Power ------------------------------------------------------------------------------------

struct PowerSample {
  double unix = 0;
  double power_w = 0;
  double sm_mhz = 0;
  double mem_mhz = 0;
};

// The first number in a cell ("412.34 W" → 412.34); nullopt for "[N/A]".
std::optional<double> CellNumber(const std::string& cell) {
  const std::size_t start = cell.find_first_of("0123456789");
  if (start == std::string::npos) return std::nullopt;
  try {
    return std::stod(cell.substr(start));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// nvidia-smi's `YYYY/MM/DD HH:MM:SS.mmm` in local time, as the sampler writes it.
std::optional<double> CellTime(const std::string& cell) {
  std::tm tm{};
  std::istringstream in(cell);
  in >> std::get_time(&tm, "%Y/%m/%d %H:%M:%S");
  if (in.fail()) return std::nullopt;
  double fraction = 0;
  if (in.peek() == '.') {
    std::string digits;
    in >> digits;
    try {
      fraction = std::stod("0" + digits);
    } catch (const std::exception&) {
      fraction = 0;
    }
  }
  tm.tm_isdst = -1;
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t) + fraction;
}

std::vector<PowerSample> ReadPowerCsv(const fs::path& csv, unsigned gpu) {
  std::vector<PowerSample> out;
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = line.find(", ", start);
      cells.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 2;
    }
    if (cells.size() < 6 || cells[1] != std::to_string(gpu)) continue;
    const std::optional<double> when = CellTime(cells[0]);
    const std::optional<double> power = CellNumber(cells[2]);
    if (!when || !power) continue;
    out.push_back({*when, *power, CellNumber(cells[4]).value_or(0), CellNumber(cells[5]).value_or(0)});
  }
  return out;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

// Mean power and median clocks of the samples inside any of `windows`; a window with none inside
// adds the one sample nearest its middle if that lies within `interval` of it.
perfmodel::ProbedPower Windows(const std::vector<PowerSample>& samples,
                               const std::vector<std::pair<double, double>>& windows, double interval) {
  perfmodel::ProbedPower p;
  std::set<const PowerSample*> inside;
  for (const auto& [start, end] : windows) {
    bool any = false;
    for (const PowerSample& s : samples) {
      if (s.unix >= start && s.unix <= end) {
        inside.insert(&s);
        any = true;
      }
    }
    if (any) continue;
    const double mid = 0.5 * (start + end);
    const PowerSample* best = nullptr;
    for (const PowerSample& s : samples)
      if (best == nullptr || std::abs(s.unix - mid) < std::abs(best->unix - mid)) best = &s;
    if (best != nullptr && best->unix >= start - interval && best->unix <= end + interval) inside.insert(best);
  }
  if (inside.empty()) return p;
  std::vector<double> sm, mem;
  double sum = 0;
  for (const PowerSample* s : inside) {
    sum += s->power_w;
    sm.push_back(s->sm_mhz);
    mem.push_back(s->mem_mhz);
  }
  p.avg_power_w = sum / static_cast<double>(inside.size());
  p.sm_clock_mhz = Median(sm);
  p.mem_clock_mhz = Median(mem);
  return p;
}

// The wall-clock windows a test's timed batches ran in (its `windows`, else [start, end]).
std::vector<std::pair<double, double>> TestWindows(const Json& test) {
  std::vector<std::pair<double, double>> out;
  const auto it = test.find("windows");
  if (it != test.end() && it->is_array()) {
    for (const Json& w : *it)
      if (w.is_array() && w.size() == 2 && w[0].is_number() && w[1].is_number())
        out.emplace_back(w[0].get<double>(), w[1].get<double>());
  }
  if (out.empty()) {
    const auto start = test.find("start"), end = test.find("end");
    if (start != test.end() && end != test.end() && start->is_number() && end->is_number())
      out.emplace_back(start->get<double>(), end->get<double>());
  }
  return out;
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

double Number(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string Text(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string GuessHardware(const std::string& gpu_name) {
  std::string lower = gpu_name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  try {
    const auto hardware =
        perfmodel::LoadHardwareFile((fs::path(perfmodel::EngineDataDir()) / "hardware.yaml").string());
    std::string best;
    for (const perfmodel::HardwareSpec& h : hardware)
      if (lower.find(h.name) != std::string::npos && h.name.size() > best.size()) best = h.name;
    return best;
  } catch (const InputError&) {
    return "";
  }
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

// The probe's collective tests: every distinct (op, bytes) the chosen models exchange.
struct CollectivePlan {
  std::vector<perfmodel::CollectiveShape> shapes;
  Json tests = Json::array();
};

CollectivePlan PlanCollectives(const std::vector<perfmodel::ModelSpec>& models, bool quick) {
  CollectivePlan plan;
  std::set<std::pair<std::string, std::int64_t>> unique;
  for (const perfmodel::ModelSpec& model : models) {
    for (const perfmodel::CollectiveShape& s :
         perfmodel::CollectiveShapes(model, DecodeBatches(quick), kPrefillTokens)) {
      if (unique.insert({s.op, s.bytes}).second) plan.tests.push_back({{"op", s.op}, {"bytes", s.bytes}});
      plan.shapes.push_back(s);
    }
  }
  return plan;
}

// The profile's scale_up section from the probe's `collectives` result.
perfmodel::ScaleUpProfile ScaleUpFrom(const Json& c) {
  perfmodel::ScaleUpProfile out;
  out.nccl_version = Text(c, "nccl_version");
  out.nvls = c.value("nvls", false);
  std::set<std::string> reported;
  for (const Json& r : c.value("runs", Json::array())) {
    if (r.contains("error")) {
      const std::string line = std::to_string(static_cast<int>(Number(r, "gpus"))) + " GPUs: " + Text(r, "error");
      if (reported.insert(line).second) std::fprintf(stderr, "infermark: collectives over %s\n", line.c_str());
      continue;
    }
    perfmodel::ProbedCollective p;
    p.op = Text(r, "op");
    p.gpus = static_cast<int>(Number(r, "gpus"));
    p.bytes = static_cast<std::int64_t>(Number(r, "bytes"));
    p.seconds = Number(r, "seconds");
    p.spread = Number(r, "spread");
    p.graph = r.value("graph", false);
    if (p.seconds <= 0) continue;
    p.bus_bytes_per_s = static_cast<double>(p.bytes) / p.seconds * perfmodel::BusFactor(p.op, p.gpus);
    out.collectives.push_back(p);
  }
  for (const Json& n : c.value("skipped", Json::array()))
    std::fprintf(stderr, "infermark: collectives over %d GPUs not run: %d GPUs here\n", n.get<int>(),
                 static_cast<int>(Number(c, "devices")));
  return out;
}

// Each measurement beside the step-time model's cost of it (the catalog's figures for `hardware`,
// the default link fraction and latency priors).
void PrintCollectives(const perfmodel::ScaleUpProfile& s, const std::string& hardware) {
  std::optional<perfmodel::HardwareSpec> hw;
  try {
    for (const perfmodel::HardwareSpec& h :
         perfmodel::LoadHardwareFile((fs::path(perfmodel::EngineDataDir()) / "hardware.yaml").string()))
      if (h.name == hardware) hw = h;
  } catch (const InputError&) {
    hw.reset();
  }
  std::printf("  NCCL %s, NVLink multicast %s; model: %s scale-up figures, link fraction %.2f\n",
              s.nccl_version.c_str(), s.nvls ? "on" : "off", hw ? hardware.c_str() : "(no catalog hardware)",
              perfmodel::EfficiencyFactors{}.link_bw_fraction);
  std::printf("  %-15s %4s %12s %11s %10s %11s %10s\n", "collective", "gpus", "bytes", "measured us", "bus GB/s",
              "model us", "model/meas");
  for (const perfmodel::ProbedCollective& c : s.collectives) {
    const double model =
        hw ? perfmodel::ModelCollectiveSeconds(*hw, perfmodel::EfficiencyFactors{}, c.op, c.gpus, double(c.bytes)) : -1;
    char model_text[32] = "-", ratio[32] = "-";
    if (model > 0) {
      std::snprintf(model_text, sizeof model_text, "%.2f", model * 1e6);
      std::snprintf(ratio, sizeof ratio, "%.2f", model / c.seconds);
    }
    std::printf("  %-15s %4d %12lld %11.2f %10.1f %11s %10s\n", c.op.c_str(), c.gpus, static_cast<long long>(c.bytes),
                c.seconds * 1e6, c.bus_bytes_per_s / 1e9, model_text, ratio);
  }
}

void PrintSummary(const HardwareProfile& p, std::size_t failed) {
  std::printf("%s (%s), %d SMs, %.0f GB, CUDA runtime %s\n", p.gpu_name.c_str(), p.compute_capability.c_str(),
              p.sm_count, p.memory_bytes / 1e9, p.cuda_runtime.c_str());
  std::printf("  HBM read %.0f GB/s, write %.0f GB/s, copy %.0f GB/s (read + written)\n", p.hbm_read_bytes_per_s / 1e9,
              p.hbm_write_bytes_per_s / 1e9, p.hbm_copy_bytes_per_s / 1e9);
  std::printf("  GEMM peak bf16 %.0f TFLOP/s, fp8 %.0f TFLOP/s\n", p.gemm_peak_bf16 / 1e12, p.gemm_peak_fp8 / 1e12);
  std::printf("  launch %.2f us, graph node %.2f us, graph replay %.2f us\n", p.kernel_launch_s * 1e6,
              p.graph_kernel_s * 1e6, p.graph_launch_s * 1e6);
  std::printf("  %-16s %-15s %-7s %-4s %3s %6s %6s %6s %4s %10s %9s %7s\n", "model", "op", "phase", "type", "tp", "m",
              "n", "k", "exp", "us", "TFLOP/s", "TB/s");
  std::size_t shown = 0;
  for (const ProbedGemm& g : p.gemms) {
    if (g.tp != 8 || (g.m != 1 && g.m != 64 && g.m != 256 && g.phase != "prefill") || g.dtype != "bf16") continue;
    if (++shown > 16) break;
    std::printf("  %-16s %-15s %-7s %-4s %3d %6lld %6lld %6lld %4d %10.2f %9.1f %7.2f\n", g.model.c_str(), g.op.c_str(),
                g.phase.c_str(), g.dtype.c_str(), g.tp, static_cast<long long>(g.m), static_cast<long long>(g.n),
                static_cast<long long>(g.k), g.experts, g.seconds * 1e6, g.Flops() / g.seconds / 1e12,
                g.Bytes() / g.seconds / 1e12);
  }
  std::printf("  %zu GEMMs timed%s\n", p.gemms.size(),
              failed > 0 ? (", " + std::to_string(failed) + " could not run (see stderr)").c_str() : "");
}

int RunProbe(const ProbeFlags& f) {
  if (f.repeats < 20) BadFlag("--repeats", "must be at least 20");
  if (f.rounds < 1 || f.rounds > f.repeats) BadFlag("--rounds", "must be in 1..--repeats");
  for (const int tp : f.tp)
    if (tp < 1 || tp > 64) BadFlag("--tp", "each degree must be in 1..64");
  for (const int n : f.gpus)
    if (n < 1 || n > 64) BadFlag("--gpus", "each GPU count must be in 1..64");
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

  HardwareProfile p;
  const Json& device = result["device"];
  p.gpu_name = Text(device, "name");
  p.gpu_uuid = Text(device, "uuid");
  p.driver = driver.empty() ? "CUDA driver API " + Text(device, "cuda_driver_api") : driver;
  p.cuda_runtime = Text(device, "cuda_runtime");
  p.compute_capability = Text(device, "compute_capability");
  p.sm_count = static_cast<int>(Number(device, "sm_count"));
  p.memory_bytes = Number(device, "memory_bytes");
  p.sm_clock_max_mhz = Number(device, "sm_clock_max_mhz");
  p.mem_clock_max_mhz = Number(device, "mem_clock_max_mhz");
  p.hardware = f.hardware.empty() ? GuessHardware(p.gpu_name) : f.hardware;
  p.measured_at = UtcNow();
  p.host = HostName();
  p.infermark_version = std::string(kVersion) + " (" + GitCommit() + ")";
  p.command = CommandLine(f);

  const Json& tests = result["tests"];
  auto test = [&](const char* name, const char* key, double& field) {
    const auto it = tests.find(name);
    if (it == tests.end()) return;
    if (it->contains("error")) {
      std::fprintf(stderr, "infermark: %s: %s\n", name, Text(*it, "error").c_str());
      return;
    }
    field = Number(*it, key);
    if (!samples.empty()) {
      perfmodel::ProbedPower power = Windows(samples, TestWindows(*it), kInterval);
      power.test = name;
      p.power.push_back(power);
    }
  };
  test("hbm_read", "bytes_per_s", p.hbm_read_bytes_per_s);
  test("hbm_write", "bytes_per_s", p.hbm_write_bytes_per_s);
  test("hbm_copy", "bytes_per_s", p.hbm_copy_bytes_per_s);
  test("kernel_launch", "seconds_each", p.kernel_launch_s);
  test("graph_kernel", "seconds_each", p.graph_kernel_s);
  test("graph_launch", "seconds_each", p.graph_launch_s);
  test("gemm_peak_bf16", "flops_per_s", p.gemm_peak_bf16);
  test("gemm_peak_fp8", "flops_per_s", p.gemm_peak_fp8);

  const Json& timed = result["gemms"];
  std::map<std::size_t, const Json*> by_index;
  for (const Json& g : timed) by_index[static_cast<std::size_t>(Number(g, "index"))] = &g;
  std::size_t failed = 0;
  std::set<std::size_t> reported;
  for (std::size_t e = 0; e < plan.entries.size(); ++e) {
    const auto it = by_index.find(plan.request_index[e]);
    if (it == by_index.end()) continue;
    const Json& r = *it->second;
    if (r.contains("error")) {
      if (reported.insert(plan.request_index[e]).second) {
        ++failed;
        std::fprintf(stderr, "infermark: GEMM %s m=%lld n=%lld k=%lld experts=%d: %s\n", plan.entries[e].dtype.c_str(),
                     static_cast<long long>(plan.entries[e].m), static_cast<long long>(plan.entries[e].n),
                     static_cast<long long>(plan.entries[e].k), plan.entries[e].experts, Text(r, "error").c_str());
      }
      continue;
    }
    ProbedGemm g = plan.entries[e];
    g.n = static_cast<std::int64_t>(Number(r, "n"));
    g.k = static_cast<std::int64_t>(Number(r, "k"));
    g.seconds = Number(r, "seconds");
    g.spread = Number(r, "spread");
    g.algo = Text(r, "algo");
    if (!samples.empty()) {
      const perfmodel::ProbedPower power = Windows(samples, TestWindows(r), kInterval);
      g.avg_power_w = power.avg_power_w;
      g.sm_clock_mhz = power.sm_clock_mhz;
    }
    if (g.seconds > 0) p.gemms.push_back(std::move(g));
  }
  for (const Json& note : result.value("notes", Json::array()))
    if (note.is_string()) std::fprintf(stderr, "infermark: note: %s\n", note.get<std::string>().c_str());

  if (result.contains("collectives")) p.scale_up = ScaleUpFrom(result["collectives"]);

  WriteFileAtomic(f.out, FormatHardwareProfile(p));
  if (single) PrintSummary(p, failed);
  if (collectives) PrintCollectives(p.scale_up, p.hardware);
  std::printf("wrote %s\n", f.out.c_str());
  return kExitOk;
}

// The q-quantile of sorted `values` (not empty), interpolated.
double Quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

int RunDiff(const std::string& a_path, const std::string& b_path, double tolerance) {
  const HardwareProfile a = perfmodel::LoadHardwareProfile(a_path);
  const HardwareProfile b = perfmodel::LoadHardwareProfile(b_path);
  const perfmodel::ProfileComparison c = perfmodel::CompareHardwareProfiles(a, b);
  std::printf("%-70s %12s %12s %8s\n", "figure", "A", "B", "B/A-1");
  std::size_t over = 0, algo_changed = 0;
  for (const perfmodel::FigureDifference& d : c.figures) {
    const bool outside = std::abs(d.relative) > tolerance;
    over += outside ? 1 : 0;
    algo_changed += d.algo_differs ? 1 : 0;
    std::printf("%-70s %12.5g %12.5g %+7.2f%%%s%s\n", (d.figure + " [" + d.unit + "]").c_str(), d.a, d.b,
                100 * d.relative, outside ? "  *" : "", d.algo_differs ? "  (algorithm differs)" : "");
  }
  for (const std::string& name : c.only_in_a) std::printf("%-70s only in A\n", name.c_str());
  for (const std::string& name : c.only_in_b) std::printf("%-70s only in B\n", name.c_str());
  // By category: how many, median, p90 and largest |B/A-1|, and how many lie beyond the tolerance.
  std::printf("\n%-16s %8s %12s %12s %12s %8s\n", "category", "figures", "median |d|", "p90 |d|", "max |d|", "beyond");
  std::vector<double> all;
  auto row = [&](const std::string& name, std::vector<double> abs) {
    if (abs.empty()) return;
    std::sort(abs.begin(), abs.end());
    const auto beyond =
        static_cast<std::size_t>(std::count_if(abs.begin(), abs.end(), [&](double v) { return v > tolerance; }));
    std::printf("%-16s %8zu %11.2f%% %11.2f%% %11.2f%% %8zu\n", name.c_str(), abs.size(), 100 * Quantile(abs, 0.5),
                100 * Quantile(abs, 0.9), 100 * abs.back(), beyond);
  };
  for (const char* category : perfmodel::kFigureCategories) {
    std::vector<double> abs;
    for (const perfmodel::FigureDifference& d : c.figures)
      if (d.category == category) abs.push_back(std::abs(d.relative));
    all.insert(all.end(), abs.begin(), abs.end());
    row(category, abs);
  }
  row("all", all);
  if (algo_changed > 0)
    std::printf("%zu GEMMs ran another cuBLASLt algorithm in B (marked \"algorithm differs\")\n", algo_changed);
  std::printf("%zu figures compared: median |B/A-1| %.2f%%, largest %.2f%%; %zu beyond %.1f%% (marked *)\n",
              c.figures.size(), 100 * Median(all), 100 * c.MaxAbsRelative(), over, 100 * tolerance);
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

[[maybe_unused]] const bool kRegistered = RegisterCommand("gpu", &AddGpuProbeCommands);

}  // namespace
}  // namespace infermark::cli
