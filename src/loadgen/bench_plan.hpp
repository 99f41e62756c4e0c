// A benchmark's settings checked and turned into what the run needs before its clock starts: the
// tokenizer, the dataset (the reference's prompts, drawn exactly as it draws them) and the open
// loop's arrival times. Validation and derivation live here once (as MLPerf LoadGen's
// TestSettingsInternal does), whatever the target.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loadgen/api_driver.hpp"
#include "loadgen/bench_config.hpp"
#include "loadgen/dataset.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::loadgen {

/// What a target needs of each prompt.
enum class PromptForm {
  kText,     ///< Text and token ids (a server tokenizes what it gets).
  kLengths,  ///< Token counts only (the performance model needs nothing else).
};

/// A validated benchmark.
struct BenchPlan {
  BenchConfig config;                             ///< The settings, as given.
  Api api = Api::kCompletions;                    ///< The wire protocol of --backend.
  std::string tokenizer_id;                       ///< --tokenizer, else the model (the result's tokenizer_id).
  std::optional<tokenizer::Tokenizer> tokenizer;  ///< The prompt tokenizer, when one was found.
  Dataset dataset;                                ///< The prompts, in send order.
  std::vector<double> offsets;  ///< Open loop: seconds after the start each request is due; empty: closed loop.
  bool keep_text = false;       ///< Keep answers' text (client token counts, --save-detailed).
  std::string date;             ///< Local time the run was planned ("%Y%m%d-%H%M%S").
  double planning_s = 0;        ///< Seconds spent building the dataset.
};

/// Checks `config` (InputError naming the flag and the rule) and builds its plan. With
/// `PromptForm::kLengths` the random dataset draws its lengths as the reference does (so the
/// schedule's draws that follow are the same) without building text; `vocab_size` stands in for
/// the tokenizer's when none is given.
BenchPlan PlanBenchmark(const BenchConfig& config, PromptForm form = PromptForm::kText, std::int64_t vocab_size = 0);

}  // namespace infermark::loadgen
