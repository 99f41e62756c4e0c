// Reading one eval folder (docs/evals.md, "Eval folders"): lm-eval's results_<stamp>.json (or its
// invalid_/incomplete_ variants), InferenceX's meta_env.json and infermark's eval_status.json, into
// the evaluation the store keeps. A folder without eval_status.json is read as
// collect_eval_results.py reads it: the newest results file that names lm_eval_version, the task's
// strict and flexible filters by name, n-samples' effective count, the configuration from
// meta_env.json.
#pragma once

#include <string>
#include <vector>

#include "core/eval_thresholds.hpp"
#include "results/evaluation.hpp"

namespace infermark::results {

/// eval_status.json's schema name.
inline constexpr const char* kEvalStatusSchema = "infermark.eval_status/1";

/// True when `dir` is an eval folder: it holds eval_status.json or meta_env.json.
bool IsEvalFolder(const std::string& dir);

/// The eval folders at or below `paths` (folders only; files are ignored), sorted. A folder with
/// eval folders below it that hold eval_status.json (a multi-node row's `conc<N>/`) is left to
/// them. Throws InputError for a path that does not exist.
std::vector<std::string> FindEvalFolders(const std::vector<std::string>& paths);

/// The evaluation of folder `dir`. A threshold from eval_status.json stands; otherwise
/// `thresholds` (when given) supplies one for the task and model prefix, and the verdict follows.
/// Throws InputError naming the file, the field and the rule for a missing meta_env.json, a file
/// that is not JSON, a field of the wrong type, an unknown status, a scored status without a score
/// or a status whose score disagrees with its results file.
Evaluation ReadEvalFolder(const std::string& dir, const EvalThresholds* thresholds = nullptr);

}  // namespace infermark::results
