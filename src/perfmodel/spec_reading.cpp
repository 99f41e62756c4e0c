#include "perfmodel/spec_reading.hpp"

namespace infermark::perfmodel {

double PositiveNumber(FieldReader& reader, std::string_view key, Need need) {
  const std::optional<double> v = reader.Float(key, need);
  if (!v) return 0;
  if (!(*v > 0)) {
    reader.context().Report(reader.node().Find(key), reader.PathOf(key), "must be a number greater than 0");
    return 0;
  }
  return *v;
}

double Fraction(FieldReader& reader, std::string_view key, Need need, double fallback) {
  const std::optional<double> v = reader.Float(key, need);
  if (!v) return fallback;
  if (!(*v > 0 && *v <= 1)) {
    reader.context().Report(reader.node().Find(key), reader.PathOf(key), "must be a fraction in (0, 1]");
    return fallback;
  }
  return *v;
}

int Count(FieldReader& reader, std::string_view key, Need need, int fallback) {
  const std::optional<std::int64_t> v = reader.Int(key, need, 0);
  if (!v) return fallback;
  if (*v > 100'000'000) {
    reader.context().Report(reader.node().Find(key), reader.PathOf(key), "is implausibly large");
    return fallback;
  }
  return static_cast<int>(*v);
}

}  // namespace infermark::perfmodel
