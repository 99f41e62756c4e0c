// Helpers the agentic aggregate's parts share (aggregate.cpp, aggregate_server_metrics.cpp,
// aggregate_identity.cpp, aggregate_artifacts.cpp): private to the agentic module.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agentic/profile_export.hpp"

namespace infermark::agentic::detail {

/// Throws the InputError the reference's refusal becomes: `field` (a variable or file) and `rule`.
[[noreturn]] void Refuse(const std::string& field, const std::string& rule);
/// ASCII lower case, as Python's str.lower() on the names the aggregate compares.
std::string Lower(std::string s);
/// Whether `s` begins with `prefix`.
bool StartsWith(std::string_view s, std::string_view prefix);
/// The mean of `v` summed in long double, as the reference's statistics read it.
double Mean(const std::vector<double>& v);
/// `metric` of each record that has a finite value, truncated to a whole number.
std::vector<std::int64_t> Ints(const std::vector<const ProfileRecord*>& records, std::string_view metric);

}  // namespace infermark::agentic::detail
