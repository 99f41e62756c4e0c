// Parity with Hugging Face `tokenizers` on the five real tokenizers, through the JS oracle
// (@lenml/tokenizers run by tools/tokenizers/oracle.mjs) over the corpus in
// tests/fixtures/tokenizer-corpus/cases (see its README): every file whole and every line alone.
//
// For each case: identical ids; our Decode of those ids equals the oracle's decode; and
// Decode(Encode(x)) gives x back as the tokenizer normalizes it (invalid UTF-8 → U+FFFD; Qwen 3:
// NFC; Gemma: spaces pass through "▁" and come back as spaces, so a literal "▁" comes back as a
// space too). Cases where the oracle is known to differ from Hugging Face are in
// js_hf_disagreements_test.cpp, not here: on this corpus the two agree.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "tokenizer/utf8.hpp"
#include "tokenizer_test_support.hpp"

namespace infermark::tokenizer::test {
namespace {

std::string ReplaceAll(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// What Decode(Encode(x)) must give for each tokenizer.
std::string ExpectedRoundTrip(const std::string& name, const Tokenizer& tok, const std::string& text) {
  const std::string normalized = tok.Normalize(text);
  if (name == "gemma3") return ReplaceAll(normalized, "\xE2\x96\x81", " ");  // the decoder maps U+2581 back
  return normalized;
}

class RealTokenizerTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!HaveTokenizer(GetParam())) GTEST_FAIL() << MissingFixturesMessage(GetParam());
  }
};

TEST_P(RealTokenizerTest, CorpusMatchesOracleAndRoundTrips) {
  const std::string& name = GetParam();
  const Tokenizer& tok = RealTokenizer(name);
  const std::vector<CorpusCase> cases = CorpusCases();
  const OracleAnswer& oracle = FullOracle(name, tok);
  ASSERT_EQ(oracle.cases.size(), cases.size()) << "oracle and test split the corpus differently";
  ASSERT_GT(cases.size(), 100u);

  std::size_t id_mismatches = 0, decode_mismatches = 0, round_trip_mismatches = 0, tokens = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CorpusCase& c = cases[i];
    const auto& [expected_ids, expected_text] = oracle.cases[i];
    const std::vector<std::uint32_t> ids = tok.Encode(c.text);
    tokens += ids.size();
    if (ids != expected_ids) {
      ++id_mismatches;
      const auto diff = std::mismatch(ids.begin(), ids.end(), expected_ids.begin(), expected_ids.end());
      const auto at = static_cast<std::size_t>(diff.first - ids.begin());
      ADD_FAILURE() << name << " " << c.Where() << ": ids differ at token " << at
                    << "\n  ours:   " << Describe(tok, ids, at > 2 ? at - 2 : 0, 6)
                    << "\n  oracle: " << Describe(tok, expected_ids, at > 2 ? at - 2 : 0, 6);
    }
    const std::string decoded = tok.Decode(expected_ids);
    if (decoded != expected_text) {
      ++decode_mismatches;
      ADD_FAILURE() << name << " " << c.Where() << ": decode differs\n  ours:   " << decoded
                    << "\n  oracle: " << expected_text;
    }
    const std::string round_trip = tok.Decode(ids);
    if (round_trip != ExpectedRoundTrip(name, tok, c.text)) {
      ++round_trip_mismatches;
      ADD_FAILURE() << name << " " << c.Where() << ": Decode(Encode(x)) is not x normalized\n  got: " << round_trip;
    }
  }
  EXPECT_EQ(id_mismatches, 0u);
  EXPECT_EQ(decode_mismatches, 0u);
  EXPECT_EQ(round_trip_mismatches, 0u);
  RecordProperty("cases", static_cast<int>(cases.size()));
  RecordProperty("tokens", static_cast<int>(tokens));
}

