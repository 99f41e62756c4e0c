// The BPE model on hand-made vocabularies: merge order (lowest rank first, leftmost among equal
// ranks, checked against a plain reference implementation on random words long and short), byte
// fallback, unknown tokens, ignore_merges, prefixes and suffixes.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tokenizer/bpe_model.hpp"
#include "tokenizer_test_support.hpp"

namespace infermark::tokenizer {
namespace {

// Token strings of a model's output for `piece`.
std::vector<std::string> Tokens(const BpeModel& model, std::string_view piece) {
  BpeScratch scratch;
  std::vector<std::uint32_t> ids;
  model.Tokenize(piece, ids, scratch);
  std::vector<std::string> out;
  for (const auto id : ids) out.emplace_back(model.IdToToken(id).value_or("?"));
  return out;
}

struct OwnedConfig {
  std::vector<std::string> vocab;
  std::vector<std::pair<std::string, std::string>> merges;
  BpeConfig Config() const {
    BpeConfig c;
    for (std::size_t i = 0; i < vocab.size(); ++i) c.vocab.emplace_back(vocab[i], static_cast<std::uint32_t>(i));
    for (const auto& [a, b] : merges) c.merges.emplace_back(a, b);
    return c;
  }
};

using V = std::vector<std::string>;

TEST(Bpe, MergesLowestRankFirstThenLeftmost) {
  OwnedConfig o{{"a", "b", "c", "ab", "bc", "abc", "aa", "aaa"},
                {{"b", "c"}, {"a", "b"}, {"a", "bc"}, {"a", "a"}, {"aa", "a"}}};
  const BpeModel model(o.Config());
  EXPECT_EQ(Tokens(model, "abc"), (V{"abc"}));  // b+c first (rank 0), then a+bc
  EXPECT_EQ(Tokens(model, "abab"), (V{"ab", "ab"}));
  EXPECT_EQ(Tokens(model, "aaaa"), (V{"aa", "aa"}));  // leftmost a+a first, then the next pair
  EXPECT_EQ(Tokens(model, "aaa"), (V{"aaa"}));
  EXPECT_EQ(Tokens(model, "cab"), (V{"c", "ab"}));
}

// Reference: repeatedly merge the adjacent pair with the lowest rank, leftmost among equals.
std::vector<std::string> ReferenceBpe(const std::string& word,
                                      const std::map<std::pair<std::string, std::string>, std::size_t>& ranks) {
  std::vector<std::string> s;
  for (const char c : word) s.emplace_back(1, c);
  while (s.size() > 1) {
    std::size_t best = SIZE_MAX, at = 0;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      const auto it = ranks.find({s[i], s[i + 1]});
      if (it != ranks.end() && it->second < best) {
        best = it->second;
        at = i;
      }
    }
    if (best == SIZE_MAX) break;
    s[at] += s[at + 1];
    s.erase(s.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  return s;
}

TEST(Bpe, MatchesReferenceOnRandomWordsShortAndLong) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    OwnedConfig o;
    std::map<std::pair<std::string, std::string>, std::size_t> ranks;
    for (const char c : std::string("abcd")) o.vocab.emplace_back(1, c);
    for (int m = 0; m < 60; ++m) {
      const std::string& x = o.vocab[rng() % o.vocab.size()];
      const std::string& y = o.vocab[rng() % o.vocab.size()];
      if (x.size() + y.size() > 8 || ranks.count({x, y})) continue;
      const std::string merged = x + y;
      ranks[{x, y}] = o.merges.size();
      o.merges.emplace_back(x, y);
      if (std::find(o.vocab.begin(), o.vocab.end(), merged) == o.vocab.end()) o.vocab.push_back(merged);
    }
    const BpeModel model(o.Config());
    BpeScratch scratch;  // shared across words: exercises the cache too
    for (int w = 0; w < 200; ++w) {
      std::string word(1 + rng() % (w % 4 == 0 ? 300 : 40), 'a');
      for (auto& c : word) c = static_cast<char>('a' + rng() % 4);
      std::vector<std::uint32_t> ids;
      model.Tokenize(word, ids, scratch);
      std::vector<std::string> got;
      for (const auto id : ids) got.emplace_back(*model.IdToToken(id));
      ASSERT_EQ(got, ReferenceBpe(word, ranks)) << "trial " << trial << " word " << word;
    }
  }
}

TEST(Bpe, ByteFallbackUnknownAndFuse) {
  OwnedConfig o{{"<unk>", "a", "b", "\xE2\x96\x81"}, {}};
  for (unsigned b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    o.vocab.emplace_back(hex);
  }
  BpeConfig with_fallback = o.Config();
  with_fallback.byte_fallback = true;
  with_fallback.unk_token = "<unk>";
  EXPECT_EQ(Tokens(BpeModel(with_fallback), "a\u00e9b"), (V{"a", "<0xC3>", "<0xA9>", "b"}));

  BpeConfig unk = o.Config();
  unk.unk_token = "<unk>";
  EXPECT_EQ(Tokens(BpeModel(unk), "a\u00e9\u00e8b"), (V{"a", "<unk>", "<unk>", "b"}));
  unk.fuse_unk = true;
  EXPECT_EQ(Tokens(BpeModel(unk), "a\u00e9\u00e8b\u00e9"), (V{"a", "<unk>", "b", "<unk>"}));

  BpeConfig none = o.Config();  // no unk token: unknown characters vanish, as in `tokenizers`
  EXPECT_EQ(Tokens(BpeModel(none), "a\u00e9b"), (V{"a", "b"}));
}

TEST(Bpe, IgnoreMergesTakesWholeVocabularyWords) {
  // "abc" is in the vocabulary but the merges would build "ab"+"c".
  OwnedConfig o{{"a", "b", "c", "ab", "abc"}, {{"a", "b"}}};
  EXPECT_EQ(Tokens(BpeModel(o.Config()), "abc"), (V{"ab", "c"}));
  BpeConfig config = o.Config();
  config.ignore_merges = true;
  EXPECT_EQ(Tokens(BpeModel(config), "abc"), (V{"abc"}));
}

TEST(Bpe, ContinuingSubwordPrefixAndEndOfWordSuffix) {
  OwnedConfig o{{"a", "##b", "##c", "c</w>", "##c</w>", "a##b", "ab"}, {{"a", "##b"}}};
  BpeConfig config = o.Config();
  config.continuing_subword_prefix = "##";
  config.end_of_word_suffix = "</w>";
  EXPECT_EQ(Tokens(BpeModel(config), "abc"), (V{"ab", "##c</w>"}));
}

TEST(Bpe, ByteLevelVocabulariesWorkOnRawBytes) {
  // Byte-level vocabulary: "Ġ" is the space byte.
  OwnedConfig o{{"h", "i", "Ġ", "Ġh", "Ġhi"}, {{"Ġ", "h"}, {"Ġh", "i"}}};
  BpeConfig config = o.Config();
  config.byte_level = true;
  const BpeModel model(config);
  EXPECT_EQ(Tokens(model, " hi"), (V{"Ġhi"}));
  EXPECT_EQ(model.TokenToId("Ġhi"), 4u);
  EXPECT_FALSE(model.TokenToId(" hi").has_value());
}

TEST(Bpe, RejectsMergesOutsideTheVocabulary) {
  OwnedConfig o{{"a", "b"}, {{"a", "b"}}};
  EXPECT_THROW(BpeModel(o.Config()), std::invalid_argument);  // "ab" missing
  OwnedConfig unknown{{"a"}, {{"a", "z"}}};
  EXPECT_THROW(BpeModel(unknown.Config()), std::invalid_argument);
}

}  // namespace
}  // namespace infermark::tokenizer
