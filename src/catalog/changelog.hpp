// Typed model of InferenceX `perf-changelog.yaml`: an append-only list of entries, each naming the
// config keys (exact or `*` globs) a change touched and how to sweep them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"

namespace infermark::catalog {

/// One changelog entry.
struct ChangelogEntry {
  SourceMark mark;                                        ///< Where the entry starts.
  std::vector<std::string> config_keys;                   ///< `config-keys`: exact keys or `*` globs.
  std::vector<std::string> description;                   ///< `description` lines.
  std::string pr_link;                                    ///< `pr-link`.
  bool evals_only = false;                                ///< `evals-only`.
  bool all_evals = false;                                 ///< `all-evals`.
  bool append_only = false;                               ///< `append-only`.
  std::optional<std::int64_t> eval_min_prefill_ep;        ///< `eval-min-prefill-ep`.
  std::optional<std::vector<std::string>> scenario_type;  ///< `scenario-type` (absent = both).
};

}  // namespace infermark::catalog
