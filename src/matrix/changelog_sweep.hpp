// What a change to perf-changelog.yaml asks to run: the entries added between two git revisions,
// expanded against the master configs into InferenceX's buckets (single_node / multi_node by
// sequence family, evals, changelog_metadata), throughput rows carrying a recipe fingerprint.
#pragma once

#include <string>
#include <vector>

#include "catalog/changelog.hpp"
#include "catalog/master_config.hpp"
#include "catalog/runners.hpp"
#include "core/json_text.hpp"

namespace infermark::matrix {

/// Lines a diff adds to one file, as YAML text, with each line's number in the head revision.
struct AddedLines {
  std::string text;            ///< The added lines joined with '\n'.
  std::vector<int> head_line;  ///< head_line[i]: head-file line of text line i+1.
};

/// Parses `git diff` output for `file`. Throws InputError naming the first deleted non-blank line
/// (the changelog is append-only) or when nothing was added.
AddedLines ParseAddedLines(const std::string& diff, const std::string& file);

/// Runs `git diff BASE HEAD -- FILE` in `repo_dir`; throws InputError when git fails (bad ref…).
std::string GitDiff(const std::string& base_ref, const std::string& head_ref, const std::string& file,
                    const std::string& repo_dir = {});

/// Runs `git show REV:PATH`; throws InputError when git fails.
std::string GitShow(const std::string& rev, const std::string& path, const std::string& repo_dir = {});

/// Options of `infermark changelog`.
struct ChangelogOptions {
  std::string base_ref;     ///< Base revision.
  std::string head_ref;     ///< Head revision.
  bool trim_conc = false;   ///< Keep the smallest concurrency per curve (PR smoke runs).
  bool all_evals = false;   ///< Expand every entry's eval selection.
  bool evals_only = false;  ///< Suppress throughput rows for every entry.
};

/// `sha256` of the row without conc, exp-name and recipe-fingerprint, keys sorted, compact, ASCII.
std::string RecipeFingerprint(const Json& row);

/// The row re-serialized as InferenceX's pydantic models write it: model field order, defaults
/// materialized (`eval-only`, `eval-all-concs`, worker `additional-settings`), nulls dropped.
Json ToModelOrder(const Json& row);

/// Keeps, per single-node curve, only its smallest concurrency; multi-node rows keep `[min(conc)]`.
std::vector<Json> TrimConc(std::vector<Json> rows);

/// Expands `entries` (already validated) against the catalog into the changelog matrix document.
/// Append-only entries (all or none of them) emit only the points `base_catalog` (the base
/// revision's configs) lacks, and may not remove any. Throws InputError when a key or `*` pattern
/// matches no config, or an append-only rule is broken.
Json ExpandChangelog(const std::vector<catalog::ChangelogEntry>& entries, const catalog::MasterCatalog& catalog,
                     const catalog::RunnerConfig& runners, const ChangelogOptions& options,
                     const catalog::MasterCatalog* base_catalog = nullptr);

}  // namespace infermark::matrix
