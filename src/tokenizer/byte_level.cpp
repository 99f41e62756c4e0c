#include "tokenizer/byte_level.hpp"

#include <array>

#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {
namespace {

struct Tables {
  std::array<char32_t, 256> byte_to_char{};
  std::array<std::int16_t, 512> char_to_byte{};  // every byte-level character is below U+0200
};

Tables BuildTables() {
  Tables t;
  t.char_to_byte.fill(-1);
  // Printable Latin-1 bytes stand for themselves; the others are shifted to U+0100 onwards in order.
  const auto printable = [](unsigned b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  };
  char32_t next = 256;
  for (unsigned b = 0; b < 256; ++b) {
    const char32_t c = printable(b) ? static_cast<char32_t>(b) : next++;
    t.byte_to_char[b] = c;
    t.char_to_byte[c] = static_cast<std::int16_t>(b);
  }
  return t;
}

const Tables& GetTables() {
  static const Tables tables = BuildTables();
  return tables;
}

}  // namespace

char32_t ByteLevelChar(std::uint8_t byte) {
  return GetTables().byte_to_char[byte];
}

int ByteLevelByte(char32_t c) {
  return c < 512 ? GetTables().char_to_byte[c] : -1;
}

std::string ByteLevelEncode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char b : bytes) AppendUtf8(ByteLevelChar(static_cast<std::uint8_t>(b)), out);
  return out;
}

bool ByteLevelDecode(std::string_view token, std::string& out) {
  const std::size_t mark = out.size();
  std::size_t pos = 0;
  while (pos < token.size()) {
    if (ValidSequenceLength(token, pos) == 0) {
      out.resize(mark);
      return false;
    }
    const int b = ByteLevelByte(DecodeChar(token, pos));
    if (b < 0) {
      out.resize(mark);
      return false;
    }
    out.push_back(static_cast<char>(b));
  }
  return true;
}

}  // namespace infermark::tokenizer
