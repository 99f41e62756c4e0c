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

/// An aligned table, one line per row, with a header and a count line.
std::string FormatTable(const std::vector<Json>& rows);

}  // namespace infermark::matrix
