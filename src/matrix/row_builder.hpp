// Builds matrix rows from a config entry and one search-space point, with InferenceX's key order
// and derived fields (max-model-len, exp-name, defaults, router/kv-p2p-transfer metadata).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalog/master_config.hpp"
#include "catalog/runners.hpp"
#include "core/json_text.hpp"

namespace infermark::matrix {

/// Single-node fixed-seq-len row for one concurrency; `ep` is the (possibly clamped) entry EP.
Json SingleNodeRow(const catalog::MasterEntry& config, const std::string& runner, std::int64_t isl, std::int64_t osl,
                   const catalog::SearchSpaceEntry& point, std::int64_t conc, std::optional<std::int64_t> ep);

/// Multi-node fixed-seq-len row holding the whole concurrency list.
Json MultiNodeRow(const catalog::MasterEntry& config, const std::string& runner, std::int64_t isl, std::int64_t osl,
                  const catalog::SearchSpaceEntry& point, const std::vector<std::int64_t>& conc);

/// Agentic-coding rows of one point (one per concurrency and runner; multi-node one per batch).
void AppendAgenticRows(const catalog::MasterEntry& config, const catalog::RunnerConfig& runners,
                       const catalog::AgenticConfig& scenario, const catalog::SearchSpaceEntry& point,
                       const std::vector<std::int64_t>& conc, const std::vector<std::string>& runner_values,
                       std::vector<Json>& rows);

}  // namespace infermark::matrix
