#include "perfmodel/block_pool.hpp"

namespace infermark::perfmodel {

BlockPool::BlockPool(std::int64_t num_blocks, bool prefix_caching)
    : num_blocks_(num_blocks), prefix_caching_(prefix_caching) {
  const auto n = static_cast<std::size_t>(num_blocks);
  refs_.assign(n, 0);
  hash_.assign(n, 0);
  hashed_.assign(n, false);
  prev_.assign(n, -1);
  next_.assign(n, -1);
  free_.reserve(n);
  // Stack order hands out low ids first, which keeps tests readable.
  for (std::int64_t i = num_blocks - 1; i >= 0; --i) free_.push_back(static_cast<BlockId>(i));
  free_count_ = num_blocks;
}

void BlockPool::Unlink(BlockId b) {
  const auto i = static_cast<std::size_t>(b);
  if (prev_[i] >= 0)
    next_[static_cast<std::size_t>(prev_[i])] = next_[i];
  else
    head_ = next_[i];
  if (next_[i] >= 0)
    prev_[static_cast<std::size_t>(next_[i])] = prev_[i];
  else
    tail_ = prev_[i];
  prev_[i] = next_[i] = -1;
  --evictable_count_;
}

void BlockPool::PushEvictable(BlockId b) {
  const auto i = static_cast<std::size_t>(b);
  prev_[i] = tail_;
  next_[i] = -1;
  if (tail_ >= 0)
    next_[static_cast<std::size_t>(tail_)] = b;
  else
    head_ = b;
  tail_ = b;
  ++evictable_count_;
}

BlockId BlockPool::TakeOne() {
  if (!free_.empty()) {
    const BlockId b = free_.back();
    free_.pop_back();
    --free_count_;
    return b;
  }
  const BlockId b = head_;  // evict the least recently freed cached block
  Unlink(b);
  const auto i = static_cast<std::size_t>(b);
  by_hash_.erase(hash_[i]);
  hashed_[i] = false;
  return b;
}

bool BlockPool::Allocate(std::int64_t n, std::vector<BlockId>& out) {
  if (n <= 0) return true;
  if (n > Available()) return false;
  for (std::int64_t k = 0; k < n; ++k) {
    const BlockId b = TakeOne();
    refs_[static_cast<std::size_t>(b)] = 1;
    out.push_back(b);
  }
  return true;
}

void BlockPool::Release(std::vector<BlockId>& blocks) {
  // Freed in reverse so that a request's tail blocks are evicted before its head blocks, which
  // later requests sharing the prefix are likelier to need.
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    const auto i = static_cast<std::size_t>(*it);
    if (--refs_[i] > 0) continue;
    if (hashed_[i]) {
      PushEvictable(*it);
    } else {
      free_.push_back(*it);
      ++free_count_;
    }
  }
  blocks.clear();
}

std::int64_t BlockPool::MatchPrefix(const std::vector<std::uint64_t>& hashes, std::vector<BlockId>& out) {
  if (!prefix_caching_) return 0;
  std::int64_t n = 0;
  for (const std::uint64_t h : hashes) {
    const auto it = by_hash_.find(h);
    if (it == by_hash_.end()) break;
    const BlockId b = it->second;
    const auto i = static_cast<std::size_t>(b);
    if (refs_[i] == 0) Unlink(b);
    ++refs_[i];
    out.push_back(b);
    ++n;
  }
  return n;
}

void BlockPool::Register(BlockId block, std::uint64_t hash) {
  if (!prefix_caching_) return;
  const auto i = static_cast<std::size_t>(block);
  if (hashed_[i] || by_hash_.count(hash) != 0) return;  // the first copy of a prefix wins
  hashed_[i] = true;
  hash_[i] = hash;
  by_hash_[hash] = block;
}

bool BlockPool::CheckInvariants() const {
  std::vector<int> seen(static_cast<std::size_t>(num_blocks_), 0);
  for (const BlockId b : free_) {
    const auto i = static_cast<std::size_t>(b);
    if (refs_[i] != 0 || hashed_[i]) return false;
    ++seen[i];
  }
  std::int64_t listed = 0;
  for (BlockId b = head_; b >= 0; b = next_[static_cast<std::size_t>(b)]) {
    const auto i = static_cast<std::size_t>(b);
    if (refs_[i] != 0 || !hashed_[i]) return false;
    ++seen[i];
    ++listed;
  }
  if (listed != evictable_count_ || static_cast<std::int64_t>(free_.size()) != free_count_) return false;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (refs_[i] < 0) return false;
    if (refs_[i] > 0 && seen[i] != 0) return false;
    if (refs_[i] == 0 && seen[i] != 1) return false;
  }
  return true;
}

}  // namespace infermark::perfmodel
