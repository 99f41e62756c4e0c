#include "eval/exact_match.hpp"

#include <utf8proc.h>

#include <string_view>

namespace infermark::eval {
namespace {

// Python's str.lower() code point by code point (utf8proc's simple lower-case mapping; Python's
// few multi-character lowerings, such as U+0130, differ and do not occur in numeric answers).
std::string Lower(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  std::size_t at = 0;
  while (at < s.size()) {
    utf8proc_int32_t cp = 0;
    const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + at),
                                    static_cast<utf8proc_ssize_t>(s.size() - at), &cp);
    if (n <= 0) {  // not UTF-8: the byte is kept as it is
      out += s[at++];
      continue;
    }
    utf8proc_uint8_t buf[4];
    const auto w = utf8proc_encode_char(utf8proc_tolower(cp), buf);
    out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(w));
    at += static_cast<std::size_t>(n);
  }
  return out;
}

std::string DeleteChars(const std::string& s, std::string_view chars) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (chars.find(c) == std::string_view::npos) out += c;
  }
  return out;
}

constexpr std::string_view kPunctuation = R"(!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~)";  // string.punctuation
constexpr std::string_view kDigits = "0123456789";                                // string.digits

}  // namespace

ExactMatch::ExactMatch(const MetricSpec& spec) : spec_(spec) {
  for (const std::string& p : spec.regexes_to_ignore) ignore_.emplace_back(p);
}

std::string ExactMatch::Normalize(const std::string& text) const {
  std::string s = text;
  for (const PythonRegex& re : ignore_) s = re.Delete(s);
  if (spec_.ignore_case) s = Lower(s);
  if (spec_.ignore_punctuation) s = DeleteChars(s, kPunctuation);
  if (spec_.ignore_numbers) s = DeleteChars(s, kDigits);
  return s;
}

double ExactMatch::Score(const std::string& prediction, const std::string& reference) const {
  return Normalize(prediction) == Normalize(reference) ? 1.0 : 0.0;
}

}  // namespace infermark::eval
