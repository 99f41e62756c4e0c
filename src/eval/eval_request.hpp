// The request body lm-evaluation-harness's local-chat-completions (or local-completions) model
// sends for one prompt: messages (or prompt), model, max_tokens, temperature, the stop strings
// (the task's `until` plus the end-of-sequence string, at most four), seed and top_p — with
// `stream` added, since the load generator's reader takes streamed answers.
#pragma once

#include <string>
#include <vector>

#include "core/json_text.hpp"

namespace infermark::eval {

/// What every request of an eval carries besides its prompt.
struct GenerationSettings {
  std::string model;              ///< `model`.
  long long max_tokens = 0;       ///< `max_tokens`.
  double temperature = 0;         ///< `temperature` (written as an integer when whole, as lm-eval parses 0).
  double top_p = 1;               ///< `top_p` (likewise).
  std::vector<std::string> stop;  ///< The task's until; eos appended when missing; first four sent.
  std::string eos = "</s>";       ///< InferenceX's eos_string.
  long long seed = 1234;          ///< lm-eval's API seed.
};

/// The stop strings sent: `until`, then `eos` when not among them, the first four.
std::vector<std::string> StopStrings(const std::vector<std::string>& until, const std::string& eos);

/// A chat request body for `messages` (a JSON array of {role, content}).
std::string ChatBody(const Json& messages, const GenerationSettings& settings);
/// A completions request body for `prompt`.
std::string CompletionsBody(const std::string& prompt, const GenerationSettings& settings);

/// The generation arguments as lm-eval logs them in its samples (until, max_tokens, …).
Json LoggedGenKwargs(const std::vector<std::string>& until, const GenerationSettings& settings);

}  // namespace infermark::eval
