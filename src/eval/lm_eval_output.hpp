// An eval's files as lm-evaluation-harness writes them with --log_samples, flat in one folder as
// InferenceX's append_lm_eval_summary leaves them: results_<timestamp>.json (per task the metric
// per filter and its stderr, the task config, n-shot, n-samples, the run's config) and
// samples_<task>_<timestamp>.jsonl (one line per document and filter), plus InferenceX's
// meta_env.json from the launcher environment. A run that is INVALID or incomplete writes
// invalid_results_… / incomplete_results_… without `lm_eval_version`, so that neither
// collect_eval_results.py nor validate_scores.py takes its score for a finished one.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/json_text.hpp"
#include "eval/eval_run.hpp"

namespace infermark::eval {

/// How the run was called, for the results file's `config` and `model_name`.
struct RunDescription {
  std::string model;                 ///< The served model's name.
  std::string base_url;              ///< Where requests went.
  bool chat = true;                  ///< Chat completions with the chat template (else completions).
  std::size_t concurrency = 1;       ///< Requests in flight.
  int max_retries = 5;               ///< Attempts per request.
  long long max_model_len = 0;       ///< max_length.
  std::optional<std::size_t> limit;  ///< --limit.
};

/// Reads an environment variable (a seam for tests); nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

/// `datetime.now().isoformat()` with ':' replaced by '-' (lm-eval's file stamp).
std::string FileStamp();

/// The results file's JSON.
Json ResultsJson(const EvalResult& result, const RunDescription& run);
/// The samples file's lines.
std::string SamplesJsonl(const EvalResult& result);
/// InferenceX's meta_env.json from the launcher environment (as _write_lm_eval_meta_json writes it).
Json MetaEnvJson(const EnvLookup& env, const std::string& model, std::size_t concurrency);

/// The files written.
struct WrittenFiles {
  std::string results;   ///< The results file.
  std::string samples;   ///< The samples file.
  std::string meta_env;  ///< meta_env.json.
};

/// Writes the three files into `dir` (created when missing); without `meta_env`, lm-eval's two
/// files alone (an eval's repeat: its folder is not an eval folder of its own).
WrittenFiles WriteEvalFiles(const std::string& dir, const EvalResult& result, const RunDescription& run,
                            const EnvLookup& env, bool meta_env = true);

/// Writes one concurrency's results and samples files of a batch into `dir` (created when
/// missing) under InferenceX's batched names (core/eval_batch.hpp): `results_<stamp>_conc<N>.json`
/// and `samples_<task>_<stamp>_conc<N>.jsonl`, `_2`, `_3`, … when a name is taken (a re-run
/// whose files repeat their names). `stamp` is lm-eval's file stamp (FileStamp()). Writes no
/// meta_env.json: a batch has one (eval/batched_eval.hpp). `meta_env` is left empty.
WrittenFiles WriteBatchedEvalFiles(const std::string& dir, const EvalResult& result, const RunDescription& run,
                                   const std::string& stamp);

}  // namespace infermark::eval
