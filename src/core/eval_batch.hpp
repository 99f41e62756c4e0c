// InferenceX's batched eval layout: benchmark_lib.sh's run_eval, given several concurrencies
// (EVAL_CONCURRENT_REQUESTS), evaluates each against the same server and leaves one folder in
// which each concurrency's lm-eval files are renamed `<stem>_conc<N><ext>` (`_conc<N>_2`, `_3`, …
// when the name is taken, as by an earlier run's files), and one meta_env.json whose
// `eval_concs`, `completed_eval_concs` and `failed_eval_concs` say which concurrencies were asked
// for, finished and failed (`conc` is the first). collect_eval_results.py expands such a folder
// into one row per completed concurrency (the newest results file of each), validate_scores.py
// checks the manifest and every results file. src/eval writes the layout and src/results reads
// it; this is the one statement of its rules, in core because both depend on it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark {

/// A batch's manifest, as meta_env.json holds it.
struct EvalBatch {
  std::vector<long long> concs;      ///< `eval_concs`: the concurrencies asked for, in order.
  std::vector<long long> completed;  ///< `completed_eval_concs`: those whose eval finished.
  std::vector<long long> failed;     ///< `failed_eval_concs`: those whose eval failed.

  /// Whether `conc` completed / failed.
  [[nodiscard]] bool Completed(long long conc) const;
  /// See Completed.
  [[nodiscard]] bool Failed(long long conc) const;
};

/// The manifest in a meta_env.json object, or nullopt when it has no `eval_concs` (the folder of
/// one eval). `completed_eval_concs` defaults to `eval_concs` and `failed_eval_concs` to none, as
/// collect_eval_results.py reads them. Throws InputError naming `path` and the field when a field
/// is not a list of positive integers or a list repeats a concurrency (validate_scores.py's rules).
std::optional<EvalBatch> ReadEvalBatch(const Json& meta, const std::string& path);

/// `meta` (a meta_env.json object) with the batch's fields after `conc`, in InferenceX's order,
/// and `conc` set to the first concurrency asked for.
Json WithEvalBatch(const Json& meta, const EvalBatch& batch);

/// The name a concurrency's file `<stem><ext>` gets in `dir`: `<stem>_conc<N><ext>`, or the first
/// of `<stem>_conc<N>_2<ext>`, `_3`, … that no file in `dir` has (_stage_lm_eval_artifacts).
std::string BatchedFileName(const std::string& dir, const std::string& stem, long long conc, const std::string& ext);

/// The concurrency a batched results file's name carries (`…_conc64.json` and `…_conc64_2.json`:
/// 64), or nullopt for any other name (the scripts' `_conc(\d+)(?:_\d+)?\.json$`).
std::optional<long long> BatchedFileConcurrency(const std::string& name);

}  // namespace infermark
