// A client result (the load generator's or InferenceX's benchmark client's JSON) turned into
// InferenceX's processed `agg_*.json` record: the same fields, order, values and quirks as
// InferenceX's process_result.py (per-GPU throughputs, latencies in seconds, `*_intvty` = 1000/TPOT).
#pragma once

#include <string>

#include "core/json_text.hpp"
#include "results/process_settings.hpp"

namespace infermark::results {

/// What to do where a TPOT statistic is zero, which the reference turns into a division by zero.
enum class ZeroTpot {
  kError,  ///< Refuse the result, naming the key (`results process`: the reference fails too).
  kOmit,   ///< Leave that `*_intvty` out (store ingest: predicted runs can have std TPOT 0).
};

/// Choices beyond the reference's behaviour.
struct ProcessOptions {
  /// Append `power_metric_schema_version: 2, power_valid: 0` as the reference does when no GPU
  /// telemetry was integrated; a result the power aggregation already patched (it has
  /// `power_valid`) gives its own power fields instead (CarryPowerFields).
  bool power_fields = true;
  ZeroTpot zero_tpot = ZeroTpot::kError;  ///< See ZeroTpot.
};

/// Upstream vLLM's key names mapped onto the reference client's, in place: `request_goodput`
/// becomes `"request_goodput:"`, and a missing `total_token_throughput` is computed from the token
/// totals and the duration. Files already in the reference format are unchanged.
void NormalizeClientKeys(Json& result);

/// The agg record for `result` under `settings` (required: RUNNER_TYPE, FRAMEWORK, PRECISION,
/// SPEC_DECODING, ISL, OSL, DISAGG, MODEL_PREFIX, IMAGE, and TP, EP_SIZE, DP_ATTENTION on a single
/// node or the PREFILL_*/DECODE_* set on several). `path` names the result in messages. Throws
/// InputError naming the missing variable, the bad value or the unusable key.
Json ProcessClientResult(const Json& result, const ProcessSettings& settings, const std::string& path,
                         const ProcessOptions& options = {});

}  // namespace infermark::results
