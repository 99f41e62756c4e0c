// How a disaggregated router picks a worker of a pool: in turn, the least loaded, or (prefill
// pools) the one most likely to hold the prompt's prefix in its cache. A prompt's identity is a
// list of chained block hashes (element k names its first k+1 blocks), so equal hashes name equal
// prefixes. Pure logic, shared by the real-time router and the predicted disaggregated target.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

namespace infermark::perfmodel {

/// A router's policy.
enum class RoutePolicy {
  kRoundRobin,   ///< In turn.
  kLeastLoaded,  ///< The worker with the fewest requests in flight (in turn among equals).
  kKvAware,      ///< The worker whose cache holds the longest prefix of the prompt (ties: least loaded).
};

/// Parses `round-robin`, `least-loaded` or `kv-aware`; throws InputError naming --policy otherwise.
RoutePolicy ParseRoutePolicy(const std::string& text);

/// The policy's name as the flag spells it.
const char* RoutePolicyName(RoutePolicy policy);

/// Picks workers of one pool. Not thread-safe (the router serialises calls).
class WorkerPicker {
 public:
  /// A picker over `workers` workers (at least one).
  WorkerPicker(std::size_t workers, RoutePolicy policy);
  /// The worker for a request given each worker's requests in flight (`loads`, one per worker)
  /// and the prompt's blocks (kv-aware only); kv-aware remembers the blocks as cached there.
  std::size_t Pick(const std::vector<int>& loads, const std::vector<std::uint64_t>& blocks);
  /// Leading blocks of `blocks` the router believes worker `worker` holds.
  [[nodiscard]] std::size_t CachedPrefix(std::size_t worker, const std::vector<std::uint64_t>& blocks) const;

 private:
  RoutePolicy policy_;
  std::size_t next_ = 0;
  // Per worker, the blocks sent there; cleared when it passes kMaxBlocks (the worker's cache
  // evicts too, and a stale belief costs only a worse pick).
  std::vector<std::unordered_set<std::uint64_t>> cached_;
};

}  // namespace infermark::perfmodel
