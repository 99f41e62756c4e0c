// Added tokens (special and not): matched in the text before normalization and pre-tokenization,
// so "<|im_start|>" stays one token. Matching is leftmost-longest, as `tokenizers` does with
// Aho-Corasick; tokens with `normalized: true` are matched in the normalized text instead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/function_ref.hpp"

namespace infermark::tokenizer {

class Normalizer;

/// One entry of tokenizer.json's `added_tokens`.
struct AddedToken {
  std::string content;       ///< Text of the token.
  std::uint32_t id = 0;      ///< Id (assigned as `tokenizers` assigns it, see AddedVocabulary).
  bool special = false;      ///< Special tokens can be skipped when decoding.
  bool single_word = false;  ///< Only matches when not inside a word.
  bool lstrip = false;       ///< Also swallows whitespace on its left.
  bool rstrip = false;       ///< Also swallows whitespace on its right.
  bool normalized = false;   ///< Matched in normalized text (its content normalized too).
};

/// Receives a piece of text; `added_id` is the token id when the piece is an added token.
using SectionSink = FunctionRef<void(std::string_view piece, std::optional<std::uint32_t> added_id)>;

/// The added tokens of a tokenizer with their two matchers.
class AddedVocabulary {
 public:
  /// Registers `tokens` in order. Ids follow `tokenizers`: a token already in the model's vocabulary
  /// (`model_id`) takes that id, others are numbered after the vocabulary (`model_vocab_size`).
  /// `normalizer` (may be null) normalizes the content of `normalized` tokens.
  AddedVocabulary(std::vector<AddedToken> tokens,
                  const FunctionRef<std::optional<std::uint32_t>(std::string_view)>& model_id,
                  std::size_t model_vocab_size, const Normalizer* normalizer);
  AddedVocabulary() = default;

  /// Splits `text` at tokens matched before normalization.
  void SplitRaw(std::string_view text, SectionSink sink) const { raw_.Split(text, tokens_, sink); }

  /// Splits normalized `text` at tokens matched after normalization.
  void SplitNormalized(std::string_view text, SectionSink sink) const { normalized_.Split(text, tokens_, sink); }

  /// The token with `id`, or nullptr.
  [[nodiscard]] const AddedToken* FindById(std::uint32_t id) const;

  /// The id of the added token whose content is `content`.
  [[nodiscard]] std::optional<std::uint32_t> FindByContent(std::string_view content) const;

  /// All tokens, in registration order.
  [[nodiscard]] const std::vector<AddedToken>& tokens() const { return tokens_; }

 private:
  // A byte trie over token contents; Split walks it at each position for the longest match.
  class Matcher {
   public:
    void Add(std::string_view content, std::uint32_t token_index);
    void Split(std::string_view text, const std::vector<AddedToken>& tokens, SectionSink sink) const;
    [[nodiscard]] bool empty() const { return nodes_.size() <= 1; }

   private:
    struct Node {
      std::uint32_t first_child = 0;  // index into edges_ (sorted by byte within a node)
      std::uint16_t child_count = 0;
      std::uint32_t token = 0;  // token index + 1; 0 = no token ends here
    };
    struct Edge {
      unsigned char byte;
      std::uint32_t node;
    };
    void Build();
    [[nodiscard]] std::uint32_t Child(std::uint32_t node, unsigned char byte) const;

    std::vector<std::pair<std::string, std::uint32_t>> pending_;
    std::vector<Node> nodes_;
    std::vector<Edge> edges_;
    bool first_byte_[256] = {};
    friend class AddedVocabulary;
  };

  std::vector<AddedToken> tokens_;
  std::vector<std::uint32_t> by_id_;  // id → token index + 1
  Matcher raw_, normalized_;
};

}  // namespace infermark::tokenizer
