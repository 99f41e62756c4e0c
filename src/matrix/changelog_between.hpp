// process_changelog.py as one call: read the perf-changelog entries added between two git
// revisions (git diff, append-only check, strict validation with marks on the head file's own
// lines), load the catalog (and the base revision's for append-only entries) and expand them.
#pragma once

#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "matrix/changelog_sweep.hpp"

namespace infermark::matrix {

/// Where the changelog and the catalog come from.
struct ChangelogRequest {
  ChangelogOptions options;                            ///< Revisions and flags.
  std::string changelog_file = "perf-changelog.yaml";  ///< Path inside the repository.
  std::vector<std::string> config_files;               ///< Master configs (at the head: the working tree).
  std::string runner_config;                           ///< runners.yaml.
  std::string repo;                                    ///< Where git runs (empty: the current folder).
};

/// The changelog matrix document for `request`. Throws InputError for bad revisions, a changelog
/// that is not append-only, invalid entries (marked on the head file's lines) or a key that
/// matches no config.
Json ExpandChangelogBetween(const ChangelogRequest& request);

}  // namespace infermark::matrix
