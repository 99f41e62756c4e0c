// JSON text laid out as Python's `json.dump(x, f, indent=N)` writes it, so processed result files
// match InferenceX's byte for byte.
#pragma once

#include <string>

#include "core/json_text.hpp"

namespace infermark::results {

/// `json.dumps(value, indent=indent)`: one member per line, `", "` becomes `","` at line ends,
/// empty containers as `{}`/`[]`, scalars as Python writes them (ASCII escapes, float repr).
std::string DumpJsonIndented(const Json& value, int indent = 2);

}  // namespace infermark::results
