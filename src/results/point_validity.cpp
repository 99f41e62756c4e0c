#include "results/point_validity.hpp"

#include <string_view>

namespace infermark::results {
namespace {

constexpr std::string_view kInvalid = "INVALID";
constexpr std::string_view kValid = "VALID";
constexpr std::string_view kIncomplete = " (incomplete)";

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

PointValidity ValidityOf(const std::string& verdict) {
  PointValidity v;
  std::string_view text = verdict;
  if (StartsWith(text, kInvalid)) {
    v.valid = false;
    v.verdict = kInvalid;
  } else if (StartsWith(text, kValid)) {
    v.verdict = kValid;
  }
  if (v.valid) return v;
  // result_files.cpp writes `INVALID: a; b` and appends ` (incomplete)` for an unfinished run.
  bool incomplete = false;
  if (text.size() >= kIncomplete.size() && text.substr(text.size() - kIncomplete.size()) == kIncomplete) {
    incomplete = true;
    text.remove_suffix(kIncomplete.size());
  }
  text.remove_prefix(kInvalid.size());
  if (StartsWith(text, ":")) text.remove_prefix(1);
  while (StartsWith(text, " ")) text.remove_prefix(1);
  while (!text.empty()) {
    const std::size_t end = text.find("; ");
    const std::string_view reason = text.substr(0, end);
    if (!reason.empty()) v.reasons.emplace_back(reason);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 2);
  }
  if (incomplete) v.reasons.emplace_back("the result says the run did not finish (incomplete)");
  return v;
}

}  // namespace infermark::results
