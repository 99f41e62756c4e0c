#include "tokenizer/normalizer.hpp"

#include <gtest/gtest.h>
#include <utf8proc.h>

#include <random>

#include "tokenizer/utf8.hpp"

namespace infermark::tokenizer {
namespace {

std::string Apply(const Normalizer& n, std::string text) {
  n.Normalize(text);
  return text;
}

std::string FullNfc(const std::string& text) {
  utf8proc_uint8_t* out = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(text.c_str()));
  std::string result(reinterpret_cast<char*>(out));
  std::free(out);
  return result;
}

TEST(Normalizer, UnicodeForms) {
  EXPECT_EQ(Apply(*MakeUnicodeNormalizer(UnicodeForm::kNfc), "e\u0301 A\u030a \u212b"), "\u00e9 \u00c5 \u00c5");
  EXPECT_EQ(Apply(*MakeUnicodeNormalizer(UnicodeForm::kNfd), "\u00e9"), "e\u0301");
  EXPECT_EQ(Apply(*MakeUnicodeNormalizer(UnicodeForm::kNfkc), "\ufb01 \u2460 \uff21"), "fi 1 A");
  EXPECT_EQ(Apply(*MakeUnicodeNormalizer(UnicodeForm::kNfkd), "\u00e9\ufb01"), "e\u0301fi");
  EXPECT_EQ(Apply(*MakeUnicodeNormalizer(UnicodeForm::kNfc), "\u1112\u1161\u11ab"), "\ud55c");  // jamo compose
  const std::string nul("a\0b", 3);
  EXPECT_EQ(Apply(*MakeUnicodeNormalizer(UnicodeForm::kNfc), nul + "e\u0301"), nul + "\u00e9");  // NUL is text
}

// The NFC fast path skips utf8proc when a string is certainly NFC already. It must never skip one
// that NFC changes: check every code point, alone and as its own canonical decomposition.
TEST(Normalizer, NfcQuickCheckIsConservative) {
  for (char32_t c = 1; c <= 0x10FFFF; ++c) {  // NUL: see UnicodeForms
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    if (utf8proc_category(static_cast<utf8proc_int32_t>(c)) == UTF8PROC_CATEGORY_CN) continue;
    std::string one;
    AppendUtf8(c, one);
    if (IsCertainlyNfc(one)) {
      ASSERT_EQ(FullNfc(one), one) << std::hex << static_cast<unsigned>(c);
    }
    utf8proc_uint8_t* nfd = utf8proc_NFD(reinterpret_cast<const utf8proc_uint8_t*>(one.c_str()));
    const std::string decomposed(reinterpret_cast<char*>(nfd));
    std::free(nfd);
    for (const std::string& prefix : {std::string(), std::string("a"), std::string("\u1100")}) {
      const std::string text = prefix + decomposed;
      if (IsCertainlyNfc(text)) {
        ASSERT_EQ(FullNfc(text), text) << std::hex << static_cast<unsigned>(c);
      }
    }
  }
  EXPECT_TRUE(IsCertainlyNfc("plain text, 中文, 日本語のテキスト, 한국어, emoji 😀"));
  EXPECT_FALSE(IsCertainlyNfc("e\u0301"));
}

// NFC works segment by segment around the characters that can change; the result must be the
// same as normalizing the whole text, wherever the segments fall.
TEST(Normalizer, NfcBySegmentsEqualsWholeTextNfc) {
  const std::vector<char32_t> pool = {'a',    'e',    'A',    ' ',    '\n',   0x00E9,  0x0301, 0x0300, 0x0327,
                                      0x0323, 0x0302, 0x212B, 0x212A, 0x1100, 0x1161,  0x11A8, 0xAC00, 0xAC01,
                                      0x4E2D, 0x0915, 0x093C, 0x0958, 0x05D1, 0x05BC,  0x0F71, 0x0F72, 0x1E0A,
                                      0x0344, 0x0308, 0x0CC6, 0x0CC2, 0x0CD5, 0x1F600, 0x00C5, 0x0041, 0x030A};
  const auto nfc = MakeUnicodeNormalizer(UnicodeForm::kNfc);
  std::mt19937 rng(5);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const std::size_t n = rng() % 16;
    for (std::size_t i = 0; i < n; ++i) AppendUtf8(pool[rng() % pool.size()], text);
    ASSERT_EQ(Apply(*nfc, text), FullNfc(text)) << "round " << round;
  }
}

TEST(Normalizer, ReplacePrependStripLowercaseStripAccents) {
  EXPECT_EQ(Apply(*MakeReplaceString(" ", "\u2581"), " a  b "), "\u2581a\u2581\u2581b\u2581");
  EXPECT_EQ(Apply(*MakeReplaceRegex(OnigRegex(R"(\s+)"), "_"), "a \t b\n"), "a_b_");
  EXPECT_EQ(Apply(*MakePrepend("\u2581"), "x"), "\u2581x");
  EXPECT_EQ(Apply(*MakePrepend("\u2581"), ""), "");  // nothing to prepend to
  EXPECT_EQ(Apply(*MakeStrip(true, true), " \t\u3000 x y \u00a0\n"), "x y");
  EXPECT_EQ(Apply(*MakeStrip(false, true), "  x  "), "  x");
  EXPECT_EQ(Apply(*MakeLowercase(), "ÀB\u0130Σ"), "àbi\u0307σ");  // İ lowercases to i + combining dot
  EXPECT_EQ(Apply(*MakeStripAccents(), "e\u0301a\u0308"), "ea");
  std::vector<std::unique_ptr<Normalizer>> parts;
  parts.push_back(MakeUnicodeNormalizer(UnicodeForm::kNfd));
  parts.push_back(MakeStripAccents());
  parts.push_back(MakeLowercase());
  EXPECT_EQ(Apply(*MakeNormalizerSequence(std::move(parts)), "Café"), "cafe");
  EXPECT_EQ(MakeNormalizerSequence({}), nullptr);
}

}  // namespace
}  // namespace infermark::tokenizer
