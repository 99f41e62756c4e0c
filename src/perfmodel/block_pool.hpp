// The paged KV cache's block allocator (vLLM's BlockPool): fixed-size blocks, reference counts,
// and optional prefix caching — full prompt blocks keyed by a hash of their tokens and prefix,
// kept after their request ends and evicted least-recently-freed first.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace infermark::perfmodel {

/// Index of one KV block.
using BlockId = std::int32_t;

/// Allocator over `num_blocks` blocks.
class BlockPool {
 public:
  /// A pool of `num_blocks` free blocks; `prefix_caching` keeps hashed blocks for reuse.
  BlockPool(std::int64_t num_blocks, bool prefix_caching);

  /// Blocks in the pool.
  [[nodiscard]] std::int64_t NumBlocks() const { return num_blocks_; }
  /// Blocks an allocation can take now: free ones plus cached ones nobody holds.
  [[nodiscard]] std::int64_t Available() const { return free_count_ + evictable_count_; }
  /// Blocks held by at least one sequence.
  [[nodiscard]] std::int64_t InUse() const { return num_blocks_ - Available(); }

  /// Appends `n` blocks to `out`; false (and nothing taken) when fewer are available.
  bool Allocate(std::int64_t n, std::vector<BlockId>& out);
  /// Drops one reference to each block and clears `blocks`; cached blocks become evictable.
  void Release(std::vector<BlockId>& blocks);
  /// Appends to `out` the longest run of cached blocks matching `hashes` from the start, taking a
  /// reference to each; returns how many.
  std::int64_t MatchPrefix(const std::vector<std::uint64_t>& hashes, std::vector<BlockId>& out);
  /// Marks a full block held by a sequence as caching the prefix `hash`.
  void Register(BlockId block, std::uint64_t hash);

  /// Whether reference counts and lists agree (for tests): every block is free, evictable or
  /// referenced, exactly once.
  [[nodiscard]] bool CheckInvariants() const;

 private:
  void Unlink(BlockId b);
  void PushEvictable(BlockId b);
  BlockId TakeOne();

  std::int64_t num_blocks_;
  bool prefix_caching_;
  std::vector<std::int32_t> refs_;
  std::vector<std::uint64_t> hash_;
  std::vector<bool> hashed_;
  std::vector<BlockId> free_;  // never-cached blocks, as a stack
  std::int64_t free_count_ = 0;
  // Evictable cached blocks, an intrusive list from least to most recently freed.
  std::vector<BlockId> prev_, next_;
  BlockId head_ = -1, tail_ = -1;
  std::int64_t evictable_count_ = 0;
  std::unordered_map<std::uint64_t, BlockId> by_hash_;
};

}  // namespace infermark::perfmodel
