// Normalizers: the text transformations a tokenizer.json applies before splitting (Unicode
// normalization forms, replacements, prefixes…), with the semantics of Hugging Face `tokenizers`.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/onig_regex.hpp"

namespace infermark::tokenizer {

/// Rewrites text in place. Implementations are immutable and thread-safe.
class Normalizer {
 public:
  virtual ~Normalizer() = default;
  /// Normalizes `text` (valid UTF-8) in place.
  virtual void Normalize(std::string& text) const = 0;
};

/// Unicode normalization forms (utf8proc).
enum class UnicodeForm { kNfc, kNfd, kNfkc, kNfkd };

/// `NFC`, `NFD`, `NFKC`, `NFKD`.
std::unique_ptr<Normalizer> MakeUnicodeNormalizer(UnicodeForm form);

/// `Lowercase`: per character, as Rust's char::to_lowercase (U+0130 becomes "i" + U+0307).
std::unique_ptr<Normalizer> MakeLowercase();

/// `Strip`: removes Unicode White_Space from the left and/or the right.
std::unique_ptr<Normalizer> MakeStrip(bool left, bool right);

/// `StripAccents`: removes combining marks (general category M).
std::unique_ptr<Normalizer> MakeStripAccents();

/// `Replace` with a literal pattern.
std::unique_ptr<Normalizer> MakeReplaceString(std::string pattern, std::string content);

/// `Replace` with an Oniguruma pattern.
std::unique_ptr<Normalizer> MakeReplaceRegex(OnigRegex pattern, std::string content);

/// `Prepend`: adds `prefix` in front of non-empty text.
std::unique_ptr<Normalizer> MakePrepend(std::string prefix);

/// `Sequence`: applies `parts` in order. An empty sequence returns nullptr (nothing to do).
std::unique_ptr<Normalizer> MakeNormalizerSequence(std::vector<std::unique_ptr<Normalizer>> parts);

/// True when `text` is certainly unchanged by NFC (a conservative quick check: false may still be
/// NFC). Exposed for tests.
[[nodiscard]] bool IsCertainlyNfc(std::string_view text);

}  // namespace infermark::tokenizer
