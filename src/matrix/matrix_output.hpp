// Presenting a generated matrix: the exact JSON InferenceX prints, an aligned table for people,
// and a GitHub Actions `{"include": [...]}` document (at most 256 jobs, as GitHub allows).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::matrix {

/// GitHub Actions refuses a matrix with more jobs than this.
inline constexpr std::size_t kGithubMatrixLimit = 256;

/// Part K of N (1-based) of a matrix.
struct Shard {
  std::size_t index = 1;  ///< K, 1..count.
  std::size_t count = 1;  ///< N, at least 1.
};

/// Parses `K/N`; throws InputError naming the flag on anything else.
Shard ParseShard(const std::string& text);

/// Rows of shard `shard`: contiguous, sizes differing by at most one.
std::vector<Json> SelectShard(const std::vector<Json>& rows, const Shard& shard);

/// `json.dumps(rows)` exactly as InferenceX's generator prints it, plus a newline.
std::string FormatJson(const std::vector<Json>& rows);

/// `{"include": rows}`; throws InputError when rows exceed kGithubMatrixLimit.
std::string FormatGithub(const std::vector<Json>& rows);

/// The rows as GitHub Actions job outputs, `NAME=VALUE` lines to append to `$GITHUB_OUTPUT`:
/// `single-node` and `multi-node` (FormatGithub documents of the rows without and with prefill and
/// decode worker blocks, one line each) and `single-node-jobs`, `multi-node-jobs` (their sizes), so
/// that a workflow fans each kind out to its own job template. Throws InputError when either
/// matrix exceeds kGithubMatrixLimit, suggesting the `--shard K/N` that fits.
std::string FormatGithubOutputs(const std::vector<Json>& rows);

/// The rows of a changelog document (`infermark changelog`'s output): its `single_node` and
/// `multi_node` buckets in order, then `evals`, `agentic_evals`, `multinode_evals` and
/// `multinode_agentic_evals`.
std::vector<Json> ChangelogRows(const Json& doc);

/// An aligned table, one line per row, with a header and a count line.
std::string FormatTable(const std::vector<Json>& rows);

}  // namespace infermark::matrix
