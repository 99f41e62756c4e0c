#include "perfmodel/hardware_profile_diff.hpp"

#include <cmath>
#include <map>
#include <utility>

namespace infermark::perfmodel {

namespace {

// A figure's name, unit and value.
struct Figure {
  std::string name;
  std::string unit;
  double value = 0;
  std::string category = kFigureCategories[0];
  std::string algo;
};

std::string GemmName(const ProbedGemm& g) {
  std::string name = "gemm " + (g.model.empty() ? std::string("-") : g.model) + " " + g.op + " " + g.phase + " " +
                     g.dtype + " tp" + std::to_string(g.tp) + " m" + std::to_string(g.m) + " n" + std::to_string(g.n) +
                     " k" + std::to_string(g.k);
  if (g.experts > 0) name += " x" + std::to_string(g.experts);
  return name;
}

std::vector<Figure> Figures(const HardwareProfile& p) {
  std::vector<Figure> out;
  auto add = [&](const char* name, const char* unit, double value) {
    out.push_back({name, unit, value, kFigureCategories[0], ""});
  };
  add("hbm_read", "GB/s", p.hbm_read_bytes_per_s / 1e9);
  add("hbm_write", "GB/s", p.hbm_write_bytes_per_s / 1e9);
  add("hbm_copy", "GB/s", p.hbm_copy_bytes_per_s / 1e9);
  add("gemm_peak_bf16", "TFLOP/s", p.gemm_peak_bf16 / 1e12);
  add("gemm_peak_fp8", "TFLOP/s", p.gemm_peak_fp8 / 1e12);
  add("kernel_launch", "us", p.kernel_launch_s * 1e6);
  add("graph_kernel", "us", p.graph_kernel_s * 1e6);
  add("graph_launch", "us", p.graph_launch_s * 1e6);
  for (const ProbedGemm& g : p.gemms) {
    const char* category = g.experts > 0          ? kFigureCategories[3]
                           : g.phase == "prefill" ? kFigureCategories[2]
                                                  : kFigureCategories[1];
    out.push_back({GemmName(g), "us", g.seconds * 1e6, category, g.algo});
  }
  for (const ProbedCollective& c : p.scale_up.collectives)
    out.push_back({"collective " + c.op + " gpus" + std::to_string(c.gpus) + " " + std::to_string(c.bytes) + "B", "us",
                   c.seconds * 1e6, kFigureCategories[4], ""});
  std::vector<Figure> measured;
  for (Figure& f : out)
    if (f.value > 0) measured.push_back(std::move(f));
  return measured;
}

}  // namespace

double ProfileComparison::MaxAbsRelative() const {
  double worst = 0;
  for (const FigureDifference& f : figures) worst = std::max(worst, std::abs(f.relative));
  return worst;
}

ProfileComparison CompareHardwareProfiles(const HardwareProfile& a, const HardwareProfile& b) {
  ProfileComparison out;
  std::map<std::string, Figure> in_b;
  for (Figure& f : Figures(b)) in_b.emplace(f.name, std::move(f));
  std::map<std::string, bool> seen_in_a;
  for (const Figure& f : Figures(a)) {
    seen_in_a[f.name] = true;
    const auto it = in_b.find(f.name);
    if (it == in_b.end()) {
      out.only_in_a.push_back(f.name);
      continue;
    }
    const Figure& other = it->second;
    out.figures.push_back({f.name, f.unit, f.value, other.value, (other.value - f.value) / f.value, f.category,
                           !f.algo.empty() && !other.algo.empty() && f.algo != other.algo});
  }
  for (const Figure& f : Figures(b))
    if (seen_in_a.count(f.name) == 0) out.only_in_b.push_back(f.name);
  return out;
}

}  // namespace infermark::perfmodel
