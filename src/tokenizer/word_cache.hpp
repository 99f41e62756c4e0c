// Pre-token → token ids cache. Natural text repeats its words, so most pre-tokens are found here
// and skip BPE entirely (Hugging Face `tokenizers` caches the same way). One cache per thread:
// no locks on the hot path. When full it starts over, which keeps memory bounded.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::tokenizer {

/// A bounded map from short byte strings to id sequences; not thread-safe (one per thread).
class WordCache {
 public:
  /// Keys of this many bytes or more are never cached (as `tokenizers`' MAX_LENGTH).
  static constexpr std::size_t kMaxKeyBytes = 256;

  /// A cache holding up to `max_entries` words (rounded up to a power of two).
  explicit WordCache(std::size_t max_entries = 1 << 16);

  /// The ids cached for `key`, or an empty span when absent (a cached word is never empty).
  [[nodiscard]] std::span<const std::uint32_t> Find(std::string_view key) const;

  /// Caches `ids` for `key` (ignored when the key is too long); may first clear a full cache.
  void Insert(std::string_view key, std::span<const std::uint32_t> ids);

  /// Number of cached words.
  [[nodiscard]] std::size_t size() const { return entries_.size(); }

  /// Drops everything.
  void Clear();

 private:
  struct Entry {
    std::uint32_t key_offset;
    std::uint32_t ids_offset;
    std::uint16_t key_length;
    std::uint16_t ids_length;
    std::uint32_t hash;
  };

  std::size_t max_entries_;
  std::size_t mask_;
  std::vector<std::uint32_t> slots_;  // entry index + 1; 0 = empty
  std::vector<Entry> entries_;
  std::string keys_;
  std::vector<std::uint32_t> ids_;
};

}  // namespace infermark::tokenizer
