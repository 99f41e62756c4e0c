// Measured GPU power of a multi-node (disaggregated) row, as InferenceX's
// utils/aggregate_power_multinode.py computes it from srt-slurm's DCGM-exporter package
// (`power/manifest.json`, `power/samples.csv`, `power/windows/*.json`): the package's validity
// recomputed from its bytes and checked against the producer's stored verdict and git commit, the
// roles' GPU counts against the row's, the processed result bound to its measurement window by
// content, then per-GPU energy over that window (the single-node integration), whole-deployment and
// per-role metrics in the agg record and the `power_validation_<name>.json` sidecar, with the
// reference's reason codes, failure texts and exit status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::results {

/// The metric keys a multi-node power aggregation owns in an agg record: the whole-deployment ones
/// (as single-node) then the per-role ones.
inline constexpr const char* kMultinodePowerMetricKeys[] = {
    "avg_power_w",
    "avg_total_gpu_power_w",
    "total_gpu_energy_j",
    "joules_per_successful_query",
    "joules_per_input_token",
    "joules_per_output_token",
    "joules_per_total_token",
    "prefill_gpu_energy_j",
    "decode_gpu_energy_j",
    "prefill_avg_power_w",
    "decode_avg_power_w",
    "prefill_joules_per_input_token",
    "decode_joules_per_output_token",
};

/// What to aggregate (the reference's command-line arguments and environment).
struct MultinodePowerOptions {
  std::string power_dir = "LOGS/power";  ///< The package folder ($POWER_ARTIFACT_DIR).
  std::string logs_root = "LOGS";        ///< Where windows' `result_path` resolve ($POWER_RESULT_ROOT).
  std::string bench_result;              ///< The processed copy of the client result.
  std::string agg_result;                ///< The agg record to patch in place.
  long long prefill_gpus = 0;            ///< The row's prefill GPUs ($PREFILL_GPUS).
  long long decode_gpus = 0;             ///< The row's decode GPUs ($DECODE_GPUS).
  /// The producer git commit the package must name ($POWER_PRODUCER_SHA); none is invalid.
  std::optional<std::string> expected_producer_sha;
  /// Where the sidecar goes; default `power_validation_<bench stem>.json` beside the client result.
  std::optional<std::string> validation_result;
  bool require_power = false;  ///< Exit 1 when power is invalid (REQUIRE_POWER=1 in the reference).
};

/// What one aggregation did.
struct MultinodePowerOutcome {
  bool power_valid = false;           ///< As written to the agg record and the sidecar.
  std::vector<std::string> reasons;   ///< Reason codes in discovery order (empty when valid).
  std::vector<std::string> failures;  ///< The detailed failures the sidecar lists.
  Json metrics = Json::object();      ///< Unrounded metrics in the order written; empty unless valid.
  std::string validation_path;        ///< The sidecar's path as the reference names it.
  int exit_code = 0;                  ///< The reference's exit status: 1 only with require_power.
  std::vector<std::string> messages;  ///< What the reference prints on standard error.
  std::string summary;                ///< What it prints on standard output when power is valid.
};

/// Runs the aggregation. Bad packages, windows or results are reason codes, never exceptions.
/// Throws InputError where the reference fails with a traceback (the client result or the agg
/// record is JSON but not an object). Known difference: the text after `manifest unreadable: ` and
/// after an unwritable agg record's reason is ours, not Python's JSON decoder message.
MultinodePowerOutcome RunMultinodePowerAggregation(const MultinodePowerOptions& options);

}  // namespace infermark::results
