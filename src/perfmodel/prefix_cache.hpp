// The modelled engine's KV cache: a pool of fixed-size GPU blocks shared by the running sequences'
// own blocks and by a prefix cache (vLLM's automatic prefix caching, SGLang's radix cache), with
// an optional host-DRAM tier behind it (vLLM's native KV offloading, SGLang's HiCache).
//
// The cache keeps prompt prefixes in units of `unit_tokens` tokens, each named by the chained
// hash of every token up to its end, so equal keys mean equal prefixes. A unit on the GPU costs
// unit_tokens / block_size blocks of the same pool the sequences allocate from; units that no
// running sequence holds are evicted least recently used first when the pool needs room. With a
// host tier every new unit is also written to host memory over the host link (write-through,
// queued behind earlier writes and overlapped with compute); a GPU miss that hits the host is
// loaded back over the link instead of recomputed. Every operation is O(1) per unit touched: hash
// maps and intrusive LRU lists, no scan of the cache.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "perfmodel/deployment.hpp"

namespace infermark::perfmodel {

/// Time on the scheduler's clock, in nanoseconds (virtual runs start at 0; real time: the
/// engine's modelled clock).
using TimeNs = std::int64_t;

/// Index of one cached prefix unit.
using UnitId = std::int32_t;

/// A prompt's prefix identity cut into cache units: unit u covers tokens [u·U, (u+1)·U) where U
/// is the least common multiple of the hash granularity and the KV block size, and is named by
/// the hash of the last hash block it ends with.
class PrefixChain {
 public:
  /// No identity: no unit.
  PrefixChain() = default;
  /// `hashes[k]` names the prompt's first (k+1)·`hash_tokens` tokens; units never pass
  /// `prompt_tokens`.
  PrefixChain(std::shared_ptr<const std::vector<std::uint64_t>> hashes, int hash_tokens, int block_size,
              int prompt_tokens);

  /// Whole units the identity covers.
  [[nodiscard]] int units() const { return units_; }
  /// Tokens per unit.
  [[nodiscard]] int unit_tokens() const { return unit_tokens_; }
  /// The cache key of unit `u` (0 ≤ u < units()).
  [[nodiscard]] std::uint64_t Key(int u) const;

 private:
  std::shared_ptr<const std::vector<std::uint64_t>> hashes_;
  int per_unit_ = 1;  // hashes per unit
  int unit_tokens_ = 0;
  int units_ = 0;
};

/// What a prompt's prefix finds in the cache (a pure lookup; `Acquire` takes it).
struct PrefixMatch {
  std::vector<UnitId> units;       ///< Matched units, from the prompt's start.
  int device_units = 0;            ///< Leading units found on the GPU.
  int host_units = 0;              ///< Units after those found through the host tier.
  int load_units = 0;              ///< Of the host units, those to load back (not on the GPU).
  std::int64_t blocks_needed = 0;  ///< Blocks taking the match removes from Available().
};

/// Traffic over the host link and tier occupancy, for counters and metrics.
struct HostTierStats {
  double offload_bytes = 0;           ///< Bytes written GPU → host.
  double offload_seconds = 0;         ///< Link time of those writes.
  double onload_bytes = 0;            ///< Bytes loaded host → GPU.
  double onload_seconds = 0;          ///< Link time of those loads.
  double eviction_wait_seconds = 0;   ///< Passes delayed because evicted blocks were still being written.
  std::int64_t offloaded_tokens = 0;  ///< Tokens written to the host tier.
  std::int64_t onloaded_tokens = 0;   ///< Tokens loaded back from it.
  std::int64_t evicted_tokens = 0;    ///< Cached tokens evicted from the GPU.
};

/// The pool, its prefix cache and the host tier.
class PrefixCache {
 public:
  /// A pool of `config.num_blocks` free blocks of `config.block_size` tokens; the host tier holds
  /// `config.host_kv_tokens` tokens (0: none).
  explicit PrefixCache(const SchedulerConfig& config);

