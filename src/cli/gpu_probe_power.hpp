// The power and clocks of the probe's tests: the sampler's nvidia-smi CSV read back, and the
// samples that fall in each test's timed windows.
#pragma once

#include <filesystem>
#include <utility>
#include <vector>

#include "core/json_text.hpp"
#include "perfmodel/hardware_profile.hpp"

namespace infermark::cli {

/// One row of the sampler's CSV for the probed GPU.
struct PowerSample {
  double unix = 0;     ///< When, in seconds since the epoch.
  double power_w = 0;  ///< Board power.
  double sm_mhz = 0;   ///< SM clock (0 when not reported).
  double mem_mhz = 0;  ///< Memory clock (0 when not reported).
};

/// The rows of `csv` (nvidia-smi's format, as gpu::PowerSampler writes it) for GPU `gpu`; rows
/// without a time or a power are skipped.
std::vector<PowerSample> ReadPowerCsv(const std::filesystem::path& csv, unsigned gpu);

/// The median of `values` (0 when empty; the mean of the middle two for an even count).
double Median(std::vector<double> values);

/// Mean power and median clocks of the samples inside any of `windows`; a window with none inside
/// adds the one sample nearest its middle if that lies within `interval` of it.
perfmodel::ProbedPower Windows(const std::vector<PowerSample>& samples,
                               const std::vector<std::pair<double, double>>& windows, double interval);

/// The wall-clock windows a test's timed batches ran in (its `windows`, else [start, end]).
std::vector<std::pair<double, double>> TestWindows(const Json& test);

}  // namespace infermark::cli
