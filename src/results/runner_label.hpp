// The hardware name results record for a runner label. A cluster label (`cluster:<name>`, one exact
// machine shape, as agentic and multi-node recipes ask for) is not a GPU: the point records the
// GPU the label names, so it filters and compares with the points of plain labels (`mi355x`).
#pragma once

#include <string>
#include <string_view>

namespace infermark::results {

/// `hw` for runner label `label`: a `cluster:` label's GPU, its name up to the first '-'
/// (`cluster:mi355x-local` → `mi355x`, the `<gpu>` InferenceX's launcher scripts are named by);
/// any other label as it is (InferenceX's RUNNER_TYPE).
std::string HardwareOfLabel(std::string_view label);

}  // namespace infermark::results
