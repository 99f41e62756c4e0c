// A batch of evals as InferenceX's run_eval runs one when given several concurrencies: one eval
// per concurrency against the same server, in order, each concurrency's lm-eval files written
// under InferenceX's batched names and one meta_env.json whose manifest (eval_concs,
// completed_eval_concs, failed_eval_concs; core/eval_batch.hpp) is rewritten after each, so a batch
// cut short still says what it finished. A concurrency whose eval is INVALID, incomplete or cannot
// reach the server is failed and the batch goes on; a stop request ends it (the concurrencies it
// never reached are in neither list). `infermark eval --concurrency A,B` and the runner's batched
// eval rows both run evals this way.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/eval_batch.hpp"
#include "eval/eval_run.hpp"
#include "eval/lm_eval_output.hpp"

namespace infermark::eval {

/// One concurrency of a batch.
struct BatchedEval {
  long long concurrency = 0;          ///< The eval's request concurrency.
  bool completed = false;             ///< It finished VALID (its results file names lm_eval_version).
  std::optional<EvalResult> result;   ///< What ran (none: the server could not be reached).
  std::vector<std::string> problems;  ///< Why it failed: its INVALID reasons, or why nothing ran.
  WrittenFiles files;                 ///< The results and samples files written (empty: none).
};

/// A batch's outcome.
struct BatchedEvalRun {
  std::vector<BatchedEval> evals;  ///< The concurrencies that ran (or were tried), in order.
  EvalBatch manifest;              ///< What meta_env.json says.
  std::string meta_env;            ///< meta_env.json's path.
  bool stopped = false;            ///< A stop request ended it before every concurrency ran.
};

/// Called before each concurrency's eval starts; returns the stop flag that eval obeys (null: the
/// batch's). The runner uses it to bound each eval by its row's deadline.
using BeforeEachEval = std::function<const std::atomic<bool>*(long long conc)>;
/// Called after each concurrency's files are written (the runner writes its status file then).
using AfterEachEval = std::function<void(const BatchedEval&)>;
/// Progress of the running eval: concurrency, answered, total.
using BatchProgress = std::function<void(long long conc, std::size_t done, std::size_t total)>;

/// Runs `settings` at each of `concs` (positive, distinct) against the same server, writing into
/// `dir` (created when missing) each concurrency's files (WriteBatchedEvalFiles) and meta_env.json
/// (MetaEnvJson of `env`, with the manifest). `run` describes every eval but its concurrency.
/// Throws InputError for bad settings or task files (before anything is written).
BatchedEvalRun RunBatchedEval(const EvalSettings& settings, const std::vector<long long>& concs,
                              const RunDescription& run, const std::string& dir, const EnvLookup& env,
                              const std::atomic<bool>* stop = nullptr, const BeforeEachEval& before = {},
                              const AfterEachEval& after = {}, const BatchProgress& progress = {});

}  // namespace infermark::eval
