#include "runner/cpu_split.hpp"

#include <sched.h>

namespace infermark::runner {

std::vector<int> HostCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (std::size_t cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(static_cast<int>(cpu));
  }
  return cpus;
}

std::optional<CpuSplit> SplitCpus(const std::vector<int>& cpus) {
  if (cpus.size() < 2) return std::nullopt;
  const auto engine_count = static_cast<std::ptrdiff_t>((cpus.size() + 1) / 2);
  CpuSplit split;
  split.engine.assign(cpus.begin(), cpus.begin() + engine_count);
  split.client.assign(cpus.begin() + engine_count, cpus.end());
  return split;
}

std::string CpuListText(const std::vector<int>& cpus) {
  std::string text;
  for (const int cpu : cpus) text += (text.empty() ? "" : ",") + std::to_string(cpu);
  return text;
}

}  // namespace infermark::runner
