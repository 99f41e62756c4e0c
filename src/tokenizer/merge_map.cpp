#include "tokenizer/merge_map.hpp"

#include <bit>

namespace infermark::tokenizer {

void MergeMap::Reserve(std::size_t count) {
  const std::size_t wanted = std::bit_ceil(count * 10 / 7 + 16);  // load factor at most 0.7
  if (wanted > slots_.size()) Grow(wanted);
}

void MergeMap::Grow(std::size_t slots) {
  std::vector<Entry> old = std::move(slots_);
  slots_.assign(slots, Entry{});
  mask_ = slots - 1;
  shift_ = 64 - std::countr_zero(slots);
  for (const Entry& e : old) {
    if (e.key == kEmpty) continue;
    std::size_t i = Slot(e.key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i] = e;
  }
}

void MergeMap::Insert(std::uint32_t left, std::uint32_t right, Merge merge) {
  if ((size_ + 1) * 10 > slots_.size() * 7) Grow(slots_.size() * 2);
  const std::uint64_t key = Key(left, right);
  std::size_t i = Slot(key);
  while (slots_[i].key != kEmpty) {
    if (slots_[i].key == key) {
      slots_[i].merge = merge;
      return;
    }
    i = (i + 1) & mask_;
  }
  slots_[i] = Entry{key, merge};
  ++size_;
}

}  // namespace infermark::tokenizer
