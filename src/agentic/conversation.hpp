// The synthetic conversation a replayed session sends. A call's input is exact in content tokens:
// each hash id stands for 64 fixed single-token words (the same bytes wherever that id appears in
// the trace), a play's first user message opens with its cache-bust tag, and a call that extends
// the previous one resends that call's messages byte for byte, then the previous call's recorded
// answer (as an assistant message of exactly `out` tokens) and a new user message with the new
// blocks. Messages are immutable nodes shared by every later call of the play, so a 200k-token
// history costs its node list, and its text exists only while a request body is written.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "agentic/trace.hpp"
#include "tokenizer/word_vocabulary.hpp"

namespace infermark::tokenizer {
class Tokenizer;
}

namespace infermark::agentic {

/// Text of exact token counts from a ring of single-token words: block `h` of trace `t` is the
/// 64 words at a position drawn from (t, h), copied with one memcpy.
class FillerText {
 public:
  /// Words the tokenizer encodes as one token each (null: the built-in list unchecked).
  explicit FillerText(const tokenizer::Tokenizer* tokenizer);
  /// Appends `tokens` words starting at the position `key` picks.
  void Append(std::string& out, std::uint64_t key, std::int64_t tokens) const;
  /// Tokens of `text` (the cache-bust tag); without a tokenizer, whitespace-separated pieces.
  [[nodiscard]] std::int64_t CountTokens(std::string_view text) const;

 private:
  const tokenizer::Tokenizer* tokenizer_;
  std::string ring_;                   // words end to end, the first kWindow repeated at the end
  std::vector<std::uint32_t> starts_;  // byte offset of each word
};

/// One message of a play's conversation.
struct Message {
  std::shared_ptr<const Message> previous;  ///< The message before it (null: the first).
  bool assistant = false;
  bool tagged = false;                    ///< Opens with the play's cache-bust tag.
  std::uint64_t trace_key = 0;            ///< Picks the text of its hash ids.
  std::span<const std::uint32_t> blocks;  ///< Hash ids whose text it carries, in order.
  std::int64_t block_tokens = 64;         ///< Tokens per hash id.
  std::uint64_t words_key = 0;            ///< Picks the words that follow the blocks.
  std::int64_t words = 0;                 ///< Words after the blocks.
  std::int64_t tokens_through = 0;        ///< Content tokens of the conversation up to and including it.
  std::uint32_t count = 1;                ///< Messages up to and including it.
};

/// A conversation as it grows, call by call.
class Conversation {
 public:
  /// `tag` opens the first user message (the play's cache-bust tag, e.g. "[rid:0123456789ab] ").
  Conversation(std::string tag, std::int64_t tag_tokens, std::uint64_t trace_key);

  /// Moves to `call` (whose hash ids are `hashes`); `previous` is the call before it in the same
  /// chain (null at a chain's start). Afterwards the conversation holds exactly call.in content tokens.
  void Advance(const TraceCall& call, std::span<const std::uint32_t> hashes, const TraceCall* previous,
               std::span<const std::uint32_t> previous_hashes, std::uint64_t answer_key);
  /// The messages as a JSON array (chat `messages`).
  void WriteMessages(std::string& out, const FillerText& text) const;
  /// Content tokens of the current conversation.
  [[nodiscard]] std::int64_t tokens() const { return last_ ? last_->tokens_through : 0; }
  /// Messages in the current conversation.
  [[nodiscard]] std::uint32_t messages() const { return last_ ? last_->count : 0; }

 private:
  std::string tag_;
  std::int64_t tag_tokens_;
  std::uint64_t trace_key_;
  std::shared_ptr<const Message> last_;
};

/// Chained identities of a call's leading blocks within a play: entry k names blocks [0, k].
std::vector<std::uint64_t> ChainBlocks(std::uint64_t play_key, std::span<const std::uint32_t> hashes);

}  // namespace infermark::agentic
