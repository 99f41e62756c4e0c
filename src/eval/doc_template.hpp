// The part of Jinja that lm-evaluation-harness task files use for `doc_to_text` and
// `doc_to_target`: literal text with `{{ field }}` substitutions of a document's fields, rendered
// with a strict undefined (a missing field is an error) and trailing newlines kept. Anything else
// Jinja would accept (`{% %}`, `{# #}`, filters, expressions, method calls) is refused when the
// task file is read, naming the place, instead of being rendered differently.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"

namespace infermark::eval {

/// A compiled template.
class DocTemplate {
 public:
  DocTemplate() = default;
  /// Compiles `text`; returns the rule broken (for a Diagnostic) when it uses what is not supported.
  static std::optional<std::string> Compile(const std::string& text, DocTemplate& out);

  /// Renders against `doc` (a JSON object of the document's fields) as lm-eval does: a template
  /// that is exactly a field's name yields that field; otherwise substitutions are made. Throws
  /// InputError (at `mark`, field `field`) for a field the document lacks or that is not a scalar.
  [[nodiscard]] std::string Render(const Json& doc, const SourceMark& mark, const std::string& field) const;

  /// The template as written.
  [[nodiscard]] const std::string& source() const { return source_; }

 private:
  struct Piece {
    bool is_field = false;
    std::string text;  // literal text, or the field's name
  };
  std::string source_;
  std::vector<Piece> pieces_;
};

}  // namespace infermark::eval
