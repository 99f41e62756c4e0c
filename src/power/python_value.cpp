#include "power/python_value.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "power/python_csv.hpp"

namespace infermark::results {
namespace {

bool IsNumberLike(const Json& v) {
  return v.is_number() || v.is_boolean();
}

// Integers stay exact where both are integers; otherwise compared as doubles (Python compares an
// int and a float exactly, which doubles match for every value JSON files hold in practice).
bool NumbersEqual(const Json& a, const Json& b) {
  const auto as_int = [](const Json& v) -> std::optional<long long> {
    if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
    if (v.is_number_integer()) return v.get<long long>();
    return std::nullopt;
  };
  const auto ia = as_int(a);
  const auto ib = as_int(b);
  if (ia && ib) return *ia == *ib;
  const double da = ia ? static_cast<double>(*ia) : a.get<double>();
  const double db = ib ? static_cast<double>(*ib) : b.get<double>();
  return da == db;
}

// The text with valid underscores (single, between digits) removed; nullopt for a misplaced one.
std::optional<std::string> WithoutUnderscores(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '_') {
      out += text[i];
      continue;
    }
    const bool between = i > 0 && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                         std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (!between) return std::nullopt;
  }
  return out;
}

}  // namespace

std::string PythonStringRepr(std::string_view text) {
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += ch;  // printable ASCII, and UTF-8 sequences kept as they are
    }
  }
  out += quote;
  return out;
}

std::string PythonRepr(const Json& value) {
  if (value.is_null()) return "None";
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_string()) return PythonStringRepr(value.get_ref<const std::string&>());
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    return DumpJson(value);
  }
  if (value.is_number()) return DumpJson(value);
  std::string out;
  if (value.is_array()) {
    out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + PythonRepr(value[i]);
    return out + "]";
  }
  out = "{";
  bool first = true;
  for (const auto& [key, member] : value.items()) {
    out += (first ? "" : ", ") + PythonStringRepr(key) + ": " + PythonRepr(member);
    first = false;
  }
  return out + "}";
}

bool PythonEqual(const Json& a, const Json& b) {
  if (IsNumberLike(a) && IsNumberLike(b)) return NumbersEqual(a, b);
  if (a.type() != b.type()) return false;
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!PythonEqual(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [key, member] : a.items()) {
      const auto it = b.find(key);
      if (it == b.end() || !PythonEqual(member, *it)) return false;
    }
    return true;
  }
  return a == b;
}

bool PythonTruthy(const Json& value) {
  if (value.is_null()) return false;
  if (value.is_boolean()) return value.get<bool>();
  if (value.is_number_integer()) return value.get<long long>() != 0;
  if (value.is_number_float()) return value.get<double>() != 0.0;
  if (value.is_string()) return !value.get_ref<const std::string&>().empty();
  return !value.empty();
}

std::optional<long long> PythonInt(std::string_view text) {
  const auto cleaned = WithoutUnderscores(StripPython(text));
  if (!cleaned || cleaned->empty()) return std::nullopt;
  std::string_view s = *cleaned;
  bool negative = false;
  if (s.front() == '+' || s.front() == '-') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return std::nullopt;
  long long value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return negative ? -value : value;
}

std::optional<double> PythonFloat(std::string_view text) {
  const auto cleaned = WithoutUnderscores(StripPython(text));
  if (!cleaned || cleaned->empty()) return std::nullopt;
  std::string lowered;
  for (const char c : *cleaned) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view body = lowered;
  if (body.front() == '+' || body.front() == '-') body.remove_prefix(1);
  if (body == "inf" || body == "infinity" || body == "nan") {
    const double v = body == "nan" ? NAN : INFINITY;
    return lowered.front() == '-' ? -v : v;
  }
  // Only digits, one point and an exponent: strtod would also take hexadecimal forms.
  for (const char c : body) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != '+' && c != '-') {
      return std::nullopt;
    }
  }
  char* end = nullptr;
  const double v = std::strtod(lowered.c_str(), &end);
  if (end != lowered.c_str() + lowered.size()) return std::nullopt;
  return v;
}

std::string PythonFixed2(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

}  // namespace infermark::results
