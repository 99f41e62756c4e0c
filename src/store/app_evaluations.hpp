// InferenceX-app evaluation rows (its API's evaluations endpoint: one row per configuration, task
// and run, with `metrics{em_strict, em_flexible, their _se, n_eff}`, `date`, `timestamp`,
// `run_url`) read into evaluations, marked as ingested from InferenceX-app. The configuration is
// mapped as ingest_inferencex_app.hpp maps a benchmark row (hardware → hw, model → model and model
// prefix, spec_method → spec_decoding, decode_* → tp/ep/dp_attention for single-node rows, the
// pools for multi-node rows), so an evaluation links to the app's points of that configuration.
// The rows carry no sequence lengths: isl and osl are 0 (any).
#pragma once

#include <cstddef>
#include <string>

#include "core/eval_thresholds.hpp"
#include "core/json_text.hpp"
#include "results/evaluation.hpp"

namespace infermark::results {

/// True for an InferenceX-app evaluation row: an object with `hardware`, `task` and a `metrics` object.
bool IsAppEvaluationRow(const Json& row);

/// The evaluation of row `index` of `path`: scored when `metrics` has `score` or `em_strict`
/// (`score` wins, as collect_eval_results.py's universal score), else INVALID; the threshold from
/// `thresholds` when given. Throws InputError (`path`, entry `record <index>`, field, rule) for a
/// missing or mistyped field or a score outside [0, 1].
Evaluation EvaluationFromAppRow(const Json& row, const std::string& path, std::size_t index,
                                const EvalThresholds* thresholds);

}  // namespace infermark::results
