#include "power/power_fields.hpp"

#include <cmath>

#include "power/power_aggregation.hpp"

namespace infermark::results {
namespace {

std::optional<double> Number(const Json& record, const char* key) {
  const auto it = record.find(key);
  if (it == record.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<long long> Count(const Json& record, const char* key) {
  const auto it = record.find(key);
  if (it != record.end() && it->is_boolean()) return it->get<bool>() ? 1 : 0;
  const auto v = Number(record, key);
  if (!v) return std::nullopt;
  return std::llround(*v);
}

}  // namespace

bool PowerFields::Valid() const {
  return power_valid && *power_valid == 1;
}

bool PowerFields::Invalid() const {
  return power_valid && *power_valid == 0;
}

PowerFields PowerFieldsOf(const Json& record) {
  PowerFields f;
  if (!record.is_object()) return f;
  f.power_valid = Count(record, "power_valid");
  f.power_metric_schema_version = Count(record, "power_metric_schema_version");
  f.avg_power_w = Number(record, "avg_power_w");
  f.total_gpu_energy_j = Number(record, "total_gpu_energy_j");
  f.joules_per_input_token = Number(record, "joules_per_input_token");
  f.joules_per_output_token = Number(record, "joules_per_output_token");
  f.joules_per_total_token = Number(record, "joules_per_total_token");
  return f;
}

bool CarryPowerFields(const Json& from, Json& to) {
  if (!from.is_object() || !to.is_object() || !from.contains("power_valid")) return false;
  to.erase("power_metric_schema_version");
  to.erase("power_valid");
  for (const char* key : kPowerMetricKeys) to.erase(key);
  if (from.contains("power_metric_schema_version"))
    to["power_metric_schema_version"] = from["power_metric_schema_version"];
  to["power_valid"] = from["power_valid"];
  for (const char* key : kPowerMetricKeys) {
    if (from.contains(key)) to[key] = from[key];
  }
  return true;
}

}  // namespace infermark::results
