#include "cli/gpu_probe_render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>

#include "cli/gpu_probe_plan.hpp"
#include "cli/gpu_probe_power.hpp"
#include "core/diagnostic.hpp"
#include "perfmodel/collective_shapes.hpp"
#include "perfmodel/efficiency.hpp"
#include "perfmodel/engine_data.hpp"

namespace infermark::cli {
namespace {

namespace fs = std::filesystem;
using perfmodel::HardwareProfile;
using perfmodel::ProbedGemm;

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

// The q-quantile of sorted `values` (not empty), interpolated.
double Quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

void PrintCollectiveTable(const perfmodel::HardwareSpec& hw_spec, const std::vector<std::string>& names,
                          const std::vector<int>& gpus, const std::optional<HardwareProfile>& profile,
                          const std::string& profile_path, bool quick) {
  const perfmodel::HardwareSpec* hw = &hw_spec;
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

std::size_t PrintProfileDiff(const perfmodel::ProfileComparison& c, double tolerance) {
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
  return over;
}

}  // namespace infermark::cli
