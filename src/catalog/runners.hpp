// Typed model of InferenceX `configs/runners.yaml`: schedulable labels and their concrete runners,
// plus the per-cluster hardware facts agentic DRAM offload needs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/diagnostic.hpp"

namespace infermark::catalog {

/// Hardware facts of a cluster label (`hardware:` section).
struct RunnerHardware {
  std::int64_t available_cpu_dram_mib = 0;  ///< `available-cpu-dram-mib`.
  std::int64_t gpus_per_node = 0;           ///< `gpus-per-node`.
};

/// runners.yaml: label -> concrete runner names, in file order.
struct RunnerConfig {
  std::string file;                                                      ///< Source path.
  std::vector<std::pair<std::string, std::vector<std::string>>> labels;  ///< In file order.
  std::map<std::string, RunnerHardware> hardware;                        ///< By label.
  std::map<std::string, SourceMark> label_marks;                         ///< Where each label is written.

  /// The runner names of `label`, or nullptr when it is not a label.
  [[nodiscard]] const std::vector<std::string>* Find(std::string_view label) const;
};

}  // namespace infermark::catalog
