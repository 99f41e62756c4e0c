// The components of a tokenizer as read from tokenizer.json, before they are assembled into a
// Tokenizer; the reader lives in tokenizer_json.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/added_vocabulary.hpp"
#include "tokenizer/bpe_model.hpp"
#include "tokenizer/decoder.hpp"
#include "tokenizer/normalizer.hpp"
#include "tokenizer/pre_tokenizer.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::tokenizer {

/// Everything a Tokenizer is made of.
struct TokenizerParts {
  std::string source;                           ///< File name for messages.
  std::unique_ptr<Normalizer> normalizer;       ///< May be null.
  std::unique_ptr<PreTokenizer> pre_tokenizer;  ///< May be null: the whole section is one piece.
  std::unique_ptr<BpeModel> model;              ///< Never null.
  AddedVocabulary added;                        ///< Added and special tokens.
  std::unique_ptr<Decoder> decoder;             ///< May be null: tokens joined with spaces.
  bool decoder_is_byte_level = false;           ///< The decoder is exactly ByteLevel (fast path).
  std::vector<std::uint32_t> prefix_ids;        ///< Post-processor ids before the text.
  std::vector<std::uint32_t> suffix_ids;        ///< Post-processor ids after the text.
  SpecialTokenIds special_token_ids;            ///< From tokenizer_config.json.
};

/// Reads tokenizer.json text (and tokenizer_config.json text, may be empty). Throws InputError
/// naming `source`, the field path and the problem. `tokenizer_json` may gain capacity (simdjson
/// reads up to 64 bytes past the end); give it that capacity to avoid a copy of a large file.
TokenizerParts ReadTokenizerJson(std::string& tokenizer_json, std::string_view config_json, const std::string& source);

}  // namespace infermark::tokenizer
