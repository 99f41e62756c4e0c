// One eval from start to end: the task read, its documents and prompts built, the requests sent
// (eval_client.hpp), the answers filtered and scored, the aggregates and the verdict. What it
// returns is written by lm_eval_output.hpp; nothing here prints.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "eval/eval_client.hpp"
#include "eval/eval_request.hpp"
#include "eval/task_config.hpp"

namespace infermark::eval {

/// What to run.
struct EvalSettings {
  std::string task;                         ///< A built-in task name ("gsm8k") or a task file.
  EvalClientOptions client;                 ///< Where to send and how.
  std::string model;                        ///< The served model's name.
  std::optional<std::int64_t> num_fewshot;  ///< Overrides the task's num_fewshot.
  std::optional<std::size_t> limit;         ///< Only the first N test documents (lm-eval's --limit).
  std::optional<long long> max_tokens;      ///< max_tokens (default: InferenceX's rule from max_model_len).
  long long max_model_len = 16384;          ///< The context the server was started with.
  double temperature = 0;                   ///< Sampling temperature.
  double top_p = 1;                         ///< Nucleus sampling.
  double max_failed_share = 0;              ///< A larger share of failed requests makes the eval INVALID.
  /// lm-eval's seed: the few-shot sampler's and every request's (`--seed`; a repeat takes the next).
  long long seed = 1234;
};

/// InferenceX's max_tokens for an eval context (run_lm_eval): context − 4096 above 4096 tokens,
/// half of it otherwise, never above 16384.
long long DefaultMaxTokens(long long max_model_len);

/// One scored document.
struct EvalSample {
  std::size_t doc_id = 0;             ///< Position in the test split.
  Json doc;                           ///< The document.
  std::string target;                 ///< doc_to_target.
  std::string prompt;                 ///< What was sent (chat: the messages as JSON text).
  EvalOutcome outcome;                ///< The request's fate.
  std::vector<std::string> filtered;  ///< Per filter (task order): the kept answer.
  std::vector<double> scores;         ///< Per filter: exact_match (first metric).
};

/// A metric over one filter.
struct EvalScore {
  std::string metric;             ///< "exact_match".
  std::string filter;             ///< "strict-match".
  double value = 0;               ///< The mean.
  std::optional<double> stderr_;  ///< Its standard error (nullopt: "N/A").
};

/// The eval's outcome.
struct EvalResult {
  TaskConfig task;                            ///< The task as read.
  std::int64_t num_fewshot = 0;               ///< Examples per prompt.
  std::size_t original_docs = 0;              ///< Test documents in the split.
  std::vector<EvalSample> samples;            ///< Scored documents, in order.
  std::vector<EvalScore> scores;              ///< Per metric and filter.
  GenerationSettings generation;              ///< What every request carried.
  std::map<std::string, std::size_t> errors;  ///< Failed requests by failure class.
  std::size_t failed = 0;                     ///< Requests that failed every attempt.
  std::size_t retried = 0;                    ///< Requests sent more than once.
  bool complete = true;                       ///< Every document was sent (false: stopped early).
  std::vector<std::string> invalid_reasons;   ///< Why the eval is INVALID (empty: valid).
  double start_unix = 0;                      ///< When sending began.
  double end_unix = 0;                        ///< When it ended.
  /// An eval repeated under several seeds (`eval --repeats`): each repeat's seed, scores and
  /// documents (written into the results file's `infermark.repeats`); null for one run.
  Json repeats = nullptr;
};

/// Reads the task named by `settings.task` (built-in name or file). Throws InputError.
TaskConfig LoadTask(const std::string& task);

/// Runs an eval. Throws InputError for bad settings or task files, loadgen::ServerUnreachable
/// when the server cannot be reached.
EvalResult RunEval(const EvalSettings& settings, const std::atomic<bool>* stop = nullptr,
                   const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace infermark::eval
