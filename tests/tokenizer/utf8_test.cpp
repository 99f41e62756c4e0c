// Invalid UTF-8 is replaced, never rejected and never a crash: each maximal invalid subsequence
// becomes one U+FFFD (Unicode §3.9 "substitution of maximal subparts", as WHATWG and Rust do).
#include "tokenizer/utf8.hpp"

#include <gtest/gtest.h>

#include <random>

#include "tokenizer/byte_level.hpp"

namespace infermark::tokenizer {
namespace {

const std::string kR(kReplacementCharacter);

TEST(Utf8, ValidatesWellFormedText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii, long enough for the eight-byte fast path"));
  EXPECT_TRUE(IsValidUtf8("é 中 😀 \xF4\x8F\xBF\xBF"));  // up to U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\x80"));
  EXPECT_FALSE(IsValidUtf8("\xC0\x80"));          // overlong
  EXPECT_FALSE(IsValidUtf8("\xE0\x9F\xBF"));      // overlong 3-byte
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("abc\xE2\x82"));       // truncated at the end
}

TEST(Utf8, ReplacesMaximalSubpartsAsTheUnicodeStandardShows) {
  // Unicode 15, §3.9, Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64.
  EXPECT_EQ(SanitizeUtf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a" + kR + kR + kR + "b" + kR + "c" + kR + kR + "d");
  EXPECT_EQ(SanitizeUtf8("\xC0\xAF"), kR + kR);           // C0 can never start a sequence
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), kR + kR + kR);  // ED A0: A0 is outside ED's range
  EXPECT_EQ(SanitizeUtf8("\xF0\x9F\x98"), kR);            // one truncated sequence
  EXPECT_EQ(SanitizeUtf8("\xF0\x9F\x98x"), kR + "x");
  EXPECT_EQ(SanitizeUtf8("caf\xE9!"), "caf" + kR + "!");
  EXPECT_EQ(SanitizeUtf8("ok é"), "ok é");
}

TEST(Utf8, EveryCodePointRoundTrips) {
  for (char32_t c = 0; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    std::string s;
    AppendUtf8(c, s);
    ASSERT_TRUE(IsValidUtf8(s)) << std::hex << static_cast<unsigned>(c);
    std::size_t pos = 0;
    ASSERT_EQ(DecodeChar(s, pos), c);
    ASSERT_EQ(pos, s.size());
  }
}

TEST(Utf8, SanitizedRandomBytesAreValidAndValidTextIsUntouched) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20000; ++round) {
    std::string bytes(static_cast<std::size_t>(rng() % 24), '\0');
    for (auto& b : bytes) b = static_cast<char>(rng() % 4 == 0 ? rng() % 128 : 0x80 + rng() % 128);
    const std::string clean = SanitizeUtf8(bytes);
    ASSERT_TRUE(IsValidUtf8(clean));
    ASSERT_EQ(SanitizeUtf8(clean), clean);
    ASSERT_EQ(IsValidUtf8(bytes), clean == bytes);
  }
}

TEST(ByteLevel, AlphabetIsGpt2s) {
  EXPECT_EQ(ByteLevelEncode(" "), "Ġ");
  EXPECT_EQ(ByteLevelEncode("\n"), "Ċ");
  EXPECT_EQ(ByteLevelEncode("A~"), "A~");
  EXPECT_EQ(ByteLevelEncode("\xE4\xB8\xAD"), "ä¸Ń");  // 中
  for (unsigned b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    std::string back;
    ASSERT_TRUE(ByteLevelDecode(ByteLevelEncode(one), back));
    ASSERT_EQ(back, one);
  }
  std::string out = "x";
  EXPECT_FALSE(ByteLevelDecode("a b", out));  // a real space is not in the alphabet
  EXPECT_EQ(out, "x");                        // nothing appended on failure
}

}  // namespace
}  // namespace infermark::tokenizer
