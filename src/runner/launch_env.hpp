// The InferenceX environment contract of a launcher script (reference spec §3.1): the variables
// a benchmark workflow exports from a matrix row, so an InferenceX recipe script runs unchanged
// and an infermark script reads the same names.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::runner {

/// Variables as (name, value) pairs.
using EnvList = std::vector<std::pair<std::string, std::string>>;

/// What the contract needs beyond the row.
struct LaunchContext {
  std::string runner_name;                ///< Concrete runner (RUNNER_NAME); the label is the row's `runner`.
  std::string result_filename;            ///< RESULT_FILENAME (stem, no `.json`).
  std::string result_dir;                 ///< RESULT_DIR: where the script writes server.log and the result.
  int port = 8888;                        ///< PORT.
  std::string infermark;                  ///< INFERMARK: the binary scripts call as their client.
  int prompts_per_conc = 10;              ///< INFERMARK_PROMPTS_PER_CONC (infermark's own scripts).
  int warmups_per_conc = 2;               ///< INFERMARK_WARMUPS_PER_CONC.
  int min_prompts = 0;                    ///< INFERMARK_MIN_PROMPTS: a point's prompts at least (0: no floor).
  std::optional<std::size_t> eval_limit;  ///< EVAL_LIMIT (eval rows): only the first N documents.
  /// An eval row whose eval runs in a batch of its configuration's eval rows on one server
  /// (PlanRows): the row that runs the batch gets the batch's concurrencies (EVAL_CONC) and folder
  /// (EVAL_RESULT_DIR); empty: the row's own.
  std::vector<long long> eval_batch_concs;
  std::string eval_batch_dir;  ///< See eval_batch_concs.
  /// Another row runs this row's eval in its batch: RUN_EVAL=false (the contract stays the row's own).
  bool eval_elsewhere = false;
};

/// The contract for `row`: MODEL, MODEL_PREFIX, EXP_NAME, IMAGE, FRAMEWORK, PRECISION, TP, PP_SIZE,
/// DCP_SIZE, PCP_SIZE, EP_SIZE, DP_ATTENTION, CONC, ISL, OSL, MAX_MODEL_LEN, RANDOM_RANGE_RATIO,
/// SPEC_DECODING, DISAGG, RUN_EVAL, EVAL_ONLY, SCENARIO_TYPE, SCENARIO_SUBDIR, IS_AGENTIC,
/// RECIPE_FINGERPRINT, RESULT_FILENAME, RESULT_DIR, PORT, GPU_COUNT, RUNNER_TYPE (the label's
/// hardware, results::HardwareOfLabel: `cluster:mi355x-local` → `mi355x`), RUNNER_NAME,
/// ROUTER_METADATA (JSON) and KV_P2P_TRANSFER when the row has them, and infermark's INFERMARK*
/// additions. A multi-node row (prefill and decode blocks) also gets the multi-node template's
/// IS_MULTINODE, CONC_LIST (space-separated; CONC only when it holds one value),
/// PREFILL_/DECODE_{NUM_WORKERS,TP,PP_SIZE,DCP_SIZE,PCP_SIZE,EP,DP_ATTN,HARDWARE}, each block's
/// `additional-settings` (`KEY=VALUE`) as variables, PREFILL_GPUS and DECODE_GPUS (what results
/// processing reads), and GPU_COUNT as the GPUs of both pools. Fields a row lacks are left out.
/// Booleans are "true"/"false". An eval row (`run-eval` or `eval-only` true) also gets the eval
/// contract: EVAL_CONC (EvalConcValues, or the batch's; space-separated), EVAL_RESULT_DIR
/// (`<RESULT_DIR>/evals/<RESULT_FILENAME>`, or the batch's folder), EVAL_MAX_MODEL_LEN
/// (EvalContextLength), EVAL_TASKS_DIR (`gsm8k`, the built-in task) and EVAL_LIMIT when set;
/// one whose eval another row runs (`eval_elsewhere`) gets RUN_EVAL=false beside its own contract. Throws InputError
/// for an additional setting that is not `NAME=value`.
EnvList LaunchEnvironment(const Json& row, const LaunchContext& context);

/// An eval row's request concurrencies (EVAL_CONC): a single-node row's `conc`; a multi-node
/// row's whole list with `eval-all-concs`, else its `eval-conc`, else the largest of its list.
std::vector<long long> EvalConcValues(const Json& row);

/// EVAL_MAX_MODEL_LEN as InferenceX computes it without a model config to cap it: an eval-only
/// row's ISL + OSL + 256 (setup_eval_context), else its max-model-len (run_eval), else that sum.
long long EvalContextLength(const Json& row);

/// `text` with every `${NAME}` replaced by its value in `env` (unknown names: empty), for
/// command-line targets; no shell is involved.
std::string ExpandVariables(const std::string& text, const EnvList& env);

/// The value of `name` in `env`, or "".
std::string EnvValue(const EnvList& env, const std::string& name);

}  // namespace infermark::runner
