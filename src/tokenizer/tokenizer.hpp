// Hugging Face tokenizers for infermark: loads a tokenizer.json (+ tokenizer_config.json) and
// encodes text to token ids and back, with the same ids as Hugging Face `tokenizers`.
//
// Supported: BPE models, byte-level (GPT-2 alphabet; Llama 3, Qwen 3, DeepSeek V3, GPT-OSS) and
// SentencePiece-style with byte fallback (Gemma); Split regex pre-tokenizers run by Oniguruma as in
// `tokenizers`; normalizers NFC/NFD/NFKC/NFKD, Replace, Prepend, Strip, StripAccents, Lowercase;
// added and special tokens; ByteLevel, ByteFallback, Fuse, Replace, Strip and Metaspace decoders.
// Anything else in a tokenizer.json is reported as unsupported when loading, never guessed.
//
// Input that is not valid UTF-8 never fails: each maximal invalid byte sequence is replaced by
// U+FFFD first (as WHATWG TextDecoder and Rust's from_utf8_lossy do), then encoded.
//
// A Tokenizer is immutable and cheap to copy (shared); Encode and Decode may run on many threads at
// once. Each thread keeps its own pre-token cache, so the hot path takes no lock and, once warm,
// allocates nothing beyond the output vector.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::tokenizer {

/// Ids of the tokens tokenizer_config.json names, when it names them and they exist.
struct SpecialTokenIds {
  std::optional<std::uint32_t> bos;  ///< `bos_token`.
  std::optional<std::uint32_t> eos;  ///< `eos_token`.
  std::optional<std::uint32_t> pad;  ///< `pad_token`.
  std::optional<std::uint32_t> unk;  ///< `unk_token`.
};

/// A loaded tokenizer.
class Tokenizer {
 public:
  /// Loads `path`: a tokenizer.json or a folder holding one; tokenizer_config.json next to it is read
  /// when present. Throws InputError (file, field, rule) for missing files, bad JSON and unsupported
  /// or inconsistent contents.
  static Tokenizer Load(const std::string& path);

  /// Builds a tokenizer from the text of a tokenizer.json and, optionally, of a
  /// tokenizer_config.json; `source` names them in error messages.
  static Tokenizer FromJson(std::string_view tokenizer_json, std::string_view config_json = {},
                            const std::string& source = "tokenizer.json");

  /// Token ids of `text`. Added and special tokens written in the text are recognized;
  /// `add_special_tokens` also applies the post-processor (e.g. Gemma's leading <bos>). Throws
  /// std::length_error for text over 2 GiB (Oniguruma's limit).
  [[nodiscard]] std::vector<std::uint32_t> Encode(std::string_view text, bool add_special_tokens = false) const;

  /// Appends the ids of `text` to `ids` (reuse one vector to avoid allocating per call).
  void EncodeInto(std::string_view text, std::vector<std::uint32_t>& ids, bool add_special_tokens = false) const;

  /// Number of tokens `text` encodes to.
  [[nodiscard]] std::size_t CountTokens(std::string_view text) const;

  /// Text of `ids`; ids no token has are skipped, as `tokenizers` does. Invalid UTF-8 produced by
  /// byte tokens is replaced by U+FFFD.
  [[nodiscard]] std::string Decode(std::span<const std::uint32_t> ids, bool skip_special_tokens = false) const;

  /// `text` as the model sees it: invalid UTF-8 replaced and the normalizer applied outside added
  /// tokens. Decode(Encode(x)) equals this, up to what the decoder undoes (e.g. Gemma's "▁").
  [[nodiscard]] std::string Normalize(std::string_view text) const;

  /// Vocabulary size including added tokens (`get_vocab_size(with_added_tokens=True)`).
  [[nodiscard]] std::size_t VocabSize() const;

  /// Vocabulary size of the model alone, without added tokens (Hugging Face's `vocab_size`): the
  /// range random prompts draw their token ids from.
  [[nodiscard]] std::size_t ModelVocabSize() const;

  /// One more than the largest id any token has.
  [[nodiscard]] std::uint32_t IdLimit() const;

  /// Id of the token written `token` (added tokens first, then the model's vocabulary).
  [[nodiscard]] std::optional<std::uint32_t> TokenToId(std::string_view token) const;

  /// Token string of `id` as tokenizer.json writes it (byte-level tokens in GPT-2's alphabet).
  [[nodiscard]] std::optional<std::string> IdToToken(std::uint32_t id) const;

  /// True for ids of added tokens marked special.
  [[nodiscard]] bool IsSpecial(std::uint32_t id) const;

  /// Special tokens named in tokenizer_config.json.
  [[nodiscard]] const SpecialTokenIds& special_token_ids() const;

  /// Where the tokenizer was loaded from.
  [[nodiscard]] const std::string& source() const;

 private:
  struct Impl;
  static Tokenizer FromOwnedJson(std::string& tokenizer_json, std::string_view config_json, const std::string& source);
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

}  // namespace infermark::tokenizer
