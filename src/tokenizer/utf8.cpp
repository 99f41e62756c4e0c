#include "tokenizer/utf8.hpp"

#include <cstring>

namespace infermark::tokenizer {
namespace {

unsigned char Byte(std::string_view text, std::size_t pos) {
  return static_cast<unsigned char>(text[pos]);
}

bool IsContinuation(unsigned char b) {
  return (b & 0xC0) == 0x80;
}

// Length of the longest prefix at `pos` that could still start a well-formed sequence (at least 1):
// the "maximal subpart" of Unicode §3.9, which is replaced by one U+FFFD.
std::size_t MaximalSubpart(std::string_view text, std::size_t pos) {
  const unsigned char lead = Byte(text, pos);
  std::size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    if (lead == 0xE0) lo = 0xA0;  // no overlongs
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    if (lead == 0xF0) lo = 0x90;  // no overlongs
    if (lead == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 1;
  }
  std::size_t len = 1;
  for (std::size_t i = 0; i < need; ++i) {
    if (pos + len >= text.size()) return len;
    const unsigned char b = Byte(text, pos + len);
    const bool ok = i == 0 ? (b >= lo && b <= hi) : IsContinuation(b);
    if (!ok) return len;
    ++len;
  }
  return 0;  // well-formed: not an invalid subpart
}

}  // namespace

std::size_t ValidSequenceLength(std::string_view text, std::size_t pos) {
  const unsigned char lead = Byte(text, pos);
  if (lead < 0x80) return 1;
  if (MaximalSubpart(text, pos) != 0) return 0;
  return CharLength(lead);
}

bool IsValidUtf8(std::string_view text) {
  std::size_t pos = 0;
  const std::size_t n = text.size();
  while (pos < n) {
    // Skip ASCII eight bytes at a time: most input is mostly ASCII.
    while (pos + 8 <= n) {
      std::uint64_t word;
      std::memcpy(&word, text.data() + pos, 8);
      if ((word & 0x8080808080808080ULL) != 0) break;
      pos += 8;
    }
    if (pos >= n) break;
    if (Byte(text, pos) < 0x80) {
      ++pos;
      continue;
    }
    const std::size_t len = ValidSequenceLength(text, pos);
    if (len == 0) return false;
    pos += len;
  }
  return true;
}

void AppendSanitizedUtf8(std::string_view text, std::string& out) {
  std::size_t pos = 0, run_start = 0;
  while (pos < text.size()) {
    if (Byte(text, pos) < 0x80) {
      ++pos;
      continue;
    }
    const std::size_t bad = MaximalSubpart(text, pos);
    if (bad == 0) {
      pos += CharLength(Byte(text, pos));
      continue;
    }
    out.append(text.substr(run_start, pos - run_start));
    out.append(kReplacementCharacter);
    pos += bad;
    run_start = pos;
  }
  out.append(text.substr(run_start));
}

std::string SanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  AppendSanitizedUtf8(text, out);
  return out;
}

char32_t DecodeChar(std::string_view text, std::size_t& pos) {
  const unsigned char lead = Byte(text, pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  const std::size_t len = CharLength(lead);
  char32_t c = lead & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
  for (std::size_t i = 1; i < len && pos + i < text.size(); ++i) c = (c << 6) | (Byte(text, pos + i) & 0x3Fu);
  pos += len;
  return c;
}

void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

}  // namespace infermark::tokenizer
