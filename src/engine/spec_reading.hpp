// Small typed readers shared by the engine's data-file loaders, on top of catalog::FieldReader
// (which records file:line:column problems instead of throwing).
#pragma once

#include <optional>
#include <string_view>

#include "catalog/field_reader.hpp"

namespace infermark::engine {

/// A number > 0; 0 when absent, null (kOptional) or invalid (a problem is recorded when invalid).
double PositiveNumber(catalog::FieldReader& reader, std::string_view key, catalog::Need need);

/// A number in (0, 1]; `fallback` when absent.
double Fraction(catalog::FieldReader& reader, std::string_view key, catalog::Need need, double fallback);

/// A non-negative integer; `fallback` when absent.
int Count(catalog::FieldReader& reader, std::string_view key, catalog::Need need, int fallback);

}  // namespace infermark::engine
