#include "power/indented_json.hpp"

namespace infermark::results {
namespace {

void Append(std::string& out, const Json& value, int indent, int depth) {
  const auto newline = [&](int level) {
    out += '\n';
    out.append(static_cast<std::size_t>(indent * level), ' ');
  };
  if (value.is_object() && !value.empty()) {
    out += '{';
    bool first = true;
    for (const auto& [key, member] : value.items()) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      AppendJson(out, Json(key));
      out += ": ";
      Append(out, member, indent, depth + 1);
    }
    newline(depth);
    out += '}';
  } else if (value.is_array() && !value.empty()) {
    out += '[';
    bool first = true;
    for (const auto& item : value) {
      if (!first) out += ',';
      first = false;
      newline(depth + 1);
      Append(out, item, indent, depth + 1);
    }
    newline(depth);
    out += ']';
  } else {
    AppendJson(out, value);
  }
}

}  // namespace

std::string DumpJsonIndented(const Json& value, int indent) {
  std::string out;
  Append(out, value, indent, 0);
  return out;
}

}  // namespace infermark::results
