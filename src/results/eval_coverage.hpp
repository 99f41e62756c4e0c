// How much of an accuracy eval a bundle holds: per filter, the documents its samples file scored,
// against the documents the eval was asked to score. A receipt lists this coverage, and ingest
// refuses a bundle whose coverage is incomplete (docs/results.md, "Measurement receipts").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"
#include "results/evaluation.hpp"

namespace infermark::results {

/// The coverage of one eval folder.
struct EvalCoverage {
  std::string folder;              ///< The folder, relative to the bundle's artifacts.
  std::string key;                 ///< The evaluation's key (Evaluation::EvalKey).
  std::string task;                ///< `gsm8k`.
  std::string status;              ///< `scored`, `not_run`, `invalid` or `incomplete`.
  long long eval_concurrency = 0;  ///< The eval's request concurrency (0: unknown).
  std::string result_filename;     ///< The row's RESULT_FILENAME.
  /// Documents the eval was asked to score: its limit, or the task's test split when unlimited
  /// (lm-eval's `n-samples.original`), as the results file says; 0 when nothing ran.
  long long documents = 0;
  /// Per filter named by the results file (`strict-match`, `flexible-extract`), the distinct
  /// documents its samples file holds, in the results file's order.
  std::vector<std::pair<std::string, long long>> filters;

  /// The coverage as the receipt lists it.
  [[nodiscard]] Json ToJson() const;
};

/// The coverage of eval folder `dir` (whose evaluation ReadEvalFolder gave as `eval`); `folder` is
/// what the receipt calls it. Appends a problem naming the folder when the coverage is incomplete:
/// an eval stopped before its end (`incomplete`), a scored eval without its results or samples
/// file, one whose effective documents fall short of its limit (or of the whole split when it had
/// none), or a filter whose samples cover fewer documents than were scored; and when a not-run eval
/// gives no reason.
EvalCoverage MeasureEvalCoverage(const std::string& dir, const std::string& folder, const Evaluation& eval,
                                 std::vector<Diagnostic>& problems);

}  // namespace infermark::results
