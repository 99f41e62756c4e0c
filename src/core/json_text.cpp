#include "core/json_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace infermark {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void AppendEscapeU(std::string& out, unsigned code) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 0xF];
}

// Decodes one UTF-8 sequence at s[i]; returns its length (1 with U+FFFD for a bad byte).
std::size_t DecodeUtf8(std::string_view s, std::size_t i, unsigned& code) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    code = 0xFFFD;
    return 1;
  }
  code = len == 1 ? b0 : len == 2 ? (b0 & 0x1Fu) : len == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b >> 6) != 0x2) {
      code = 0xFFFD;
      return 1;
    }
    code = (code << 6) | (b & 0x3Fu);
  }
  return len;
}

// True for bytes JSON text can carry as they are (printable ASCII other than '"' and '\\').
constexpr bool IsPlain(unsigned char c) {
  return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
}

// End of the run of plain bytes starting at `i`, eight bytes at a time: a word is plain when no
// byte is below 0x20 or above 0x7E and none is '"' or '\\' (bit tricks from "Bit Twiddling Hacks").
std::size_t PlainRun(std::string_view s, std::size_t i) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  auto has_less = [](std::uint64_t x, std::uint64_t n) { return (x - kOnes * n) & ~x & kHighs; };
  auto has_byte = [&](std::uint64_t x, std::uint64_t b) { return has_less(x ^ (kOnes * b), 1); };
  while (i + 8 <= s.size()) {
    std::uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    if ((word & kHighs) != 0 || has_less(word, 0x20) != 0 || has_byte(word, 0x7F) != 0 || has_byte(word, '"') != 0 ||
        has_byte(word, '\\') != 0) {
      break;
    }
    i += 8;
  }
  while (i < s.size() && IsPlain(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

void AppendString(std::string& out, std::string_view s, bool ensure_ascii) {
  out += '"';
  std::size_t i = 0;
  while (i < s.size()) {
    // Copy the longest run of plain bytes in one append: most strings are nothing but that.
    std::size_t run = PlainRun(s, i);
    out.append(s.data() + i, run - i);
    i = run;
    if (i == s.size()) break;
    const char c = s[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80) {
      unsigned code = 0;
      const std::size_t len = DecodeUtf8(s, i, code);
      if (!ensure_ascii && code != 0xFFFD) {
        out.append(s.substr(i, len));
      } else if (code >= 0x10000) {
        const unsigned v = code - 0x10000;
        AppendEscapeU(out, 0xD800 | (v >> 10));
        AppendEscapeU(out, 0xDC00 | (v & 0x3FF));
      } else {
        AppendEscapeU(out, code);
      }
      i += len;
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (u < 0x20 || ensure_ascii) {
          AppendEscapeU(out, u);
        } else {
          out += c;  // DEL passes through unescaped without ensure_ascii
        }
    }
    ++i;
  }
  out += '"';
}

// Python's repr(float): shortest round-trip digits, fixed notation for decimal exponents -4..15
// (always with a fractional part), otherwise d.ddde+XX.
std::string PythonFloatRepr(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  const std::size_t e_pos = sci.find('e');
  std::string_view mantissa = sci.substr(0, e_pos);
  int exponent = 0;
  const char* exp_begin = sci.data() + e_pos + 1;
  if (*exp_begin == '+') ++exp_begin;
  std::from_chars(exp_begin, sci.data() + sci.size(), exponent);
  std::string sign;
  if (mantissa.front() == '-') {
    sign = "-";
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  std::string out = sign;
  if (exponent >= -4 && exponent <= 15) {
    if (exponent < 0) {
      out += "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    } else {
      const auto int_len = static_cast<std::size_t>(exponent) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const int magnitude = exponent < 0 ? -exponent : exponent;
  out += exponent < 0 ? "e-" : "e+";
  if (magnitude < 10) out += '0';
  out += std::to_string(magnitude);
  return out;
}

void AppendFloat(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
  } else if (std::isinf(v)) {
    out += v > 0 ? "Infinity" : "-Infinity";
  } else {
    out += PythonFloatRepr(v);
  }
}

template <typename Int>
void AppendInt(std::string& out, Int v) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<std::size_t>(res.ptr - buf));
}

}  // namespace

void AppendJson(std::string& out, const Json& value, const JsonStyle& style) {
  switch (value.type()) {
    case Json::value_t::null:
      out += "null";
      break;
    case Json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      break;
    case Json::value_t::number_integer:
      out += std::to_string(value.get<std::int64_t>());
      break;
    case Json::value_t::number_unsigned:
      out += std::to_string(value.get<std::uint64_t>());
      break;
    case Json::value_t::number_float:
      AppendFloat(out, value.get<double>());
      break;
    case Json::value_t::string:
      AppendString(out, value.get_ref<const std::string&>(), style.ensure_ascii);
      break;
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : value) {
        if (!first) out += style.item_separator;
        first = false;
        AppendJson(out, item, style);
      }
      out += ']';
      break;
    }
    case Json::value_t::object: {
      out += '{';
      const auto& members = value.get_ref<const Json::object_t&>();
      auto emit = [&](const std::string& key, const Json& member, bool first) {
        if (!first) out += style.item_separator;
        AppendString(out, key, style.ensure_ascii);
        out += style.key_separator;
        AppendJson(out, member, style);
      };
      if (style.sort_keys) {
        std::vector<const std::pair<const std::string, Json>*> sorted;
        sorted.reserve(members.size());
        for (const auto& member : members) sorted.push_back(&member);
        std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
        for (std::size_t i = 0; i < sorted.size(); ++i) emit(sorted[i]->first, sorted[i]->second, i == 0);
      } else {
        bool first = true;
        for (const auto& [key, member] : members) {
          emit(key, member, first);
          first = false;
        }
      }
      out += '}';
      break;
    }
    case Json::value_t::binary:
    case Json::value_t::discarded:
      out += "null";
      break;
  }
}

std::string DumpJson(const Json& value, const JsonStyle& style) {
  std::string out;
  AppendJson(out, value, style);
  return out;
}

}  // namespace infermark
