// What a measured hardware profile (`infermark gpu probe`) changes in a deployment. Calibrated
// factors are shares of the datasheet that a framework reached on the GPUs the calibration points
// ran on; a probe measures the GPU in hand. So the measured ceilings (HBM read bandwidth, bf16
// and fp8 GEMM peaks) scale the effective rates by how far this GPU is from the reference probe
// of its kind (data/engine/profiles/<gpu>.yaml, the GPU the calibration data is pinned to), or
// replace the datasheet outright where no reference exists; and a kernel's fixed cost is floored at
// the measured cost of a CUDA-graph node. docs/engine-model.md, "Hardware profiles".
#pragma once

#include <string>
#include <vector>

#include "perfmodel/deployment.hpp"
#include "perfmodel/hardware_profile.hpp"

namespace infermark::perfmodel {

/// The changes one profile made, for the record (`predict -v`, the engine's banner).
struct ProfileAdjustment {
  std::string profile;               ///< The profile's path.
  std::string reference;             ///< The reference profile's path ("" = none: datasheet replaced).
  std::vector<std::string> changes;  ///< One line per figure changed ("HBM 4.80 -> 4.31 TB/s").
};

/// Applies `profile` (of the GPU deployed) to `deployment`'s hardware figures and efficiency
/// factors; `reference` is the reference probe of the same GPU kind, or null. Throws InputError
/// when the profile names another GPU kind than the deployment's.
ProfileAdjustment ApplyHardwareProfile(Deployment& deployment, const HardwareProfile& profile,
                                       const HardwareProfile* reference);

}  // namespace infermark::perfmodel
