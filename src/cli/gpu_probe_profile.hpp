// The probe library's answer read into a hardware profile: the device, the single-GPU tests, the
// timed GEMMs and the collectives, each test with the power and clocks sampled while it ran. Tests
// and GEMMs that failed are named on stderr.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cli/gpu_probe_plan.hpp"
#include "cli/gpu_probe_power.hpp"
#include "core/json_text.hpp"
#include "perfmodel/hardware_profile.hpp"

namespace infermark::cli {

/// The profile the probe's `result` gives: device fields, `hardware` (guessed from the GPU name
/// when empty), the tests, the GEMMs of `plan` and the scale-up section; `driver` is NVML's driver
/// version (empty: the CUDA driver API's). Power comes from `samples` taken every `interval`
/// seconds. Counts the GEMM shapes that could not run in `failed`. Leaves the provenance fields
/// (time, host, version, command) to the caller.
perfmodel::HardwareProfile ProfileFromProbe(const Json& result, const GemmPlan& plan,
                                            const std::vector<PowerSample>& samples, double interval,
                                            const std::string& driver, const std::string& hardware,
                                            std::size_t& failed);

}  // namespace infermark::cli
