// How the disaggregated router (`engine serve --role router`) picks a worker of a pool: in turn,
// the least loaded, or (prefill pools) the one most likely to hold the prompt's prefix in its
// cache. The router has no tokenizer: a prompt's identity is chained hashes of its leading
// 64-byte blocks of text, which name equal prefixes as the workers' token blocks do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace infermark::engine {

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

/// Chained hashes of the prompt's full 64-byte blocks (element k names its first 64·(k+1) bytes).
std::vector<std::uint64_t> PromptBlocks(std::string_view prompt);

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

}  // namespace infermark::engine
