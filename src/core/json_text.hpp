// JSON text written exactly as Python writes it, so infermark's output compares byte for byte with
// InferenceX's (`json.dumps` defaults, pydantic's compact dump, canonical sorted form).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace infermark {

/// Ordered JSON value: objects keep insertion order, as Python dicts do.
using Json = nlohmann::ordered_json;

/// How to lay out JSON text.
struct JsonStyle {
  std::string_view item_separator = ", ";  ///< Between array items and object members.
  std::string_view key_separator = ": ";   ///< Between a key and its value.
  bool sort_keys = false;                  ///< Sort object members by key (code-point order).
  bool ensure_ascii = true;                ///< Escape non-ASCII as \uXXXX (surrogate pairs above U+FFFF).
};

/// Python's `json.dumps(x)`.
inline constexpr JsonStyle kPythonJson{};
/// Compact separators with UTF-8 kept, as pydantic's `model_dump_json()` writes.
inline constexpr JsonStyle kCompactJson{",", ":", false, false};
/// `json.dumps(x, sort_keys=True, separators=(",", ":"), ensure_ascii=True)`.
inline constexpr JsonStyle kCanonicalJson{",", ":", true, true};

/// Appends `value` to `out` in `style`. Floats are written as Python's repr writes them;
/// NaN and infinities as Python's `NaN`, `Infinity`, `-Infinity`.
void AppendJson(std::string& out, const Json& value, const JsonStyle& style = kPythonJson);

/// `value` as text in `style`.
std::string DumpJson(const Json& value, const JsonStyle& style = kPythonJson);

}  // namespace infermark
