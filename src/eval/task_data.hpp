// A task's documents: the splits its task file names, read from JSON Lines. `openai/gsm8k` (the
// Hugging Face dataset lm-evaluation-harness loads) is the copy shipped in data/evals/gsm8k; any
// other dataset_path must be a folder holding `<split>.jsonl`.
#pragma once

#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "eval/task_config.hpp"

namespace infermark::eval {

/// The folder of infermark's evaluation data (data/evals): $INFERMARK_EVAL_DATA, else the nearest
/// data/evals above the current directory or the binary. Throws InputError when none is found.
std::string EvalDataDir();

/// The built-in task file for `name` ("gsm8k"), or "" when `name` is not built in.
std::string BuiltInTaskFile(const std::string& name);

/// The folder holding `task`'s `<split>.jsonl` files. Throws InputError naming dataset_path.
std::string DatasetFolder(const TaskConfig& task);

/// Reads `<folder>/<split>.jsonl`: one JSON object a line. Throws InputError (file:line) otherwise.
std::vector<Json> ReadSplit(const std::string& folder, const std::string& split);

}  // namespace infermark::eval
