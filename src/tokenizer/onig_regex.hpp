// Regular expressions with Oniguruma, the engine Hugging Face `tokenizers` uses for Split patterns,
// compiled and iterated exactly as it does (UTF-8, default syntax, no options, rust-onig's
// find_iter), so \p{…} classes, \s, case folding and lookarounds mean the same thing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace infermark::tokenizer {

/// A compiled Oniguruma pattern; immutable and safe to search from several threads at once.
class OnigRegex {
 public:
  /// Compiles `pattern`; throws std::invalid_argument carrying Oniguruma's message when it is invalid.
  explicit OnigRegex(std::string_view pattern);
  ~OnigRegex();
  OnigRegex(OnigRegex&& other) noexcept;
  OnigRegex& operator=(OnigRegex&& other) noexcept;
  OnigRegex(const OnigRegex&) = delete;
  OnigRegex& operator=(const OnigRegex&) = delete;

  /// The pattern as given.
  [[nodiscard]] const std::string& pattern() const { return pattern_; }

  /// Searches `text` from byte `from`; on a match stores its byte range and returns true.
  bool Search(std::string_view text, std::size_t from, std::size_t& begin, std::size_t& end) const;

 private:
  void* regex_ = nullptr;  // OnigRegex (kept opaque so callers need no Oniguruma header)
  std::string pattern_;
};

/// Successive non-overlapping matches of a regex in a text, as rust-onig's `find_iter` yields them:
/// an empty match right after a non-empty one is skipped, and the search then moves one character on.
class RegexMatches {
 public:
  /// Iterates the matches of `regex` in `text`; both must outlive the iterator.
  RegexMatches(const OnigRegex& regex, std::string_view text) : regex_(regex), text_(text) {}

  /// Stores the next match's byte range and returns true, or returns false when there is none.
  bool Next(std::size_t& begin, std::size_t& end);

 private:
  const OnigRegex& regex_;
  std::string_view text_;
  std::size_t last_end_ = 0;
  bool skip_next_empty_ = false;
};

}  // namespace infermark::tokenizer
