#include "cli/gpu_probe_profile.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "core/diagnostic.hpp"
#include "perfmodel/collective_shapes.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/hardware.hpp"

namespace infermark::cli {
namespace {

namespace fs = std::filesystem;
using perfmodel::HardwareProfile;
using perfmodel::ProbedGemm;

double NumberField(const Json& j, const char* key) {
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

// The profile's scale_up section from the probe's `collectives` result.
perfmodel::ScaleUpProfile ScaleUpFrom(const Json& c) {
  perfmodel::ScaleUpProfile out;
  out.nccl_version = Text(c, "nccl_version");
  out.nvls = c.value("nvls", false);
  std::set<std::string> reported;
  for (const Json& r : c.value("runs", Json::array())) {
    if (r.contains("error")) {
      const std::string line = std::to_string(static_cast<int>(NumberField(r, "gpus"))) + " GPUs: " + Text(r, "error");
      if (reported.insert(line).second) std::fprintf(stderr, "infermark: collectives over %s\n", line.c_str());
      continue;
    }
    perfmodel::ProbedCollective p;
    p.op = Text(r, "op");
    p.gpus = static_cast<int>(NumberField(r, "gpus"));
    p.bytes = static_cast<std::int64_t>(NumberField(r, "bytes"));
    p.seconds = NumberField(r, "seconds");
    p.spread = NumberField(r, "spread");
    p.graph = r.value("graph", false);
    if (p.seconds <= 0) continue;
    p.bus_bytes_per_s = static_cast<double>(p.bytes) / p.seconds * perfmodel::BusFactor(p.op, p.gpus);
    out.collectives.push_back(p);
  }
  for (const Json& n : c.value("skipped", Json::array()))
    std::fprintf(stderr, "infermark: collectives over %d GPUs not run: %d GPUs here\n", n.get<int>(),
                 static_cast<int>(NumberField(c, "devices")));
  return out;
}

}  // namespace

HardwareProfile ProfileFromProbe(const Json& result, const GemmPlan& plan, const std::vector<PowerSample>& samples,
                                 double interval, const std::string& driver, const std::string& hardware,
                                 std::size_t& failed) {
  failed = 0;
  HardwareProfile p;
  const Json& device = result["device"];
  p.gpu_name = Text(device, "name");
  p.gpu_uuid = Text(device, "uuid");
  p.driver = driver.empty() ? "CUDA driver API " + Text(device, "cuda_driver_api") : driver;
  p.cuda_runtime = Text(device, "cuda_runtime");
  p.compute_capability = Text(device, "compute_capability");
  p.sm_count = static_cast<int>(NumberField(device, "sm_count"));
  p.memory_bytes = NumberField(device, "memory_bytes");
  p.sm_clock_max_mhz = NumberField(device, "sm_clock_max_mhz");
  p.mem_clock_max_mhz = NumberField(device, "mem_clock_max_mhz");
  p.hardware = hardware.empty() ? GuessHardware(p.gpu_name) : hardware;

  const Json& tests = result["tests"];
  auto test = [&](const char* name, const char* key, double& field) {
    const auto it = tests.find(name);
    if (it == tests.end()) return;
    if (it->contains("error")) {
      std::fprintf(stderr, "infermark: %s: %s\n", name, Text(*it, "error").c_str());
      return;
    }
    field = NumberField(*it, key);
    if (!samples.empty()) {
      perfmodel::ProbedPower power = Windows(samples, TestWindows(*it), interval);
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
  for (const Json& g : timed) by_index[static_cast<std::size_t>(NumberField(g, "index"))] = &g;
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
    g.n = static_cast<std::int64_t>(NumberField(r, "n"));
    g.k = static_cast<std::int64_t>(NumberField(r, "k"));
    g.seconds = NumberField(r, "seconds");
    g.spread = NumberField(r, "spread");
    g.algo = Text(r, "algo");
    if (!samples.empty()) {
      const perfmodel::ProbedPower power = Windows(samples, TestWindows(r), interval);
      g.avg_power_w = power.avg_power_w;
      g.sm_clock_mhz = power.sm_clock_mhz;
    }
    if (g.seconds > 0) p.gemms.push_back(std::move(g));
  }
  for (const Json& note : result.value("notes", Json::array()))
    if (note.is_string()) std::fprintf(stderr, "infermark: note: %s\n", note.get<std::string>().c_str());

  if (result.contains("collectives")) p.scale_up = ScaleUpFrom(result["collectives"]);
  return p;
}

}  // namespace infermark::cli
