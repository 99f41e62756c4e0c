#include "perfmodel/profile_adjustment.hpp"

#include <algorithm>
#include <cstdio>

#include "core/diagnostic.hpp"
#include "core/numpy_stats.hpp"

namespace infermark::perfmodel {

namespace {

std::string Figure(const char* what, double from, double to, double scale, const char* unit) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %.3g -> %.3g %s", what, from / scale, to / scale, unit);
  return buf;
}

}  // namespace

ProfileAdjustment ApplyHardwareProfile(Deployment& d, const HardwareProfile& p, const HardwareProfile* ref) {
  if (!p.hardware.empty() && p.hardware != d.hardware.name)
    throw InputError(Diagnostic{SourceMark{p.path, 1, 1}, "", "hardware",
                                "the profile measured a " + p.hardware + ", the deployment runs on " + d.hardware.name +
                                    " (pass --hardware " + p.hardware + ")"});
  ProfileAdjustment out;
  out.profile = p.path;
  out.reference = ref != nullptr ? ref->path : "";
  HardwareSpec& hw = d.hardware;
  // A measured ceiling moves the effective rate by this GPU's distance from the reference probe
  // (the factors were fitted on the reference's kind); without a reference it replaces the datasheet.
  auto rescale = [&](double& datasheet, double measured, double reference, const char* what, double scale,
                     const char* unit) {
    if (measured <= 0) return;
    const double to = reference > 0 ? datasheet * measured / reference : measured;
    out.changes.push_back(Figure(what, datasheet, to, scale, unit));
    datasheet = to;
  };
  rescale(hw.hbm_bytes_per_s, p.hbm_read_bytes_per_s, ref != nullptr ? ref->hbm_read_bytes_per_s : 0, "HBM", 1e12,
          "TB/s");
  rescale(hw.flops_bf16, p.gemm_peak_bf16, ref != nullptr ? ref->gemm_peak_bf16 : 0, "bf16 GEMM peak", 1e12, "TFLOP/s");
  if (hw.flops_fp8 > 0)
    rescale(hw.flops_fp8, p.gemm_peak_fp8, ref != nullptr ? ref->gemm_peak_fp8 : 0, "fp8 GEMM peak", 1e12, "TFLOP/s");
  // The fixed cost of a kernel is at least a CUDA-graph node's launch.
  const double node_us = p.graph_kernel_s * 1e6;
  if (node_us > 0 && d.efficiency.kernel_overhead_us < node_us) {
    out.changes.push_back(
        Figure("kernel_overhead_us (floor: a CUDA-graph node)", d.efficiency.kernel_overhead_us, node_us, 1, "us"));
    d.efficiency.kernel_overhead_us = node_us;
  }
  d.efficiency_source += " + hardware profile " + p.path;
  return out;
}

}  // namespace infermark::perfmodel
