// BPE merge rules: (left id, right id) → (rank, merged id), in one open-addressing table.
#pragma once

#include <cstdint>
#include <vector>

namespace infermark::tokenizer {

/// One merge rule's outcome.
struct Merge {
  std::uint32_t rank;    ///< Position in the merges list: lower merges first.
  std::uint32_t new_id;  ///< Id of the merged token.
};

/// Pair → merge. Insert while building, then only Find (thread-safe once built).
class MergeMap {
 public:
  /// Prepares room for `count` rules.
  void Reserve(std::size_t count);

  /// Inserts or overwrites the rule for (`left`, `right`); a later rule for the same pair wins, as
  /// in `tokenizers`.
  void Insert(std::uint32_t left, std::uint32_t right, Merge merge);

  /// The rule for (`left`, `right`), or nullptr.
  [[nodiscard]] const Merge* Find(std::uint32_t left, std::uint32_t right) const {
    const std::uint64_t key = Key(left, right);
    std::size_t i = Slot(key);
    while (true) {
      const Entry& e = slots_[i];
      if (e.key == key) return &e.merge;
      if (e.key == kEmpty) return nullptr;
      i = (i + 1) & mask_;
    }
  }

  /// Number of rules.
  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Entry {
    std::uint64_t key = kEmpty;
    Merge merge{};
  };
  static std::uint64_t Key(std::uint32_t left, std::uint32_t right) {
    return (static_cast<std::uint64_t>(left) << 32) | right;
  }
  [[nodiscard]] std::size_t Slot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_) & mask_;
  }
  void Grow(std::size_t slots);

  std::vector<Entry> slots_ = std::vector<Entry>(16);
  std::size_t mask_ = 15;
  int shift_ = 60;
  std::size_t size_ = 0;
};

}  // namespace infermark::tokenizer
