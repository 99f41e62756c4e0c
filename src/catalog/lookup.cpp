#include "catalog/master_config.hpp"
#include "catalog/runners.hpp"

namespace infermark::catalog {

const MasterEntry* MasterCatalog::Find(std::string_view key) const {
  for (const auto& entry : entries) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

const std::vector<std::string>* RunnerConfig::Find(std::string_view label) const {
  for (const auto& [name, runners] : labels) {
    if (name == label) return &runners;
  }
  return nullptr;
}

}  // namespace infermark::catalog
