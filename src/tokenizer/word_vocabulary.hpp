// Text of an exact token count, cheaply: the built-in engine's generated answers and the agentic
// client's synthetic prompts are sequences of real tokens. Common English words,
// each with a leading space, kept only when the serving tokenizer encodes it as exactly one token,
// so the generated text re-tokenizes to as many tokens as the engine reports (words never merge
// across the spaces of byte-level and SentencePiece pre-tokenizers). Request r's output token i is
// word (offset_r + i) mod V; no allocation or JSON escaping per token (the words are plain ASCII).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::tokenizer {

class Tokenizer;

/// A fixed list of single-token words.
class WordVocabulary {
 public:
  /// The words that `tokenizer` (may be null: all of them) encodes as one token each.
  explicit WordVocabulary(const Tokenizer* tokenizer);

  /// Number of words.
  [[nodiscard]] std::size_t size() const { return words_.size(); }
  /// Text of output token `index` of a request whose sequence starts at `offset`.
  [[nodiscard]] std::string_view Word(std::uint64_t offset, std::uint64_t index) const {
    return words_[(offset + index) % words_.size()];
  }
  /// Appends the text of output tokens [begin, end) of a request.
  void Append(std::string& out, std::uint64_t offset, std::uint64_t begin, std::uint64_t end) const;

 private:
  std::vector<std::string> words_;
};

}  // namespace infermark::tokenizer
