#include "tokenizer/string_id_map.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include "tokenizer/string_hash.hpp"

namespace infermark::tokenizer {

void StringIdMap::Reserve(std::size_t count, std::size_t bytes) {
  arena_.reserve(bytes);
  const std::size_t wanted = std::bit_ceil(count * 10 / 7 + 16);  // load factor at most 0.7
  if (wanted > slots_.size()) Grow(wanted);
}

void StringIdMap::Grow(std::size_t slots) {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(slots, Slot{});
  mask_ = slots - 1;
  for (const Slot& s : old) {
    if (s.id == kEmpty) continue;
    std::size_t i = s.hash & mask_;
    while (slots_[i].id != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

void StringIdMap::Insert(std::string_view key, std::uint32_t id) {
  if (id == kEmpty) throw std::invalid_argument("token id too large");
  if ((size_ + 1) * 10 > slots_.size() * 7) Grow(std::bit_ceil((size_ + 1) * 2 + 16));
  const auto hash = static_cast<std::uint32_t>(HashBytes(key));
  std::size_t i = hash & mask_;
  while (slots_[i].id != kEmpty) {
    Slot& s = slots_[i];
    if (s.hash == hash && s.length == key.size() &&
        std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0) {
      s.id = id;
      return;
    }
    i = (i + 1) & mask_;
  }
  if (arena_.size() + key.size() > 0xFFFFFFFFu) throw std::invalid_argument("vocabulary too large");
  slots_[i] = Slot{hash, static_cast<std::uint32_t>(key.size()), static_cast<std::uint32_t>(arena_.size()), id};
  arena_.append(key);
  ++size_;
}

void StringIdMap::FindMany(std::span<const std::string_view> keys, std::span<std::uint32_t> ids,
                           std::uint32_t missing) const {
  constexpr std::size_t kAhead = 16;
  std::uint32_t hashes[kAhead];
  for (std::size_t base = 0; base < keys.size(); base += kAhead) {
    const std::size_t n = std::min(kAhead, keys.size() - base);
    for (std::size_t i = 0; i < n; ++i) {
      hashes[i] = static_cast<std::uint32_t>(HashBytes(keys[base + i]));
      if (!slots_.empty()) __builtin_prefetch(&slots_[hashes[i] & mask_]);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::string_view key = keys[base + i];
      ids[base + i] = missing;
      if (slots_.empty()) continue;
      std::size_t at = hashes[i] & mask_;
      while (slots_[at].id != kEmpty) {
        const Slot& s = slots_[at];
        if (s.hash == hashes[i] && s.length == key.size() &&
            std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0) {
          ids[base + i] = s.id;
          break;
        }
        at = (at + 1) & mask_;
      }
    }
  }
}

std::optional<std::uint32_t> StringIdMap::Find(std::string_view key) const {
  if (slots_.empty()) return std::nullopt;
  const auto hash = static_cast<std::uint32_t>(HashBytes(key));
  std::size_t i = hash & mask_;
  while (true) {
    const Slot& s = slots_[i];
    if (s.id == kEmpty) return std::nullopt;
    if (s.hash == hash && s.length == key.size() &&
        std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0) {
      return s.id;
    }
    i = (i + 1) & mask_;
  }
}

}  // namespace infermark::tokenizer
