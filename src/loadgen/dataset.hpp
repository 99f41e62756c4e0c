// Prompts to send: the reference's random dataset (lengths, token ids and the decode/re-encode fix
// drawn exactly as it draws them) and a JSONL file of prompts or chat conversations.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/numpy_random.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::loadgen {

/// One prompt of a dataset.
struct Prompt {
  std::string text{};                ///< Prompt text (completions) or the user message (chat).
  std::vector<std::uint32_t> ids{};  ///< Its token ids, when the dataset built it from ids.
  std::string messages_json{};       ///< A chat conversation as a JSON array (JSONL `messages`); empty if none.
  std::int64_t prompt_len = 0;       ///< The client's prompt length (the reference's prompt_len).
  std::int64_t target_len = 0;       ///< Content tokens drawn for it (random dataset); 0 otherwise.
  std::int64_t output_len = 0;       ///< Output tokens to ask for (max_tokens).
  /// Chained hashes of the prompt's leading blocks (hash k names its first (k+1)·prefix_block_tokens
  /// tokens), for targets that model a prefix cache; null when no identity is known.
  std::shared_ptr<const std::vector<std::uint64_t>> prefix_blocks{};
  int prefix_block_tokens = 64;  ///< Tokens per entry of prefix_blocks.
};

/// The random dataset's parameters (the reference's --random-* flags).
struct RandomDatasetOptions {
  std::int64_t input_len = 1024;   ///< --random-input-len.
  std::int64_t output_len = 128;   ///< --random-output-len.
  double range_ratio = 1.0;        ///< --random-range-ratio: lengths uniform in [int(L·ratio), L].
  std::int64_t prefix_len = 0;     ///< --random-prefix-len: a shared prefix of random ids.
  std::size_t num_prompts = 1000;  ///< --num-prompts.
  /// Decode/re-encode rounds after the reference's 10, so that text prompts whose re-encoding still
  /// missed the drawn length reach it (0: stop where the reference stops).
  int extra_fix_rounds = 90;
};

/// A built dataset and how exact it is.
struct Dataset {
  std::vector<Prompt> prompts{};      ///< In send order.
  std::size_t length_mismatches = 0;  ///< Prompts whose text does not re-encode to target_len.
};

/// Builds the random dataset with `tokenizer`, drawing from `global` (the reference's
/// np.random global state, seeded with --seed) and a local generator seeded from its state, as
/// the reference does; `global` is left where the reference leaves it (the schedule draws next).
Dataset BuildRandomDataset(const tokenizer::Tokenizer& tokenizer, const RandomDatasetOptions& options,
                           NumpyRandomState& global);

/// The random dataset's lengths without its text, for targets that need token counts only: the
/// same draws from `global` as BuildRandomDataset (prefix ids, lengths, offsets; `vocab_size` is
/// the range of the id draws), so `global` is left where the reference leaves it. Each prompt is
/// exactly its drawn length (the prefix included); no special tokens are added.
Dataset BuildRandomLengths(const RandomDatasetOptions& options, std::int64_t vocab_size, NumpyRandomState& global);

/// Reads `path`: one JSON object per line with `prompt` (text) or `messages` (a chat array of
/// {role, content}) and an optional integer `output_len` (else `default_output_len`). Blank lines
/// are skipped. The lines are repeated in order until `num_prompts` prompts are read. Prompt lengths
/// are counted with `tokenizer` when given. Throws InputError naming the file, line and field.
Dataset LoadJsonlDataset(const std::string& path, const tokenizer::Tokenizer* tokenizer,
                         std::int64_t default_output_len, std::size_t num_prompts);

}  // namespace infermark::loadgen
