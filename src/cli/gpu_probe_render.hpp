// What the `gpu` probe commands print: a probe's summary and its collectives beside the
// performance model's cost, the collective table of the built-in models, and the difference of two
// hardware profiles.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/hardware.hpp"
#include "perfmodel/hardware_profile.hpp"
#include "perfmodel/hardware_profile_diff.hpp"

namespace infermark::cli {

/// The device, its single-GPU figures and a sample of tp=8 bf16 GEMMs; `failed` GEMM shapes that
/// could not run are counted in the last line.
void PrintSummary(const perfmodel::HardwareProfile& p, std::size_t failed);

/// Each measured collective beside the step-time model's cost of it (the catalog's figures for
/// `hardware`, the default link fraction and latency priors).
void PrintCollectives(const perfmodel::ScaleUpProfile& s, const std::string& hardware);

/// `gpu collective-table`: each model named by `names` (all when empty) with its collectives per
/// step, the model's cost on `hw` at each of `gpus` and, when `profile` measured that size, the
/// probe's time beside it (`profile_path` names it in the header).
void PrintCollectiveTable(const perfmodel::HardwareSpec& hw, const std::vector<std::string>& names,
                          const std::vector<int>& gpus, const std::optional<perfmodel::HardwareProfile>& profile,
                          const std::string& profile_path, bool quick);

/// `gpu profile-diff`: every figure two profiles share with its relative difference, then per
/// category the median, p90 and largest |B/A-1|. Returns how many figures lie beyond `tolerance`.
std::size_t PrintProfileDiff(const perfmodel::ProfileComparison& c, double tolerance);

}  // namespace infermark::cli
