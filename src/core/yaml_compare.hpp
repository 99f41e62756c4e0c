// Structural equality of YAML trees, marks included.
#pragma once

#include <cmath>

#include "core/yaml_node.hpp"

namespace infermark {

/// Whether `a` and `b` are the same tree: kinds, marks, texts, resolved values (NaN equal to NaN)
/// and children in order.
inline bool SameYamlTree(const YamlNode& a, const YamlNode& b) {
  const bool same_float = a.float_value == b.float_value || (std::isnan(a.float_value) && std::isnan(b.float_value));
  if (a.kind != b.kind || a.line != b.line || a.column != b.column || a.text != b.text ||
      a.bool_value != b.bool_value || a.int_value != b.int_value || a.int_overflow != b.int_overflow || !same_float ||
      a.items.size() != b.items.size() || a.entries.size() != b.entries.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.items.size(); ++i) {
    if (!SameYamlTree(a.items[i], b.items[i])) return false;
  }
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    if (!SameYamlTree(a.entries[i].first, b.entries[i].first) ||
        !SameYamlTree(a.entries[i].second, b.entries[i].second)) {
      return false;
    }
  }
  return true;
}

}  // namespace infermark
