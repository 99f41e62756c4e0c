// The step-time model's efficiency factors: what fraction of the datasheet a framework reaches
// on a GPU, and its fixed overheads. Priors live in frameworks.yaml; `infermark engine
// calibrate` fits them to measured results and writes data/engine/calibrated/*.yaml.
#pragma once

#include <string>
#include <vector>

#include "core/field_reader.hpp"

namespace infermark::perfmodel {

/// Factors applied to the roofline; every field has a physical meaning (docs/engine-model.md).
struct EfficiencyFactors {
  double hbm_bw_fraction = 0.85;  ///< Achieved fraction of peak HBM bandwidth.
  double flops_fraction = 0.5;    ///< Achieved fraction of peak tensor FLOP/s in GEMMs.
  double attention_bw_fraction =
      0.55;  ///< Achieved fraction of peak HBM bandwidth for KV-cache reads (paged attention).
  double attention_flops_fraction = 0.35;  ///< Achieved fraction of bf16 peak in attention.
  double link_bw_fraction = 0.6;           ///< Achieved fraction of scale-up bandwidth.
  double step_overhead_us = 200;           ///< Fixed time per forward pass (scheduling, sampling, launch).
  double kernel_overhead_us = 4;           ///< Fixed time per kernel a forward pass launches (gap, ramp, tail).
  double seq_overhead_us = 8;              ///< Time per sequence in the batch per forward pass (CPU work).
  double allreduce_latency_us = -1;        ///< Start latency of one all-reduce (< 0: the hardware's prior).
  double alltoall_latency_us = -1;         ///< Start latency of one all-to-all (< 0: the hardware's prior).
  double low_bit_bw_efficiency = 0.65;  ///< 4-bit weights (nvfp4, mxfp4, int4) stream at this share of hbm_bw_fraction.
  double grouped_bw_efficiency = 0.66;  ///< MoE grouped GEMMs stream weights at this share of hbm_bw_fraction.
  double expert_overhead_us = 0;        ///< Fixed time per expert a MoE layer's grouped GEMMs touch on one GPU.
  double weight_only_flops_efficiency =
      0.6;  ///< GEMMs dequantizing 4-bit weights to bf16 reach this share of flops_fraction.
  double weight_only_moe_overhead_ratio =
      1.8;  ///< A MoE block's fixed time, relative to its kernel count, when 4-bit experts run weight-only.
};

/// Reads the factors of one `efficiency:` mapping (missing fields keep `defaults`).
EfficiencyFactors ReadEfficiency(FieldReader& reader, const EfficiencyFactors& defaults);

/// A fitted profile: factors for one framework on one GPU (or on one vendor's GPUs).
struct CalibratedProfile {
  std::string framework;         ///< `vllm`, `trt`…
  std::string scope;             ///< A hardware name (`h200`) or a vendor (`amd`).
  EfficiencyFactors efficiency;  ///< The fitted factors.
  /// Kernel classes (kernel_classes.hpp) the points it was fitted on exercised.
  std::vector<std::string> kernel_classes;
  std::string path;  ///< File it was read from.
};

/// Reads one calibrated profile file; throws InputError with every problem.
CalibratedProfile LoadCalibratedProfile(const std::string& path);

/// The YAML text of a calibrated profile, with `comment` lines (fit statistics) on top.
std::string FormatCalibratedProfile(const CalibratedProfile& profile, const std::vector<std::string>& comment);

}  // namespace infermark::perfmodel
