// An immutable-after-build map from byte strings to token ids: open addressing whose slots hold the
// hash, id and key position, so a lookup touches one slot and the key bytes, and never allocates.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::tokenizer {

/// Byte string → id. Insert while building, then only Find (thread-safe once built).
class StringIdMap {
 public:
  /// Prepares room for `count` keys of `bytes` bytes in all.
  void Reserve(std::size_t count, std::size_t bytes = 0);

  /// Inserts or overwrites `key` → `id`.
  void Insert(std::string_view key, std::uint32_t id);

  /// The id of `key`, if present.
  [[nodiscard]] std::optional<std::uint32_t> Find(std::string_view key) const;

  /// Looks up many keys at once (memory prefetched ahead, much faster on large maps); absent keys
  /// give `missing`.
  void FindMany(std::span<const std::string_view> keys, std::span<std::uint32_t> ids, std::uint32_t missing) const;

  /// Number of keys.
  [[nodiscard]] std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t length = 0;
    std::uint32_t offset = 0;
    std::uint32_t id = kEmpty;
  };
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  void Grow(std::size_t slots);

  std::string arena_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace infermark::tokenizer
