// Two hardware profiles side by side: the relative difference of every figure both measured, so
// that two probe runs on one GPU show how far their figures agree.
#pragma once

#include <string>
#include <vector>

#include "perfmodel/hardware_profile.hpp"

namespace infermark::perfmodel {

/// One figure of both profiles.
struct FigureDifference {
  std::string figure;    ///< `hbm_read_gb_s`, `gemm_peak_bf16_tflops`, `gemm llama-3.3-70b qkv decode bf16 tp8 m1 …`.
  std::string unit;      ///< Unit of `a` and `b` (`GB/s`, `TFLOP/s`, `us`).
  double a = 0;          ///< Value in the first profile.
  double b = 0;          ///< Value in the second profile.
  double relative = 0;   ///< (b − a) / a.
  std::string category;  ///< One of kFigureCategories.
  bool algo_differs = false;  ///< A GEMM whose cuBLASLt algorithm differs between the two (both recorded one).
};

/// The categories figures are summarized by, in order: `headline` (HBM, peaks, launch overheads),
/// `decode GEMMs`, `prefill GEMMs` (plain GEMMs by phase) and `grouped GEMMs`.
inline constexpr const char* kFigureCategories[] = {"headline", "decode GEMMs", "prefill GEMMs", "grouped GEMMs",
                                                    "collectives"};

/// What two profiles share and what only one of them has.
struct ProfileComparison {
  std::vector<FigureDifference> figures;  ///< Figures both profiles measured (non-zero), in A's order.
  std::vector<std::string> only_in_a;     ///< Figures only the first profile measured.
  std::vector<std::string> only_in_b;     ///< Figures only the second profile measured.

  /// The largest |relative| over `figures` (0 when there are none).
  [[nodiscard]] double MaxAbsRelative() const;
};

/// Compares every scalar figure and every GEMM (matched on model, op, phase, dtype, tp, m, n, k and
/// experts; compared on its median time).
ProfileComparison CompareHardwareProfiles(const HardwareProfile& a, const HardwareProfile& b);

}  // namespace infermark::perfmodel
