// GPT-2's byte-level alphabet: every byte gets a printable character, so byte-level BPE vocabularies
// are strings of these characters ("Ġ" is the space byte). infermark converts such vocabularies to
// raw bytes once at load time and tokenizes bytes directly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace infermark::tokenizer {

/// The character GPT-2's table assigns to `byte`.
[[nodiscard]] char32_t ByteLevelChar(std::uint8_t byte);

/// The byte that character `c` stands for, or -1 when `c` is not in the byte-level alphabet.
[[nodiscard]] int ByteLevelByte(char32_t c);

/// Maps every byte of `bytes` to its byte-level character (UTF-8 encoded).
[[nodiscard]] std::string ByteLevelEncode(std::string_view bytes);

/// Maps the byte-level characters of `token` back to bytes, appended to `out`. Returns false (and
/// appends nothing) when `token` holds a character outside the alphabet or is not valid UTF-8.
bool ByteLevelDecode(std::string_view token, std::string& out);

}  // namespace infermark::tokenizer
