#include "core/diagnostic.hpp"

#include <utility>

namespace infermark {

std::string Diagnostic::ToString() const {
  std::string out;
  if (!mark.file.empty()) {
    out += mark.file;
    if (mark.line > 0) {
      out += ':' + std::to_string(mark.line);
      if (mark.column > 0) out += ':' + std::to_string(mark.column);
    }
    out += ": ";
  }
  if (!entry.empty()) out += "entry '" + entry + "' ";
  if (!field.empty()) out += "field '" + field + "' ";
  if (!entry.empty() || !field.empty()) {
    out.back() = ':';
    out += ' ';
  }
  out += rule;
  return out;
}

namespace {
std::string Join(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += '\n';
    text += d.ToString();
  }
  return text;
}
}  // namespace

InputError::InputError(Diagnostic diagnostic) : InputError(std::vector<Diagnostic>{std::move(diagnostic)}) {}

InputError::InputError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(Join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace infermark
