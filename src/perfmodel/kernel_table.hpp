// The step-time model beside a probe, kernel class by kernel class: for every GEMM a hardware
// profile timed, the time the model charges for the same operands on the same GPU (its roofline
// with a framework's fitted fractions, plus the fixed cost of one kernel), and the measurement;
// plus the ceilings (streaming bandwidth, GEMM peaks) and the per-kernel fixed cost. What
// docs/engine-model.md's "The model beside the probe" table is made of (`engine kernel-table`).
#pragma once

#include <string>
#include <vector>

#include "perfmodel/efficiency.hpp"
#include "perfmodel/hardware.hpp"
#include "perfmodel/hardware_profile.hpp"

namespace infermark::perfmodel {

/// One kernel class: the model's time against the probe's over its rows.
struct KernelClassRow {
  std::string kernel_class;  ///< e.g. `decode bf16 attention projections (m <= 64)`.
  int rows = 0;              ///< Probed GEMMs in the class.
  double measured_us = 0;    ///< Median measured time of one call.
  double model_us = 0;       ///< Median modelled time of the same calls.
  double ratio_p10 = 0;      ///< 10th percentile of measured / modelled.
  double ratio_median = 0;   ///< Median of measured / modelled (above 1: the model is fast).
  double ratio_p90 = 0;      ///< 90th percentile of measured / modelled.
};

/// The ceilings and the per-kernel cost, model against probe.
struct CeilingRow {
  std::string figure;   ///< `HBM streaming read`, `bf16 GEMM peak`, ….
  std::string unit;     ///< `TB/s`, `TFLOP/s`, `us`.
  double model = 0;     ///< What the model uses (datasheet × fitted fraction, or the fitted time).
  double measured = 0;  ///< What the probe measured.
};

/// The comparison of `profile` with the model of `hardware` under `factors`.
struct KernelTable {
  std::vector<CeilingRow> ceilings;     ///< Rates and fixed costs.
  std::vector<KernelClassRow> classes;  ///< GEMMs by class.
};

/// Compares every probed GEMM with the model's time for it.
KernelTable CompareWithProbe(const HardwareProfile& profile, const HardwareSpec& hardware,
                             const EfficiencyFactors& factors);

/// The table as markdown.
std::string FormatKernelTable(const KernelTable& table);

}  // namespace infermark::perfmodel
