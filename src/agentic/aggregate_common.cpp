#include "agentic/detail/aggregate_common.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/diagnostic.hpp"

namespace infermark::agentic::detail {

void Refuse(const std::string& field, const std::string& rule) {
  throw InputError(Diagnostic{SourceMark{}, "", field, rule});
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

double Mean(const std::vector<double>& v) {
  long double sum = 0;
  for (double x : v) sum += x;
  return static_cast<double>(sum / static_cast<long double>(v.size()));
}

std::vector<std::int64_t> Ints(const std::vector<const ProfileRecord*>& records, std::string_view metric) {
  std::vector<std::int64_t> out;
  for (const ProfileRecord* r : records) {
    const auto v = r->Metric(metric);
    if (v && std::isfinite(*v)) out.push_back(static_cast<std::int64_t>(std::trunc(*v)));
  }
  return out;
}

}  // namespace infermark::agentic::detail
