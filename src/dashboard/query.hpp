// A request's query string read strictly: percent-decoded name/value pairs, every name checked
// against the route's known parameters, every value against its rule. A problem is a QueryError
// naming the parameter, which the API answers with 400.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::dashboard {

/// A bad request parameter (answered with 400 and the field named).
class QueryError : public std::runtime_error {
 public:
  /// `field` is the parameter's name, `message` the rule it broke.
  QueryError(std::string field, const std::string& message);
  /// The parameter's name.
  [[nodiscard]] const std::string& field() const { return field_; }

 private:
  std::string field_;
};

/// A decoded query: each name with its values in order; `a=1&a=2` and `a=1,2` both give two values.
class Query {
 public:
  /// Decodes `text` (the target after '?'): `+` is a space, `%XX` a byte. Throws QueryError for a
  /// malformed escape or a parameter without a name.
  static Query Parse(std::string_view text);

  /// Throws QueryError naming the first parameter not in `allowed`.
  void RequireKnown(const std::set<std::string, std::less<>>& allowed) const;
  /// Every value of `name`, comma lists split, empty items dropped; empty when absent.
  [[nodiscard]] std::vector<std::string> List(std::string_view name) const;
  /// The one value of `name`, or nullopt when absent; throws QueryError when given more than once
  /// or empty.
  [[nodiscard]] std::optional<std::string> Single(std::string_view name) const;
  /// Whether `name` was given.
  [[nodiscard]] bool Has(std::string_view name) const;

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
};

/// `text` as a finite number, or a QueryError naming `field`.
double ParseNumber(std::string_view field, const std::string& text);
/// `text` as a whole number ≥ 0, or a QueryError naming `field`.
long long ParseCount(std::string_view field, const std::string& text);
/// `true` or `false`, or a QueryError naming `field`.
bool ParseBool(std::string_view field, const std::string& text);
/// A date `YYYY-MM-DD` (a longer ISO timestamp is cut to its date), or a QueryError naming `field`.
std::string ParseDate(std::string_view field, const std::string& text);

}  // namespace infermark::dashboard
