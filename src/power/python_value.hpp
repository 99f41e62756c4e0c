// JSON values seen through Python's eyes, for the reference scripts' messages and comparisons:
// `repr()` of a decoded value, `==` between decoded values (numbers by value, dicts without order),
// truthiness, and `int()` / `float()` of text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/json_text.hpp"

namespace infermark::results {

/// Python's `repr()` of the value `json.loads` would give: `None`, `True`, `'text'`, `[1, 2.5]`,
/// `{'a': None}`.
std::string PythonRepr(const Json& value);

/// Python's `repr()` of a string: single quotes unless it holds one and no double quote.
std::string PythonStringRepr(std::string_view text);

/// Python's `a == b` of decoded values: numbers (booleans as 0 and 1) by value, lists in order,
/// dicts as sets of members.
bool PythonEqual(const Json& a, const Json& b);

/// Python's `bool(value)`: false for null, false, 0, empty strings, lists and dicts.
bool PythonTruthy(const Json& value);

/// Python's `int(text)`: surrounding whitespace, a sign and single underscores between digits
/// allowed; nullopt where it raises ValueError (or the value leaves 64 bits).
std::optional<long long> PythonInt(std::string_view text);

/// Python's `float(text)`: decimal and exponent forms, `inf`, `infinity`, `nan` with a sign,
/// surrounding whitespace and underscores between digits; nullopt where it raises ValueError.
std::optional<double> PythonFloat(std::string_view text);

/// Python's f"{value:.2f}" (the power summaries' figures).
std::string PythonFixed2(double value);

}  // namespace infermark::results
