// The advisory AMD energy-accumulator cross-check of InferenceX's utils/aggregate_power.py: the
// `amd-smi metric -E` snapshots taken when the monitor started and stopped
// (`<csv stem>_energy_start.csv`, `<csv stem>_energy_end.csv` beside the telemetry CSV), their
// per-GPU delta against the trapezoid integral of the whole power stream. Never affects validity.
#pragma once

#include <string>

#include "core/json_text.hpp"

namespace infermark::results {

/// The relative error the check tolerates.
inline constexpr double kAccumulatorTolerance = 0.05;

/// The sidecar's `accumulator_check` for the telemetry CSV at `csv_path`: null when neither
/// snapshot exists; `{available: false, reason}` with `missing_start_snapshot`,
/// `missing_end_snapshot`, `unparseable_start_snapshot`, `unparseable_end_snapshot` or
/// `cross_check_error` (a file could not be read); else `{available: true, accumulator_delta_j,
/// integrated_stream_j, relative_error, within_tolerance, tolerance, per_gpu_delta_j,
/// integrated_gpu_ids, unmatched_gpus, negative_delta_gpus, stream_span_s}` as the reference
/// writes it. Throws InputError only where the reference fails too (the CSV path has no file name).
Json CrossCheckAccumulator(const std::string& csv_path);

}  // namespace infermark::results
