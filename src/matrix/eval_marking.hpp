// Eval selection on generated rows, as InferenceX's mark_eval_entries / mark_all_eval_entries do:
// only 8k1k fixed rows qualify; single-node groups get their highest and upper-median concurrency
// (≥ 16), multi-node topologies their highest eligible concurrency.
#pragma once

#include <vector>

#include "core/json_text.hpp"
#include "matrix/sweep_options.hpp"

namespace infermark::matrix {

/// Smallest concurrency an eval runs at.
inline constexpr std::int64_t kMinEvalConc = 16;

/// Sets `run-eval` on every row (and `eval-conc` on chosen multi-node rows).
void MarkEvalEntries(std::vector<Json>& rows, bool include_agentic);

/// Turns every 8k1k fixed row into an eval, batching multi-node concurrencies per topology.
std::vector<Json> MarkAllEvalEntries(std::vector<Json> rows);

/// Applies the eval flags the way the reference's main() does, after generation.
std::vector<Json> ApplyEvalPolicy(std::vector<Json> rows, const EvalOptions& options);

}  // namespace infermark::matrix
