// The power fields of a processed record (InferenceX's agg format, fixed-length or agentic): what
// the power aggregation wrote (`power_metric_schema_version`, `power_valid`, and the energy metrics
// when valid), as the store, the CSV export and the report read them.
#pragma once

#include <optional>

#include "core/json_text.hpp"

namespace infermark::results {

/// A record's power fields; absent ones stay empty (records from before power telemetry have none).
struct PowerFields {
  std::optional<long long> power_valid;                  ///< 1 valid, 0 not (`power_valid`).
  std::optional<long long> power_metric_schema_version;  ///< 2: whole-deployment energy per unprefixed metric.
  std::optional<double> avg_power_w;                     ///< Average power per GPU over the window, W.
  std::optional<double> total_gpu_energy_j;              ///< Energy of every GPU over the window, J.
  std::optional<double> joules_per_input_token;          ///< Energy per input token, J.
  std::optional<double> joules_per_output_token;         ///< Energy per output token, J.
  std::optional<double> joules_per_total_token;          ///< Energy per input or output token, J.

  /// True when the record says its power is valid (`power_valid` 1).
  [[nodiscard]] bool Valid() const;
  /// True when the record says its power is not valid (`power_valid` 0).
  [[nodiscard]] bool Invalid() const;
};

/// The power fields of processed record `record` (`power_valid` also as a JSON boolean).
PowerFields PowerFieldsOf(const Json& record);

/// Copies the power fields of `from` (`power_metric_schema_version`, `power_valid` and every key of
/// kPowerMetricKeys) over those of `to`, in that order, when `from` has `power_valid`: a client
/// result the power aggregation patched keeps its power in the record made from it. Returns whether
/// it copied.
bool CarryPowerFields(const Json& from, Json& to);

}  // namespace infermark::results
