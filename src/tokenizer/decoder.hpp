// Decoders: turn token strings back into text (ByteLevel, ByteFallback, Replace, Fuse, Strip,
// Metaspace and Sequence), with the semantics of Hugging Face `tokenizers`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tokenizer/onig_regex.hpp"

namespace infermark::tokenizer {

/// Rewrites a list of token strings; the decoded text is their concatenation.
class Decoder {
 public:
  virtual ~Decoder() = default;
  /// Transforms `tokens` in place.
  virtual void DecodeChain(std::vector<std::string>& tokens) const = 0;
};

/// `ByteLevel`: byte-level characters back to bytes (a token with other characters keeps its own
/// UTF-8), all tokens joined, invalid UTF-8 replaced by U+FFFD.
std::unique_ptr<Decoder> MakeByteLevelDecoder();

/// `ByteFallback`: runs of <0xXX> tokens become their bytes; an invalid run gives one U+FFFD per byte.
std::unique_ptr<Decoder> MakeByteFallbackDecoder();

/// `Fuse`: joins all tokens into one.
std::unique_ptr<Decoder> MakeFuseDecoder();

/// `Replace` with a literal pattern.
std::unique_ptr<Decoder> MakeReplaceStringDecoder(std::string pattern, std::string content);

/// `Replace` with an Oniguruma pattern.
std::unique_ptr<Decoder> MakeReplaceRegexDecoder(OnigRegex pattern, std::string content);

/// `Strip`: removes up to `start` leading and `stop` trailing `content` characters of each token.
std::unique_ptr<Decoder> MakeStripDecoder(char32_t content, std::size_t start, std::size_t stop);

/// `Metaspace`: the replacement character becomes a space (dropped in the first token unless the
/// prepend scheme is "never").
std::unique_ptr<Decoder> MakeMetaspaceDecoder(char32_t replacement, bool drop_in_first_token);

/// `Sequence`: applies `parts` in order. Empty: nullptr.
std::unique_ptr<Decoder> MakeDecoderSequence(std::vector<std::unique_ptr<Decoder>> parts);

}  // namespace infermark::tokenizer