// The thread-local caches must not leak state between threads or calls: the same text encodes
// the same on a cold cache, a warm cache and another thread.
TEST_P(RealTokenizerTest, EncodeIsDeterministicAcrossThreadsAndCacheStates) {
  const Tokenizer& tok = RealTokenizer(GetParam());
  std::string text;
  for (const auto& c : CorpusCases()) {
    if (c.line == 0) text += c.text;
  }
  const std::vector<std::uint32_t> first = tok.Encode(text);
  EXPECT_EQ(tok.Encode(text), first);
  std::vector<std::uint32_t> a, b;
  std::thread ta([&] { a = tok.Encode(text); });
  std::thread tb([&] { b = tok.Encode(text); });
  ta.join();
  tb.join();
  EXPECT_EQ(a, first);
  EXPECT_EQ(b, first);
  // EncodeInto appends; CountTokens agrees.
  std::vector<std::uint32_t> appended = {7};
  tok.EncodeInto(text, appended);
  ASSERT_EQ(appended.size(), first.size() + 1);
  EXPECT_TRUE(std::equal(first.begin(), first.end(), appended.begin() + 1));
  EXPECT_EQ(tok.CountTokens(text), first.size());
}

// add_special_tokens applies the post-processor: Gemma prepends <bos>; the byte-level ones add
// nothing (their tokenizer.json post-processor is ByteLevel), as the oracle agrees.
TEST_P(RealTokenizerTest, AddSpecialTokensMatchesOracle) {
  const std::string& name = GetParam();
  const Tokenizer& tok = RealTokenizer(name);
  const OracleAnswer& oracle = FullOracle(name, tok);
  for (const std::string& probe : kSpecialTokenProbes) {
    EXPECT_EQ(tok.Encode(probe, true), oracle.strings.at({probe, true})) << name << ": '" << probe << "'";
  }
  if (name == "gemma3") {
    ASSERT_TRUE(tok.special_token_ids().bos.has_value());
    EXPECT_EQ(tok.Encode("Hi", true).front(), *tok.special_token_ids().bos);
    EXPECT_NE(tok.Encode("Hi", false).front(), *tok.special_token_ids().bos);
  } else {
    EXPECT_EQ(tok.Encode("Hello", true), tok.Encode("Hello", false));
  }
}

TEST_P(RealTokenizerTest, LongWordsMatchOracle) {
  const std::string& name = GetParam();
  const Tokenizer& tok = RealTokenizer(name);
  const OracleAnswer& oracle = FullOracle(name, tok);
  for (const std::string& probe : LongProbes()) {
    const auto ids = tok.Encode(probe);
    EXPECT_EQ(ids, oracle.strings.at({probe, false})) << name << ": a " << probe.size() << "-byte word";
    EXPECT_EQ(tok.Decode(ids), ExpectedRoundTrip(name, tok, probe));
  }
}

// Any bytes at all: no crash, and Decode(Encode(x)) is x with invalid UTF-8 replaced (then
// normalized as the tokenizer does). Inputs mix ASCII, UTF-8 fragments, bytes that are never
// valid, and pieces of special tokens.
TEST_P(RealTokenizerTest, RandomBytesNeverCrashAndRoundTrip) {
  const std::string& name = GetParam();
  const Tokenizer& tok = RealTokenizer(name);
  static const std::vector<std::string> kFragments = {
      "<|",           "|>", "<bos>", "<|im_start|>", "\xE2\x96\x81", "\xC3", "\xA9", "\xF0\x9F",     "\x98\x80",
      "\xED\xA0\x80", "'s", "  ",    "\n",           "\r\n",         "\t",   "123",  "\xEF\xBB\xBF", "\xFF"};
  std::mt19937 rng(2026);
  for (int round = 0; round < 1500; ++round) {
    std::string bytes;
    const int parts = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < parts; ++i) {
      switch (rng() % 3) {
        case 0:
          bytes += kFragments[rng() % kFragments.size()];
          break;
        case 1:
          bytes.push_back(static_cast<char>(' ' + rng() % 95));
          break;
        default:
          bytes.push_back(static_cast<char>(rng() % 256));
      }
    }
    const auto ids = tok.Encode(bytes);
    for (const auto id : ids) ASSERT_LT(id, tok.IdLimit());
    ASSERT_EQ(tok.Decode(ids), ExpectedRoundTrip(name, tok, bytes))
        << "input bytes: " << nlohmann::json(SanitizeUtf8(bytes)).dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Real, RealTokenizerTest, ::testing::ValuesIn(kRealTokenizers), TokenizerParamName);

}  // namespace
}  // namespace infermark::tokenizer::test
