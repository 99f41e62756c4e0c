// Small typed readers shared by the engine's data-file loaders, on top of FieldReader
// (which records file:line:column problems instead of throwing).
#pragma once

#include <optional>
#include <string_view>

#include "core/field_reader.hpp"

namespace infermark::perfmodel {

/// A number > 0; 0 when absent, null (kOptional) or invalid (a problem is recorded when invalid).
double PositiveNumber(FieldReader& reader, std::string_view key, Need need);

/// A number in (0, 1]; `fallback` when absent.
double Fraction(FieldReader& reader, std::string_view key, Need need, double fallback);

/// A non-negative integer; `fallback` when absent.
int Count(FieldReader& reader, std::string_view key, Need need, int fallback);

}  // namespace infermark::perfmodel