  /// Blocks in the pool.
  [[nodiscard]] std::int64_t NumBlocks() const { return num_blocks_; }
  /// Blocks an allocation can take now: free ones plus cached ones nobody holds.
  [[nodiscard]] std::int64_t Available() const { return free_ + evictable_; }
  /// Blocks held by at least one sequence (their own, or cached units they use).
  [[nodiscard]] std::int64_t InUse() const { return num_blocks_ - Available(); }
  /// Blocks holding cached prefix units (held or not).
  [[nodiscard]] std::int64_t CachedBlocks() const { return cached_; }
  /// Tokens the host tier holds.
  [[nodiscard]] std::int64_t HostUsedTokens() const { return host_used_; }
  /// Tokens the host tier can hold (0: no host tier).
  [[nodiscard]] std::int64_t HostCapacityTokens() const { return host_capacity_; }
  /// Link traffic so far.
  [[nodiscard]] const HostTierStats& stats() const { return stats_; }

  /// Takes `n` blocks for a sequence's own use, evicting unheld cached units (LRU) as needed;
  /// false (and nothing taken) when fewer are available. `*ready` rises to when the evicted
  /// blocks are free to reuse (a pending write to the host must end first).
  bool Allocate(std::int64_t n, TimeNs now, TimeNs* ready);
  /// Gives back `n` of a sequence's own blocks.
  void Free(std::int64_t n);

  /// The longest run of `chain`'s first `max_units` units found on the GPU, then continued
  /// through the host tier. Changes nothing.
  [[nodiscard]] PrefixMatch Lookup(const PrefixChain& chain, int max_units) const;
  /// Takes a reference to every unit of `match` (appended to `out`), giving GPU blocks to those
  /// to load back; the caller has checked `match.blocks_needed` against Available(). Returns when
  /// the loads end (`now` when there are none).
  TimeNs Acquire(const PrefixMatch& match, TimeNs now, std::vector<UnitId>& out, TimeNs* ready);
  /// Drops one reference to each unit (the last first, so a prefix's tail is evicted before its
  /// head) and clears `units`.
  void Release(std::vector<UnitId>& units);
  /// A sequence turns `blocks` of its own blocks, holding the unit named `key`, into a cached
  /// unit it keeps holding, at `now` (the end of the pass that computed it). When the unit is
  /// already on the GPU the sequence shares it and its copy's blocks go back to the pool.
  UnitId Promote(std::uint64_t key, int tokens, int blocks, TimeNs now);

  /// Whether the counts agree with the units (for tests): every block is free, a sequence's own,
  /// or a cached unit's, and the LRU lists hold exactly the unheld GPU units and the host units.
  [[nodiscard]] bool CheckInvariants() const;

 private:
  struct Unit {
    std::uint64_t key = 0;
    std::int32_t refs = 0;  // sequences holding it
    std::int32_t tokens = 0;
    std::int32_t blocks = 0;
    bool device = false;    // on the GPU
    bool host = false;      // on the host
    TimeNs host_ready = 0;  // its write to the host ends
    UnitId prev[2] = {-1, -1};
    UnitId next[2] = {-1, -1};
    bool linked[2] = {false, false};
  };
  struct List {
    UnitId head = -1, tail = -1;
  };
  void Link(int which, UnitId u);
  void Unlink(int which, UnitId u);
  UnitId NewUnit(std::uint64_t key, int tokens, int blocks);
  void Drop(UnitId u);
  void EvictDevice(TimeNs* ready);
  void WriteToHost(UnitId u, TimeNs now);

  std::int64_t num_blocks_;
  std::int64_t free_ = 0;       // blocks nobody holds
  std::int64_t own_ = 0;        // sequences' own blocks
  std::int64_t cached_ = 0;     // blocks of cached units on the GPU
  std::int64_t evictable_ = 0;  // of which in unheld units
  std::int64_t host_capacity_ = 0;
  std::int64_t host_used_ = 0;
  double link_ns_per_token_ = 0;
  double bytes_per_token_ = 0;
  TimeNs write_free_ = 0;  // GPU → host link busy until
  TimeNs read_free_ = 0;   // host → GPU link busy until
  std::vector<Unit> units_;
  std::vector<UnitId> spare_;
  List lists_[2];  // 0: unheld GPU units; 1: host units; least recently used first
  std::unordered_map<std::uint64_t, UnitId> by_key_;
  HostTierStats stats_;
};

}  // namespace infermark::perfmodel
