// Matrix generation: expands master-config search spaces into job rows identical to InferenceX's
// generate_sweep_configs.py (same rows, key order, values and eval marking).
#pragma once

#include <vector>

#include "catalog/master_config.hpp"
#include "catalog/runners.hpp"
#include "core/json_text.hpp"
#include "matrix/sweep_options.hpp"

namespace infermark::matrix {

/// `full-sweep`: every config passing the filters, then eval policy. Throws InputError on bad
/// options (unknown runner type, step size ≤ 1, min > max) or missing runner hardware facts.
std::vector<Json> GenerateFullSweep(const catalog::MasterCatalog& catalog, const catalog::RunnerConfig& runners,
                                    const FullSweepOptions& options);

/// `test-config`: the named (or globbed) keys, then eval policy. Throws InputError listing the
/// available keys when a key or pattern matches nothing.
std::vector<Json> GenerateTestConfig(const catalog::MasterCatalog& catalog, const catalog::RunnerConfig& runners,
                                     const TestConfigOptions& options);

/// Resolves exact keys and fnmatch globs in order, without duplicates.
std::vector<std::string> ExpandConfigKeys(const std::vector<std::string>& patterns,
                                          const catalog::MasterCatalog& catalog);

/// Concurrencies from `start` to `end` multiplying by `step`, always ending at `end`.
std::vector<std::int64_t> ExpandConcurrency(std::int64_t start, std::int64_t end, std::int64_t step);

/// `isl`/`osl` as InferenceX names it: `1k1k`, `8k1k`, else `{isl}_{osl}`.
std::string SeqLenName(std::int64_t isl, std::int64_t osl);

}  // namespace infermark::matrix
