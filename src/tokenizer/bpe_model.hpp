// The BPE model of a tokenizer.json: vocabulary, ranked merges, unknown token, byte fallback
// (SentencePiece-style, as Gemma uses), `ignore_merges` (whole pre-token lookup first, as Llama 3
// and GPT-OSS use), continuing-subword prefix and end-of-word suffix. Results are identical to
// Hugging Face `tokenizers`: merges apply lowest rank first, leftmost first among equal ranks.
//
// Byte-level vocabularies (GPT-2's alphabet, see byte_level.hpp) are converted to raw bytes once, so
// a pre-token is tokenized from its bytes without building the byte-level string.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/merge_map.hpp"
#include "tokenizer/string_id_map.hpp"
#include "tokenizer/word_cache.hpp"

namespace infermark::tokenizer {

/// Everything a BPE model is built from, as tokenizer.json states it. The views must stay valid
/// while the BpeModel is constructed (they point into the parsed JSON); the model copies them.
struct BpeConfig {
  std::vector<std::pair<std::string_view, std::uint32_t>> vocab;      ///< Token text → id.
  std::vector<std::pair<std::string_view, std::string_view>> merges;  ///< Merge rules in rank order.
  std::optional<std::string> unk_token;                               ///< Token standing for unknown characters.
  std::string continuing_subword_prefix;                              ///< Prepended to non-initial characters.
  std::string end_of_word_suffix;                                     ///< Appended to the last character.
  bool fuse_unk = false;                                              ///< Consecutive unknowns give one unk token.
  bool byte_fallback = false;                                         ///< Unknown characters become <0xXX> byte tokens.
  bool ignore_merges = false;  ///< A pre-token found in the vocabulary is one token.
  bool byte_level = false;     ///< Pre-tokens are raw bytes and the vocabulary is in GPT-2's byte alphabet.
};

/// Per-thread working memory of the model: the word cache and merge buffers.
struct BpeScratch {
  WordCache cache;                     ///< Pre-token → ids.
  std::vector<std::uint32_t> symbols;  ///< The word being merged.
  std::vector<std::uint32_t> ranks;    ///< Rank of each adjacent pair (small words).
  std::vector<std::uint32_t> new_ids;  ///< Merged id of each adjacent pair (small words).
  std::vector<std::int32_t> prev;      ///< Linked list of symbols (long words).
  std::vector<std::int32_t> next;      ///< Linked list of symbols (long words).
  std::string key;                     ///< Lookup strings built with prefix/suffix.
  std::vector<std::uint64_t> heap;     ///< Pending merges (long words): rank, position.
};

/// A loaded BPE model; immutable and thread-safe (working memory comes from the caller).
class BpeModel {
 public:
  /// Builds the model; throws std::invalid_argument naming the first merge or token that does not
  /// resolve against the vocabulary.
  explicit BpeModel(BpeConfig config);

  /// Appends the ids of one pre-token (raw bytes for byte-level models, else UTF-8 text).
  void Tokenize(std::string_view piece, std::vector<std::uint32_t>& out, BpeScratch& scratch) const;

  /// Id of `token` as written in tokenizer.json, if in the vocabulary.
  [[nodiscard]] std::optional<std::uint32_t> TokenToId(std::string_view token) const;

  /// Token text of `id` as written in tokenizer.json, or nullopt when no token has that id.
  [[nodiscard]] std::optional<std::string_view> IdToToken(std::uint32_t id) const;

  /// One more than the largest id in the vocabulary.
  [[nodiscard]] std::uint32_t IdLimit() const { return static_cast<std::uint32_t>(token_offsets_.size() - 1); }

  /// Number of tokens in the vocabulary.
  [[nodiscard]] std::size_t VocabSize() const { return vocab_size_; }

  /// True for byte-level models.
  [[nodiscard]] bool byte_level() const { return byte_level_; }

  /// Applies the merges to `symbols` in place; exposed for tests of the merge order.
  void MergeSymbols(std::vector<std::uint32_t>& symbols, BpeScratch& scratch) const;

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;

  void InitialSymbols(std::string_view piece, BpeScratch& scratch) const;
  void InitialSymbolsGeneral(std::string_view piece, BpeScratch& scratch) const;
  bool AppendByteFallback(std::string_view bytes, std::vector<std::uint32_t>& symbols) const;
  void MergeSmall(std::vector<std::uint32_t>& symbols, BpeScratch& scratch) const;
  void MergeLarge(std::vector<std::uint32_t>& symbols, BpeScratch& scratch) const;

  StringIdMap vocab_;                         // keys as the model sees pre-tokens (raw bytes when byte-level)
  StringIdMap originals_;                     // keys as written in tokenizer.json
  std::string token_text_;                    // every token's text, in id order
  std::vector<std::uint32_t> token_offsets_;  // id → start in token_text_; one more entry at the end
  std::vector<bool> has_id_;                  // ids may have holes
  std::size_t vocab_size_ = 0;
  MergeMap merges_;
  std::uint32_t unk_id_ = kNone;
  std::array<std::uint32_t, 256> byte_ids_{};      // byte-level: id of each single byte
  std::array<std::uint32_t, 256> fallback_ids_{};  // id of <0xXX>, kNone when absent
  std::vector<std::uint32_t> bmp_ids_;             // character models: id of each BMP character
  std::string prefix_, suffix_;                    // in model space
  bool fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false, byte_level_ = false;
  bool simple_ = true;  // no prefix or suffix: the fast initial-symbol paths apply
};

}  // namespace infermark::tokenizer
