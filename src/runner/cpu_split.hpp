// Where the built-in engine and its client run on the host. On a small host the two share every
// core, and the engine's passes and the client's reads then delay each other: a 1 ms stall of
// either shows up in the verdict (engine lateness, client loop lag). Giving each its own CPUs
// keeps both on time. The result records the client's CPUs (`infermark.client.cpus`), the row's
// state file the engine's command line.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace infermark::runner {

/// Disjoint CPU sets for the built-in engine and for its load client.
struct CpuSplit {
  std::vector<int> engine;  ///< CPUs of the engine's pass loop and connection loops.
  std::vector<int> client;  ///< CPUs of the client's event loops.
};

/// The CPUs this process may run on (its affinity mask), ascending; empty when unknown.
std::vector<int> HostCpus();

/// `cpus` split in two: the engine takes the first half (rounded up), the client the rest.
/// Nullopt below two CPUs, where pinning could only make the two wait for each other.
std::optional<CpuSplit> SplitCpus(const std::vector<int>& cpus);

/// `cpus` as a `--cpus` flag value: "0,1,2".
std::string CpuListText(const std::vector<int>& cpus);

}  // namespace infermark::runner
