// UTF-8 helpers for the tokenizer: validation, replacement of invalid input, code-point stepping.
// Hugging Face `tokenizers` only accepts valid UTF-8 (a Rust &str); infermark accepts any bytes and
// replaces each maximal invalid subsequence with U+FFFD, as WHATWG's TextDecoder and Rust's
// String::from_utf8_lossy do, so the JS oracle sees the same text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace infermark::tokenizer {

/// U+FFFD REPLACEMENT CHARACTER in UTF-8.
inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

/// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points above U+10FFFF).
[[nodiscard]] bool IsValidUtf8(std::string_view text);

/// Appends `text` to `out`, replacing each maximal invalid subsequence with U+FFFD.
void AppendSanitizedUtf8(std::string_view text, std::string& out);

/// `text` with each maximal invalid subsequence replaced by U+FFFD.
[[nodiscard]] std::string SanitizeUtf8(std::string_view text);

/// Length in bytes of the well-formed sequence starting at `text[pos]` (1..4), or 0 when the bytes
/// there do not start a well-formed sequence.
[[nodiscard]] std::size_t ValidSequenceLength(std::string_view text, std::size_t pos);

/// Byte length of the UTF-8 character whose lead byte is `lead`; assumes valid UTF-8.
[[nodiscard]] inline std::size_t CharLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

/// Decodes the character at `text[pos]` (valid UTF-8 assumed) and advances `pos` past it.
[[nodiscard]] char32_t DecodeChar(std::string_view text, std::size_t& pos);

/// Appends code point `c` as UTF-8.
void AppendUtf8(char32_t c, std::string& out);

/// Unicode White_Space (Rust's char::is_whitespace, which `tokenizers` uses for stripping).
[[nodiscard]] inline bool IsWhiteSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace infermark::tokenizer
