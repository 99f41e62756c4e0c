#include "perfmodel/kernel_table.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/numpy_stats.hpp"

namespace infermark::perfmodel {

namespace {

std::string ClassOf(const ProbedGemm& g) {
  std::string kind;
  if (g.experts > 0) {
    kind = "expert grouped GEMMs";
  } else if (g.op == "lm_head") {
    kind = "logits (lm_head)";
  } else if (g.op == "gate_up" || g.op == "down" || g.op.rfind("shared_", 0) == 0) {
    kind = "dense and shared FFN";
  } else {
    kind = "attention projections";
  }
  std::string size;
  if (g.phase == "prefill") {
    size = "prefill";
  } else {
    size = g.m <= 64 ? "decode, m <= 64" : "decode, m 128-256";
  }
  return size + ", " + g.dtype + ", " + kind;
}

}  // namespace

KernelTable CompareWithProbe(const HardwareProfile& p, const HardwareSpec& hw, const EfficiencyFactors& e) {
  KernelTable t;
  const double bw = e.hbm_bw_fraction * hw.hbm_bytes_per_s;
  auto peak = [&](const std::string& dtype) {
    return e.flops_fraction * hw.PeakFlops(dtype == "fp8" ? ComputeDtype::kFp8 : ComputeDtype::kBf16);
  };
  t.ceilings.push_back({"HBM streaming read", "TB/s", bw / 1e12, p.hbm_read_bytes_per_s / 1e12});
  t.ceilings.push_back({"bf16 GEMM peak", "TFLOP/s", peak("bf16") / 1e12, p.gemm_peak_bf16 / 1e12});
  if (hw.flops_fp8 > 0) t.ceilings.push_back({"fp8 GEMM peak", "TFLOP/s", peak("fp8") / 1e12, p.gemm_peak_fp8 / 1e12});
  t.ceilings.push_back(
      {"fixed cost per kernel (model) / CUDA-graph node (probe)", "us", e.kernel_overhead_us, p.graph_kernel_s * 1e6});
  std::map<std::string, std::vector<std::pair<double, double>>> by_class;  // measured, modelled (s)
  for (const ProbedGemm& g : p.gemms) {
    if (g.seconds <= 0) continue;
    // The model's charge for the same operands: a roofline over the weights (grouped GEMMs of 8-
    // and 16-bit experts at grouped_bw_efficiency) plus one kernel's fixed cost.
    const double grouped = g.experts > 0 ? e.grouped_bw_efficiency : 1.0;
    const double roof = std::max(g.Bytes() / (bw * grouped), g.Flops() / peak(g.dtype));
    by_class[ClassOf(g)].emplace_back(g.seconds, roof + e.kernel_overhead_us * 1e-6);
  }
  for (const auto& [name, pairs] : by_class) {
    std::vector<double> measured, modelled, ratio;
    for (const auto& [m, x] : pairs) {
      measured.push_back(m * 1e6);
      modelled.push_back(x * 1e6);
      ratio.push_back(m / x);
    }
    t.classes.push_back(KernelClassRow{name, static_cast<int>(pairs.size()), NumpyPercentile(measured, 50),
                                       NumpyPercentile(modelled, 50), NumpyPercentile(ratio, 10),
                                       NumpyPercentile(ratio, 50), NumpyPercentile(ratio, 90)});
  }
  return t;
}

std::string FormatKernelTable(const KernelTable& t) {
  std::string out = "| figure | model | probe | probe / model |\n|---|---|---|---|\n";
  char buf[512];
  for (const auto& c : t.ceilings) {
    std::snprintf(buf, sizeof buf, "| %s | %.3g %s | %.3g %s | %.2f |\n", c.figure.c_str(), c.model, c.unit.c_str(),
                  c.measured, c.unit.c_str(), c.model > 0 ? c.measured / c.model : 0);
    out += buf;
  }
  out +=
      "\n| kernel class | GEMMs | probe median us | model median us | probe / model p10 | median | p90 |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& c : t.classes) {
    std::snprintf(buf, sizeof buf, "| %s | %d | %.1f | %.1f | %.2f | %.2f | %.2f |\n", c.kernel_class.c_str(), c.rows,
                  c.measured_us, c.model_us, c.ratio_p10, c.ratio_median, c.ratio_p90);
    out += buf;
  }
  return out;
}

}  // namespace infermark::perfmodel
