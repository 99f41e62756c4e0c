#include "perfmodel/worker_picker.hpp"

#include "core/diagnostic.hpp"

namespace infermark::perfmodel {
namespace {

constexpr std::size_t kMaxBlocks = std::size_t{1} << 20;

}  // namespace

RoutePolicy ParseRoutePolicy(const std::string& text) {
  if (text == "round-robin") return RoutePolicy::kRoundRobin;
  if (text == "least-loaded") return RoutePolicy::kLeastLoaded;
  if (text == "kv-aware") return RoutePolicy::kKvAware;
  throw InputError(
      Diagnostic{SourceMark{}, "", "--policy", "must be round-robin, least-loaded or kv-aware, not '" + text + "'"});
}

const char* RoutePolicyName(RoutePolicy policy) {
  switch (policy) {
    case RoutePolicy::kLeastLoaded:
      return "least-loaded";
    case RoutePolicy::kKvAware:
      return "kv-aware";
    case RoutePolicy::kRoundRobin:
      break;
  }
  return "round-robin";
}

WorkerPicker::WorkerPicker(std::size_t workers, RoutePolicy policy) : policy_(policy), cached_(workers) {}

std::size_t WorkerPicker::CachedPrefix(std::size_t worker, const std::vector<std::uint64_t>& blocks) const {
  std::size_t n = 0;
  while (n < blocks.size() && cached_[worker].count(blocks[n])) ++n;
  return n;
}

std::size_t WorkerPicker::Pick(const std::vector<int>& loads, const std::vector<std::uint64_t>& blocks) {
  const std::size_t size = cached_.size();
  const std::size_t start = next_;
  next_ = (next_ + 1) % size;
  if (policy_ == RoutePolicy::kRoundRobin) return start;
  // Candidates in turn from `start`, so equals share the load.
  std::size_t best = start;
  std::size_t best_prefix = policy_ == RoutePolicy::kKvAware ? CachedPrefix(start, blocks) : 0;
  for (std::size_t k = 1; k < size; ++k) {
    const std::size_t i = (start + k) % size;
    const std::size_t prefix = policy_ == RoutePolicy::kKvAware ? CachedPrefix(i, blocks) : 0;
    if (prefix > best_prefix || (prefix == best_prefix && loads[i] < loads[best])) {
      best = i;
      best_prefix = prefix;
    }
  }
  if (policy_ == RoutePolicy::kKvAware) {
    auto& set = cached_[best];
    if (set.size() + blocks.size() > kMaxBlocks) set.clear();
    set.insert(blocks.begin(), blocks.end());
  }
  return best;
}

}  // namespace infermark::perfmodel
