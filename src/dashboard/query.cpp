#include "dashboard/query.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace infermark::dashboard {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Decode(std::string_view text, std::string_view field) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      const int hi = i + 2 < text.size() ? HexDigit(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? HexDigit(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        throw QueryError(std::string(field.empty() ? text : field), "malformed percent escape in the query string");
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

QueryError::QueryError(std::string field, const std::string& message)
    : std::runtime_error(message), field_(std::move(field)) {}

Query Query::Parse(std::string_view text) {
  Query query;
  while (!text.empty()) {
    const std::size_t amp = text.find('&');
    const std::string_view pair = text.substr(0, amp);
    text = amp == std::string_view::npos ? std::string_view() : text.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    const std::string name = Decode(pair.substr(0, eq), "");
    if (name.empty()) throw QueryError("", "a query parameter without a name");
    const std::string value = eq == std::string_view::npos ? std::string() : Decode(pair.substr(eq + 1), name);
    query.values_[name].push_back(value);
  }
  return query;
}

void Query::RequireKnown(const std::set<std::string, std::less<>>& allowed) const {
  for (const auto& [name, ignored] : values_) {
    if (!allowed.count(name)) throw QueryError(name, "unknown query parameter '" + name + "'");
  }
}

std::vector<std::string> Query::List(std::string_view name) const {
  std::vector<std::string> out;
  const auto it = values_.find(name);
  if (it == values_.end()) return out;
  for (const std::string& value : it->second) {
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t comma = value.find(',', start);
      const std::string item = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty()) out.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

std::optional<std::string> Query::Single(std::string_view name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  if (it->second.size() != 1) throw QueryError(std::string(name), "given more than once");
  if (it->second.front().empty()) throw QueryError(std::string(name), "empty value");
  return it->second.front();
}

bool Query::Has(std::string_view name) const {
  return values_.find(name) != values_.end();
}

double ParseNumber(std::string_view field, const std::string& text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    throw QueryError(std::string(field), "'" + text + "' is not a number");
  }
  return value;
}

long long ParseCount(std::string_view field, const std::string& text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    throw QueryError(std::string(field), "'" + text + "' is not a whole number >= 0");
  }
  return value;
}

bool ParseBool(std::string_view field, const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw QueryError(std::string(field), "'" + text + "' is not true or false");
}

std::string ParseDate(std::string_view field, const std::string& text) {
  const std::string date = text.substr(0, 10);
  const bool shape = date.size() == 10 && date[4] == '-' && date[7] == '-';
  bool digits = shape;
  for (std::size_t i = 0; digits && i < date.size(); ++i) {
    if (i != 4 && i != 7 && (date[i] < '0' || date[i] > '9')) digits = false;
  }
  const int month = digits ? std::atoi(date.substr(5, 2).c_str()) : 0;
  const int day = digits ? std::atoi(date.substr(8, 2).c_str()) : 0;
  if (!digits || month < 1 || month > 12 || day < 1 || day > 31 || (text.size() > 10 && text[10] != 'T')) {
    throw QueryError(std::string(field), "'" + text + "' is not an ISO date (YYYY-MM-DD)");
  }
  return date;
}

}  // namespace infermark::dashboard
