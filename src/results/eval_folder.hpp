// Reading one eval folder (docs/evals.md, "Eval folders"): lm-eval's results_<stamp>.json (or its
// invalid_/incomplete_ variants), InferenceX's meta_env.json and infermark's eval_status.json, into
// the evaluations the store keeps. A folder without eval_status.json is read as
// collect_eval_results.py reads it: the newest results file that names lm_eval_version, the task's
// strict and flexible filters by name, n-samples' effective count, the configuration from
// meta_env.json. A batched folder (meta_env.json with `eval_concs`, core/eval_batch.hpp) holds one
// evaluation per concurrency: each from its `eval_status_conc<N>.json` when infermark's runner
// wrote one, else from the newest `…_conc<N>` results file of a completed concurrency; a failed
// one is INVALID and one neither completed nor failed not run.
#pragma once

#include <string>
#include <vector>

#include "results/evaluation.hpp"

namespace infermark::results {

/// eval_status.json's schema name.
inline constexpr const char* kEvalStatusSchema = "infermark.eval_status/1";

/// True when `dir` is an eval folder: it holds eval_status.json or meta_env.json.
bool IsEvalFolder(const std::string& dir);

/// The eval folders at or below `paths` (folders only; files are ignored), sorted. A folder with
/// eval folders below it that hold eval_status.json (the `conc<N>/` folders earlier versions wrote
/// for a multi-node row's evals) is left to them. Throws InputError for a path that does not exist.
std::vector<std::string> FindEvalFolders(const std::vector<std::string>& paths);

/// The evaluations of folder `dir`: one, or one per concurrency of a batched folder (in its
/// `eval_concs` order). A threshold from a status file stands; otherwise `thresholds` (when given)
/// supplies one for the task and model prefix (the gate's rule), and the verdict follows. Throws
/// InputError naming the file, the field and the rule for a missing meta_env.json, a file that is
/// not JSON, a field of the wrong type, a batch manifest that is not lists of distinct positive
/// concurrencies, an unknown status, a scored status without a score, a status whose score
/// disagrees with its results file or whose concurrency is not its file name's.
std::vector<Evaluation> ReadEvalFolder(const std::string& dir, const EvalThresholds* thresholds = nullptr);

}  // namespace infermark::results
