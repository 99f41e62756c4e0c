#include "eval/doc_template.hpp"

#include <cctype>

namespace infermark::eval {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || (std::isalpha(static_cast<unsigned char>(s[0])) == 0 && s[0] != '_')) return false;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_') return false;
  }
  return true;
}

std::string Trim(const std::string& s) {
  std::size_t b = 0;
  std::size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])) != 0) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])) != 0) --e;
  return s.substr(b, e - b);
}

// Jinja writes a value with Python's str(): strings as they are, integers in decimal, booleans
// as True/False. Other kinds would need Python's float and container repr, so they are refused.
std::optional<std::string> PythonStr(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_number_integer()) return v.dump();
  return std::nullopt;
}

}  // namespace

std::optional<std::string> DocTemplate::Compile(const std::string& text, DocTemplate& out) {
  out = DocTemplate{};
  out.source_ = text;
  std::size_t at = 0;
  std::string literal;
  while (at < text.size()) {
    if (text.compare(at, 2, "{%") == 0 || text.compare(at, 2, "{#") == 0) {
      return "template statements and comments ('" + text.substr(at, 2) +
             "') are not supported: only literal text and {{ field }} substitutions";
    }
    if (text.compare(at, 2, "{{") != 0) {
      literal += text[at++];
      continue;
    }
    const std::size_t close = text.find("}}", at + 2);
    if (close == std::string::npos) return "a '{{' at offset " + std::to_string(at) + " is never closed by '}}'";
    std::string inner = text.substr(at + 2, close - at - 2);
    // Jinja's whitespace control ({{- x -}}) would strip the literal text around it.
    if (!inner.empty() &&
        (inner.front() == '-' || inner.front() == '+' || inner.back() == '-' || inner.back() == '+')) {
      return "whitespace control in '{{" + inner + "}}' is not supported";
    }
    const std::string name = Trim(inner);
    if (!IsIdentifier(name)) {
      return "'{{" + inner + "}}' is not a plain field substitution: only {{ field }} is supported (no filters, " +
             "expressions or method calls)";
    }
    if (!literal.empty()) out.pieces_.push_back(Piece{false, std::move(literal)});
    literal.clear();
    out.pieces_.push_back(Piece{true, name});
    at = close + 2;
  }
  if (!literal.empty()) out.pieces_.push_back(Piece{false, std::move(literal)});
  return std::nullopt;
}

std::string DocTemplate::Render(const Json& doc, const SourceMark& mark, const std::string& field) const {
  auto fail = [&](const std::string& rule) { throw InputError(Diagnostic{mark, "", field, rule}); };
  if (doc.is_object() && doc.contains(source_)) {
    const auto value = PythonStr(doc.at(source_));
    if (!value) fail("the document's field '" + source_ + "' is not a string, integer or boolean");
    return *value;
  }
  std::string out;
  for (const Piece& p : pieces_) {
    if (!p.is_field) {
      out += p.text;
      continue;
    }
    if (!doc.is_object() || !doc.contains(p.text)) fail("the document has no field '" + p.text + "'");
    const auto value = PythonStr(doc.at(p.text));
    if (!value) fail("the document's field '" + p.text + "' is not a string, integer or boolean");
    out += *value;
  }
  return out;
}

}  // namespace infermark::eval
