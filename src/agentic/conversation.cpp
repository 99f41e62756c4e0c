#include "agentic/conversation.hpp"

#include <algorithm>
#include <cstring>

#include "core/split_mix.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::agentic {
namespace {

constexpr std::uint32_t kRingWords = 1u << 18;  // positions a block can start at
constexpr std::uint32_t kOverlap = 1u << 12;    // words repeated past the end, so a run up to this long is one copy

void AppendEscapedTag(std::string& out, std::string_view tag) {
  for (const char c : tag) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
}

}  // namespace

FillerText::FillerText(const tokenizer::Tokenizer* tokenizer) : tokenizer_(tokenizer) {
  const tokenizer::WordVocabulary vocabulary(tokenizer);
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  std::vector<std::uint32_t> picks(kRingWords);
  for (std::uint32_t& p : picks) {
    state = SplitMix64(state);
    p = static_cast<std::uint32_t>(state % vocabulary.size());
  }
  starts_.reserve(kRingWords + kOverlap + 1);
  for (std::uint32_t i = 0; i < kRingWords + kOverlap; ++i) {
    starts_.push_back(static_cast<std::uint32_t>(ring_.size()));
    ring_ += vocabulary.Word(0, picks[i % kRingWords]);
  }
  starts_.push_back(static_cast<std::uint32_t>(ring_.size()));
}

void FillerText::Append(std::string& out, std::uint64_t key, std::int64_t tokens) const {
  std::uint32_t at = static_cast<std::uint32_t>(SplitMix64(key) % kRingWords);
  while (tokens > 0) {
    const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::int64_t>(tokens, kRingWords + kOverlap - at));
    out.append(ring_.data() + starts_[at], starts_[at + n] - starts_[at]);
    tokens -= n;
    at = (at + n) % kRingWords;
  }
}

std::int64_t FillerText::CountTokens(std::string_view text) const {
  if (tokenizer_ != nullptr) return static_cast<std::int64_t>(tokenizer_->CountTokens(text));
  std::int64_t pieces = 0;
  bool in_piece = false;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\n' || c == '\t';
    if (!space && !in_piece) ++pieces;
    in_piece = !space;
  }
  return pieces;
}

Conversation::Conversation(std::string tag, std::int64_t tag_tokens, std::uint64_t trace_key)
    : tag_(std::move(tag)), tag_tokens_(tag_tokens), trace_key_(trace_key) {}

void Conversation::Advance(const TraceCall& call, std::span<const std::uint32_t> hashes, const TraceCall* previous,
                           std::span<const std::uint32_t> previous_hashes, std::uint64_t answer_key) {
  const std::int64_t bt = 64;
  if (previous != nullptr && last_ != nullptr) {
    const std::int64_t fresh = call.in - previous->in - previous->out;
    const bool extends = previous_hashes.size() <= hashes.size() &&
                         std::equal(previous_hashes.begin(), previous_hashes.end(), hashes.begin());
    if (extends && fresh >= 1) {
      auto answer = std::make_shared<Message>();
      answer->previous = last_;
      answer->assistant = true;
      answer->words_key = answer_key;
      answer->words = previous->out;
      answer->tokens_through = last_->tokens_through + previous->out;
      answer->count = last_->count + 1;
      auto user = std::make_shared<Message>();
      user->previous = answer;
      user->trace_key = trace_key_;
      // The new blocks are those past what the previous prompt and answer covered.
      const std::size_t from =
          std::min<std::size_t>(hashes.size(), static_cast<std::size_t>((previous->in + previous->out + bt - 1) / bt));
      const std::size_t fit = std::min<std::size_t>(hashes.size() - from, static_cast<std::size_t>(fresh / bt));
      user->blocks = hashes.subspan(from, fit);
      user->words_key = answer_key ^ 0x5bd1e995u;
      user->words = fresh - static_cast<std::int64_t>(fit) * bt;
      user->tokens_through = answer->tokens_through + fresh;
      user->count = answer->count + 1;
      last_ = std::move(user);
      return;
    }
  }
  // A chain's first call, or one that does not extend the call before it (the context was
  // compacted or rebuilt): one tagged user message of exactly call.in tokens.
  auto first = std::make_shared<Message>();
  first->tagged = true;
  first->trace_key = trace_key_;
  const std::int64_t room = std::max<std::int64_t>(0, call.in - tag_tokens_);
  const std::size_t fit = std::min<std::size_t>(hashes.size(), static_cast<std::size_t>(room / bt));
  first->blocks = hashes.first(fit);
  first->words_key = answer_key ^ 0x27d4eb2fu;
  first->words = room - static_cast<std::int64_t>(fit) * bt;
  first->tokens_through = tag_tokens_ + room;
  last_ = std::move(first);
}

void Conversation::WriteMessages(std::string& out, const FillerText& text) const {
  std::vector<const Message*> chain;
  chain.reserve(last_ ? last_->count : 0);
  for (const Message* m = last_.get(); m != nullptr; m = m->previous.get()) chain.push_back(m);
  std::size_t bytes = 2;
  if (last_) bytes += static_cast<std::size_t>(last_->tokens_through) * 7 + chain.size() * 40 + tag_.size();
  out.reserve(out.size() + bytes);
  out += '[';
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Message& m = **it;
    if (it != chain.rbegin()) out += ',';
    out += m.assistant ? R"({"role":"assistant","content":")" : R"({"role":"user","content":")";
    if (m.tagged) AppendEscapedTag(out, tag_);
    for (const std::uint32_t h : m.blocks)
      text.Append(out, SplitMix64(m.trace_key ^ (std::uint64_t{h} << 20)), m.block_tokens);
    text.Append(out, m.words_key, m.words);
    out += "\"}";
  }
  out += ']';
}

std::vector<std::uint64_t> ChainBlocks(std::uint64_t play_key, std::span<const std::uint32_t> hashes) {
  std::vector<std::uint64_t> chained(hashes.size());
  std::uint64_t h = SplitMix64(play_key);
  for (std::size_t k = 0; k < hashes.size(); ++k) {
    h = SplitMix64(h ^ (std::uint64_t{hashes[k]} + 0x9e3779b97f4a7c15ULL));
    chained[k] = h;
  }
  return chained;
}

}  // namespace infermark::agentic
