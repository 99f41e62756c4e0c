#include "results/runner_label.hpp"

namespace infermark::results {

std::string HardwareOfLabel(std::string_view label) {
  constexpr std::string_view kCluster = "cluster:";
  if (label.substr(0, kCluster.size()) != kCluster) return std::string(label);
  label.remove_prefix(kCluster.size());
  return std::string(label.substr(0, label.find('-')));
}

}  // namespace infermark::results
