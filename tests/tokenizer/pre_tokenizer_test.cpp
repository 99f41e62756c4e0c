#include "tokenizer/pre_tokenizer.hpp"

#include <gtest/gtest.h>

namespace infermark::tokenizer {
namespace {

std::vector<std::string> Pieces(const PreTokenizer& p, std::string_view text, bool at_start = true) {
  std::vector<std::string> out;
  p.Split(text, at_start, [&](std::string_view piece, bool) { out.emplace_back(piece); });
  return out;
}

using V = std::vector<std::string>;

// The example of `tokenizers`' SplitDelimiterBehavior documentation.
TEST(PreTokenizer, SplitBehaviours) {
  const std::string text = "the-final--countdown";
  EXPECT_EQ(Pieces(*MakeSplit(OnigRegex("-"), SplitBehavior::kRemoved, false), text), (V{"the", "final", "countdown"}));
  EXPECT_EQ(Pieces(*MakeSplit(OnigRegex("-"), SplitBehavior::kIsolated, false), text),
            (V{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(Pieces(*MakeSplit(OnigRegex("-"), SplitBehavior::kMergedWithPrevious, false), text),
            (V{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(Pieces(*MakeSplit(OnigRegex("-"), SplitBehavior::kMergedWithNext, false), text),
            (V{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(Pieces(*MakeSplit(OnigRegex("-"), SplitBehavior::kContiguous, false), text),
            (V{"the", "-", "final", "--", "countdown"}));
  // invert: the pattern describes the pieces to keep
  EXPECT_EQ(Pieces(*MakeSplit(OnigRegex(R"(\w+)"), SplitBehavior::kRemoved, true), "a, bc!"), (V{"a", "bc"}));
}

TEST(PreTokenizer, RegexIterationFollowsRustOnig) {
  // Empty matches: kept unless right after a non-empty match; the search then moves one character.
  const OnigRegex re("a*");
  RegexMatches matches(re, "baaac");
  std::vector<std::pair<std::size_t, std::size_t>> found;
  std::size_t b = 0, e = 0;
  while (matches.Next(b, e)) found.emplace_back(b, e);
  EXPECT_EQ(found, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {1, 4}, {5, 5}}));
  // Lookahead sees the rest of the piece: "\s+(?!\S)" stops one space short of a word.
  EXPECT_EQ(Pieces(*MakeSplit(OnigRegex(R"(\s+(?!\S)|\s+|\S+)"), SplitBehavior::kIsolated, false), "a   b"),
            (V{"a", "  ", " ", "b"}));
  EXPECT_THROW(OnigRegex("(unclosed"), std::invalid_argument);
}

TEST(PreTokenizer, ByteLevelMetaspaceDigitsWhitespace) {
  EXPECT_EQ(Pieces(*MakeByteLevelPreTokenizer(false, true), "Hello world's 42!"),
            (V{"Hello", " world", "'s", " 42", "!"}));
  EXPECT_EQ(Pieces(*MakeByteLevelPreTokenizer(true, false), "hi"), (V{" hi"}));
  EXPECT_EQ(Pieces(*MakeByteLevelPreTokenizer(true, false), " hi"), (V{" hi"}));
  EXPECT_EQ(Pieces(*MakeMetaspace("\u2581", PrependScheme::kAlways, true), "Hey friend"),
            (V{"\u2581Hey", "\u2581friend"}));
  EXPECT_EQ(Pieces(*MakeMetaspace("\u2581", PrependScheme::kFirst, false), "a b", false), (V{"a\u2581b"}));
  EXPECT_EQ(Pieces(*MakeMetaspace("\u2581", PrependScheme::kFirst, false), "a b", true), (V{"\u2581a\u2581b"}));
  EXPECT_EQ(Pieces(*MakeMetaspace("\u2581", PrependScheme::kNever, false), "a b"), (V{"a\u2581b"}));
  EXPECT_EQ(Pieces(*MakeDigits(true), "ab123c"), (V{"ab", "1", "2", "3", "c"}));
  EXPECT_EQ(Pieces(*MakeDigits(false), "ab123c"), (V{"ab", "123", "c"}));
  EXPECT_EQ(Pieces(*MakeWhitespace(), "Hey man!! How's it?"), (V{"Hey", "man", "!!", "How", "'", "s", "it", "?"}));
  EXPECT_EQ(Pieces(*MakeWhitespaceSplit(), " a\tb  c "), (V{"a", "b", "c"}));
  EXPECT_EQ(Pieces(*MakePunctuation(SplitBehavior::kIsolated), "a,b!?"), (V{"a", ",", "b", "!", "?"}));
}

TEST(PreTokenizer, SequenceSplitsThePiecesOfThePreviousOne) {
  std::vector<std::unique_ptr<PreTokenizer>> parts;
  parts.push_back(MakeDigits(true));
  parts.push_back(MakeWhitespaceSplit());
  const auto seq = MakePreTokenizerSequence(std::move(parts));
  EXPECT_EQ(Pieces(*seq, "ab 12 c3"), (V{"ab", "1", "2", "c", "3"}));
  std::vector<bool> starts;
  seq->Split("12 ab", true, [&](std::string_view, bool at_start) { starts.push_back(at_start); });
  EXPECT_EQ(starts, (std::vector<bool>{true, false, false}));
}

}  // namespace
}  // namespace infermark::tokenizer
