// Prompts as lm-evaluation-harness builds them for a generate_until task: few-shot examples
// drawn by the task's sampler (the default one: Python's random.Random seeded once per task with
// lm-eval's fewshot seed, 1234, drawing `num_fewshot` distinct examples for each document in
// document order; first_n: the first examples), each example a user turn (doc_to_text) and an
// assistant turn (doc_to_target), then the document's question. With a chat template the turns
// are sent as messages (`--apply_chat_template`, few-shot as multi-turn, lm-eval's default with
// it); without, they are joined with the target and few-shot delimiters into one text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_text.hpp"
#include "eval/python_random.hpp"
#include "eval/task_config.hpp"

namespace infermark::eval {

/// lm-eval's default few-shot seed (`fewshot_random_seed`).
inline constexpr std::uint64_t kFewshotSeed = 1234;

/// One turn of a prompt.
struct Turn {
  std::string role;       ///< "user" or "assistant".
  std::string content;    ///< Its text.
  std::string delimiter;  ///< What follows it when the turns are joined into one text.
};

/// Picks few-shot examples for successive documents (its random state runs across them).
class FewshotSampler {
 public:
  /// Draws from `pool` (the few-shot split) by `sampler` ("default" or "first_n").
  FewshotSampler(const std::vector<Json>& pool, std::string sampler, std::uint64_t seed = kFewshotSeed);
  /// Indices into the pool of `n` examples for the next document; `exclude` (when the few-shot
  /// split is the test split) is the document itself, never shown as its own example.
  std::vector<std::size_t> Sample(std::size_t n, const Json* exclude);

 private:
  const std::vector<Json>& pool_;
  std::string sampler_;
  PythonRandom random_;
};

/// The turns of one document's prompt: examples (user, assistant), then the question.
std::vector<Turn> BuildTurns(const TaskConfig& task, const std::vector<const Json*>& examples, const Json& doc);

/// The turns as chat messages (`[{"role", "content"}, …]`).
Json ChatMessages(const std::vector<Turn>& turns);

/// The turns as one text (the completions API without a chat template).
std::string PromptText(const std::vector<Turn>& turns);

}  // namespace infermark::eval
