// GPU power of a repeated point: each repeat's result is integrated over its own window (the one
// telemetry CSV spans them all), then the point's result is combined again from the patched
// repeats, so its power figures are medians over the repeats like every other figure.
#pragma once

#include "power/power_aggregation.hpp"

namespace infermark::runner {

/// `results::RunPowerAggregation(options)` for a result with one measurement; for a combined result
/// (metrics/repeat_result.hpp, `options.bench_result` = `options.agg_result`) the aggregation on each
/// repeat's file beside it (each gets its `power_validation_<repeat>.json`), then the combined result
/// rewritten from them. Valid when every repeat's power is; reasons are prefixed `repeat k: `; the
/// metrics are the combined medians. Throws what the aggregation throws.
results::PowerRunOutcome RunPowerAggregationWithRepeats(const results::PowerRunOptions& options);

}  // namespace infermark::runner
