#include "perfmodel/profile_adjustment.hpp"

#include <algorithm>
#include <cstdio>

#include "core/diagnostic.hpp"
#include "core/numpy_stats.hpp"

namespace infermark::perfmodel {

namespace {

std::string FigureChange(const char* what, double from, double to, double scale, const char* unit) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %.3g -> %.3g %s", what, from / scale, to / scale, unit);
  return buf;
}

// The collective terms, from NCCL measured over the deployment's GPU count: the smallest message's
// time replaces the latency prior, and the largest message's bus bandwidth sets the scale-up
// bandwidth (scaled by the distance from the reference's figure, or replacing the datasheet) from
// the collective that carries the deployment's traffic: all-to-all under expert parallelism with
// data-parallel attention, else the all-reduce.
void ApplyScaleUp(Deployment& d, const HardwareProfile& p, const HardwareProfile* ref, ProfileAdjustment& out) {
  HardwareSpec& hw = d.hardware;
  if (d.tp <= 1 || d.tp > hw.domain_gpus) return;
  const bool experts = d.dp_attention && d.ep > 1;
  auto latency = [&](const char* op, double& prior, double fitted_us, const char* what) {
    const std::vector<const ProbedCollective*> sizes = p.scale_up.Sizes(op, d.tp);
    if (sizes.empty()) return;
    std::string line = FigureChange(what, prior, sizes.front()->seconds, 1e-6, "us");
    if (fitted_us >= 0) {
      char kept[96];
      std::snprintf(kept, sizeof kept, " (the calibrated %.3g us stays in force)", fitted_us);
      line += kept;
    }
    out.changes.push_back(line);
    prior = sizes.front()->seconds;
  };
  latency("all_reduce", hw.allreduce_latency_s, d.efficiency.allreduce_latency_us, "all-reduce latency prior");
  latency("all_to_all", hw.alltoall_latency_s, d.efficiency.alltoall_latency_us, "all-to-all latency prior");
  const char* carrier = experts && !p.scale_up.Sizes("all_to_all", d.tp).empty() ? "all_to_all" : "all_reduce";
  const std::vector<const ProbedCollective*> sizes = p.scale_up.Sizes(carrier, d.tp);
  if (sizes.empty()) return;
  const std::vector<const ProbedCollective*> reference =
      ref != nullptr ? ref->scale_up.Sizes(carrier, d.tp) : std::vector<const ProbedCollective*>{};
  const double measured = sizes.back()->bus_bytes_per_s;
  if (measured <= 0) return;
  const double to = reference.empty() || reference.back()->bus_bytes_per_s <= 0
                        ? measured
                        : hw.link_bytes_per_s * measured / reference.back()->bus_bytes_per_s;
  out.changes.push_back(FigureChange((std::string("scale-up bandwidth (") + carrier + " bus bandwidth)").c_str(),
                                     hw.link_bytes_per_s, to, 1e9, "GB/s"));
  hw.link_bytes_per_s = to;
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
    out.changes.push_back(FigureChange(what, datasheet, to, scale, unit));
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
    out.changes.push_back(FigureChange("kernel_overhead_us (floor: a CUDA-graph node)", d.efficiency.kernel_overhead_us,
                                       node_us, 1, "us"));
    d.efficiency.kernel_overhead_us = node_us;
  }
  ApplyScaleUp(d, p, ref, out);
  d.efficiency_source += " + hardware profile " + p.path;
  return out;
}

}  // namespace infermark::perfmodel
