#include "tokenizer/word_cache.hpp"

#include <bit>
#include <cstring>

#include "tokenizer/string_hash.hpp"

namespace infermark::tokenizer {

WordCache::WordCache(std::size_t max_entries)
    : max_entries_(std::bit_ceil(max_entries)), mask_(max_entries_ * 2 - 1), slots_(max_entries_ * 2, 0) {}

std::span<const std::uint32_t> WordCache::Find(std::string_view key) const {
  if (key.size() >= kMaxKeyBytes) return {};
  const auto hash = static_cast<std::uint32_t>(HashBytes(key));
  std::size_t i = hash & mask_;
  while (slots_[i] != 0) {
    const Entry& e = entries_[slots_[i] - 1];
    if (e.hash == hash && e.key_length == key.size() &&
        std::memcmp(keys_.data() + e.key_offset, key.data(), key.size()) == 0) {
      return {ids_.data() + e.ids_offset, e.ids_length};
    }
    i = (i + 1) & mask_;
  }
  return {};
}

void WordCache::Insert(std::string_view key, std::span<const std::uint32_t> ids) {
  if (key.size() >= kMaxKeyBytes || ids.empty() || ids.size() > 0xFFFF) return;
  // Bounded memory: a full cache (entries, or arenas past 32-bit offsets' comfort) starts over.
  if (entries_.size() >= max_entries_ || keys_.size() > (1u << 26) || ids_.size() > (1u << 24)) Clear();
  const auto hash = static_cast<std::uint32_t>(HashBytes(key));
  std::size_t i = hash & mask_;
  while (slots_[i] != 0) {
    const Entry& e = entries_[slots_[i] - 1];
    if (e.hash == hash && e.key_length == key.size() &&
        std::memcmp(keys_.data() + e.key_offset, key.data(), key.size()) == 0) {
      return;  // already cached
    }
    i = (i + 1) & mask_;
  }
  entries_.push_back({static_cast<std::uint32_t>(keys_.size()), static_cast<std::uint32_t>(ids_.size()),
                      static_cast<std::uint16_t>(key.size()), static_cast<std::uint16_t>(ids.size()), hash});
  keys_.append(key);
  ids_.insert(ids_.end(), ids.begin(), ids.end());
  slots_[i] = static_cast<std::uint32_t>(entries_.size());
}

void WordCache::Clear() {
  std::fill(slots_.begin(), slots_.end(), 0);
  entries_.clear();
  keys_.clear();
  ids_.clear();
}

}  // namespace infermark::tokenizer
