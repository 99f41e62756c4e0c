// Regular expressions with Python `re` semantics for the patterns task files carry (filters'
// regex_pattern, exact_match's regexes_to_ignore): Oniguruma with its Python syntax over UTF-8,
// so `$` matches at the end or before a final newline, `(?s)` makes `.` match newlines, and
// findall/sub walk matches as Python 3.7+ does (empty matches allowed next to non-empty ones).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::eval {

/// One match as `re.findall` sees it.
struct RegexMatch {
  std::string whole;                ///< The matched text.
  std::vector<std::string> groups;  ///< Each capture group's text ("" when it did not take part).
};

/// A compiled pattern; immutable and safe to use from several threads.
class PythonRegex {
 public:
  /// Compiles `pattern`; throws std::invalid_argument with Oniguruma's message when invalid.
  explicit PythonRegex(std::string_view pattern);
  ~PythonRegex();
  PythonRegex(PythonRegex&& other) noexcept;
  PythonRegex& operator=(PythonRegex&& other) noexcept;
  PythonRegex(const PythonRegex&) = delete;
  PythonRegex& operator=(const PythonRegex&) = delete;

  /// Nullopt when `pattern` compiles, else the reason.
  static std::optional<std::string> Check(std::string_view pattern);

  /// Number of capture groups.
  [[nodiscard]] int groups() const;
  /// Every non-overlapping match, left to right (`re.finditer`).
  [[nodiscard]] std::vector<RegexMatch> FindAll(std::string_view text) const;
  /// `re.sub(pattern, "", text)`: every match deleted.
  [[nodiscard]] std::string Delete(std::string_view text) const;

 private:
  template <typename Visit>
  void Walk(std::string_view text, Visit&& visit) const;

  void* regex_ = nullptr;  // OnigRegex, opaque so callers need no Oniguruma header
};

}  // namespace infermark::eval
