// RESULT_FILENAME: the stem InferenceX gives every result file of a matrix row (benchmark
// templates, spec §3.1), so results written by infermark land under the names InferenceX expects.
#pragma once

#include <string>

#include "core/json_text.hpp"

namespace infermark::matrix {

/// The result file stem for `row` run on the concrete runner `runner_name` (e.g. `mi355x-amds_03`).
/// Single-node and agentic rows: `{exp}_{prec}_{fw}_tp{tp}-pp{pp}-dcp{dcp}-pcp{pcp}-ep{ep}-dpa{dpa}
/// _disagg-{disagg}_spec-{sd}_conc{conc}_{runner}`; multi-node rows name both worker pools and join
/// their concurrency list with `x`. A row's `recipe-fingerprint` appends `_recipe-` and its first
/// 16 hex digits. Throws std::invalid_argument when the row lacks a field the name needs.
std::string ResultFilename(const Json& row, const std::string& runner_name);

/// The host name, used as the runner name when none is given.
std::string DefaultRunnerName();

}  // namespace infermark::matrix
