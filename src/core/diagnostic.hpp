// Diagnostics for bad user input: where (file:line:column), what (entry key and field path) and
// which rule was broken. Every input problem in infermark is reported through this one shape.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace infermark {

/// A position in a user-supplied file; line and column are 1-based, 0 when unknown.
struct SourceMark {
  std::string file;  ///< Path as the user gave it.
  int line = 0;      ///< 1-based line, 0 when the problem concerns the whole file.
  int column = 0;    ///< 1-based column, 0 when unknown.
};

/// One problem found in user input.
struct Diagnostic {
  SourceMark mark;    ///< Where the offending value starts.
  std::string entry;  ///< Top-level entry (config key, changelog index); may be empty.
  std::string field;  ///< Field path inside the entry, e.g. `scenarios.fixed-seq-len[0].search-space[1].tp`.
  std::string rule;   ///< The rule broken, phrased for a person.

  /// `file:line:col: entry 'key' field 'path': rule`, omitting the parts that are empty.
  [[nodiscard]] std::string ToString() const;
};

/// Thrown when user input cannot be used; carries every diagnostic found (at least one).
class InputError : public std::runtime_error {
 public:
  explicit InputError(Diagnostic diagnostic);
  explicit InputError(std::vector<Diagnostic> diagnostics);

  /// All problems, in the order they were found.
  [[nodiscard]] const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace infermark
