// Whole tokenizers built from hand-made tokenizer.json text: added tokens (leftmost-longest,
// lstrip/rstrip, single_word, normalized), post-processors, decoders, and every kind of bad input
// reported as an InputError naming the file, the field and the rule.
#include <gtest/gtest.h>

#include "core/diagnostic.hpp"
#include "tokenizer_test_support.hpp"

namespace infermark::tokenizer::test {
namespace {

using nlohmann::json;

// A character-level tokenizer over printable ASCII plus a few added tokens.
SyntheticSpec CharSpec() {
  SyntheticSpec spec;
  std::vector<std::string> tokens;
  for (char c = ' '; c <= '~'; ++c) tokens.emplace_back(1, c);
  spec.vocab = Vocab(tokens);  // ids 0..94
  spec.decoder = {{"type", "Fuse"}};
  return spec;
}

std::vector<std::string> TokenStrings(const Tokenizer& tok, const std::vector<std::uint32_t>& ids) {
  std::vector<std::string> out;
  for (const auto id : ids) out.push_back(tok.IdToToken(id).value_or("?"));
  return out;
}

using V = std::vector<std::string>;

TEST(TokenizerJson, AddedTokensLeftmostLongest) {
  SyntheticSpec spec = CharSpec();
  spec.added_tokens = json::array({AddedTokenJson(95, "<a>", true), AddedTokenJson(96, "<a><b>", true),
                                   AddedTokenJson(97, "xy", false), AddedTokenJson(98, "yz", false)});
  const Tokenizer tok = Tokenizer::FromJson(SyntheticJson(spec));
  EXPECT_EQ(TokenStrings(tok, tok.Encode("1<a><b>2<a>")), (V{"1", "<a><b>", "2", "<a>"}));
  EXPECT_EQ(TokenStrings(tok, tok.Encode("xyz")), (V{"xy", "z"}));  // leftmost wins over the overlap
  EXPECT_EQ(TokenStrings(tok, tok.Encode("<a")), (V{"<", "a"}));
  EXPECT_EQ(tok.TokenToId("<a><b>"), 96u);
  EXPECT_TRUE(tok.IsSpecial(95));
  EXPECT_FALSE(tok.IsSpecial(97));
  EXPECT_EQ(tok.Decode(tok.Encode("1<a>2")), "1<a>2");
  EXPECT_EQ(tok.Decode(tok.Encode("1<a>2xy"), true), "12xy");  // special skipped, non-special kept
  EXPECT_EQ(tok.VocabSize(), 95u + 4u);
  EXPECT_EQ(tok.IdLimit(), 99u);
}

TEST(TokenizerJson, AddedTokenStripAndSingleWord) {
  SyntheticSpec spec = CharSpec();
  spec.added_tokens = json::array({AddedTokenJson(100, "<L>", true, false, /*lstrip=*/true),
                                   AddedTokenJson(101, "<R>", true, false, false, /*rstrip=*/true),
                                   AddedTokenJson(102, "cat", false, false, false, false, /*single_word=*/true)});
  const Tokenizer tok = Tokenizer::FromJson(SyntheticJson(spec));
  EXPECT_EQ(TokenStrings(tok, tok.Encode("a  <L>b")), (V{"a", "<L>", "b"}));
  EXPECT_EQ(TokenStrings(tok, tok.Encode("a<R>  b")), (V{"a", "<R>", "b"}));
  EXPECT_EQ(TokenStrings(tok, tok.Encode("a cat b")), (V{"a", " ", "cat", " ", "b"}));
  EXPECT_EQ(TokenStrings(tok, tok.Encode("concatenate")).size(), 11u);  // inside a word: not matched
}

TEST(TokenizerJson, NormalizedAddedTokensMatchAfterNormalization) {
  SyntheticSpec spec = CharSpec();
  spec.normalizer = {{"type", "Lowercase"}};
  spec.added_tokens = json::array({AddedTokenJson(100, "Hello", false, /*normalized=*/true)});
  const Tokenizer tok = Tokenizer::FromJson(SyntheticJson(spec));
  EXPECT_EQ(TokenStrings(tok, tok.Encode("HELLO!")), (V{"Hello", "!"}));
  EXPECT_EQ(tok.Normalize("HeLLo <X>"), "hello <x>");
}

TEST(TokenizerJson, AddedTokenIdsFollowTokenizers) {
  // An added token already in the vocabulary keeps the vocabulary's id; others come after it.
  SyntheticSpec spec = CharSpec();
  spec.added_tokens = json::array({AddedTokenJson(500, "!", true), AddedTokenJson(501, "<new>", true)});
  const Tokenizer tok = Tokenizer::FromJson(SyntheticJson(spec));
  EXPECT_EQ(tok.TokenToId("!"), 1u);
  EXPECT_EQ(tok.TokenToId("<new>"), 95u);
}

TEST(TokenizerJson, TemplatePostProcessorAndConfigSpecialTokens) {
  SyntheticSpec spec = CharSpec();
  spec.added_tokens = json::array({AddedTokenJson(95, "<s>", true), AddedTokenJson(96, "</s>", true)});
  spec.post_processor = {{"type", "TemplateProcessing"},
                         {"single", json::array({{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                                                 {{"Sequence", {{"id", "A"}, {"type_id", 0}}}},
                                                 {{"SpecialToken", {{"id", "</s>"}, {"type_id", 0}}}}})},
                         {"special_tokens",
                          {{"<s>", {{"id", "<s>"}, {"ids", {95}}, {"tokens", {"<s>"}}}},
                           {"</s>", {{"id", "</s>"}, {"ids", {96}}, {"tokens", {"</s>"}}}}}}};
  const std::string config =
      R"({"bos_token": "<s>", "eos_token": {"content": "</s>"}, "model_max_length": 1000000000000000019884624838656})";
  const Tokenizer tok = Tokenizer::FromJson(SyntheticJson(spec), config);
  EXPECT_EQ(TokenStrings(tok, tok.Encode("ab", true)), (V{"<s>", "a", "b", "</s>"}));
  EXPECT_EQ(TokenStrings(tok, tok.Encode("ab")), (V{"a", "b"}));
  EXPECT_EQ(tok.special_token_ids().bos, 95u);
  EXPECT_EQ(tok.special_token_ids().eos, 96u);
  EXPECT_FALSE(tok.special_token_ids().pad.has_value());
}

TEST(TokenizerJson, SentencePieceStyleDecoders) {
  // Gemma's shape: spaces become "▁", byte fallback, decoder Replace + ByteFallback + Fuse.
  SyntheticSpec spec;
  std::vector<std::string> tokens = {"<unk>", "\xE2\x96\x81", "a", "b",
                                     "\xE2\x96\x81"
                                     "a"};
  for (unsigned b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    tokens.emplace_back(hex);
  }
  spec.vocab = Vocab(tokens);
  spec.merges = json::array({json::array({"\xE2\x96\x81", "a"})});
  spec.model_extra = {{"byte_fallback", true}, {"unk_token", "<unk>"}, {"fuse_unk", true}};
  spec.normalizer = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}};
  spec.decoder = {
      {"type", "Sequence"},
      {"decoders", json::array({{{"type", "Replace"}, {"pattern", {{"String", "\xE2\x96\x81"}}}, {"content", " "}},
                                {{"type", "ByteFallback"}},
                                {{"type", "Fuse"}}})}};
  const Tokenizer tok = Tokenizer::FromJson(SyntheticJson(spec));
  const auto ids = tok.Encode("a b \u00e9");
  EXPECT_EQ(TokenStrings(tok, ids), (V{"a", "\xE2\x96\x81", "b", "\xE2\x96\x81", "<0xC3>", "<0xA9>"}));
  EXPECT_EQ(tok.Decode(ids), "a b \u00e9");
  EXPECT_EQ(TokenStrings(tok, tok.Encode(" a")), (V{"\xE2\x96\x81"
                                                    "a"}));
  // An invalid byte run decodes to one U+FFFD per byte (Hugging Face's ByteFallback).
  const std::vector<std::uint32_t> bad = {*tok.TokenToId("<0xE4>"), *tok.TokenToId("<0xB8>"), *tok.TokenToId("a")};
  EXPECT_EQ(tok.Decode(bad), "\uFFFD\uFFFDa");
}

TEST(TokenizerJson, MetaspaceAndStripDecoders) {
  SyntheticSpec spec;
  spec.vocab =
      Vocab({"\xE2\x96\x81"
             "hi",
             "\xE2\x96\x81"
             "there",
             "x"});
  spec.model_extra = {{"ignore_merges", true}};  // whole pieces from the vocabulary
  spec.pre_tokenizer = {
      {"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", "always"}, {"split", true}};
  spec.decoder = {
      {"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", "always"}, {"split", true}};
  const Tokenizer tok = Tokenizer::FromJson(SyntheticJson(spec));
  const auto ids = tok.Encode("hi there");
  EXPECT_EQ(TokenStrings(tok, ids), (V{"\xE2\x96\x81"
                                       "hi",
                                       "\xE2\x96\x81"
                                       "there"}));
  EXPECT_EQ(tok.Decode(ids), "hi there");

  spec.pre_tokenizer = nullptr;
  spec.model_extra = json::object();
  spec.decoder = {{"type", "Strip"}, {"content", "x"}, {"start", 1}, {"stop", 2}};
  spec.vocab = Vocab({"x", "a", "xxaxx"});
  const Tokenizer strip = Tokenizer::FromJson(SyntheticJson(spec));
  EXPECT_EQ(strip.Decode(std::vector<std::uint32_t>{2}), "xa");
}

TEST(TokenizerJson, NoDecoderJoinsWithSpacesAndUnknownIdsAreSkipped) {
  SyntheticSpec spec = CharSpec();
  spec.decoder = nullptr;
  const Tokenizer tok = Tokenizer::FromJson(SyntheticJson(spec));
  EXPECT_EQ(tok.Decode(std::vector<std::uint32_t>{33, 34, 9999}), "A B");
  EXPECT_FALSE(tok.IdToToken(9999).has_value());
}

std::string ErrorOf(const std::string& tokenizer_json) {
  try {
    (void)Tokenizer::FromJson(tokenizer_json, {}, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TokenizerJson, BadInputIsAnInputErrorNamingFieldAndRule) {
  EXPECT_NE(ErrorOf("{\"model\": ").find("t.json: not valid JSON"), std::string::npos) << ErrorOf("{\"model\": ");
  SyntheticSpec spec = CharSpec();
  EXPECT_EQ(ErrorOf(R"({"added_tokens": []})"), "t.json: field 'model': is required");

  SyntheticSpec wordpiece = spec;
  wordpiece.model_extra = {{"type", "WordPiece"}};
  EXPECT_EQ(ErrorOf(SyntheticJson(wordpiece)),
            "t.json: field 'model.type': model 'WordPiece' is not supported (only BPE)");

  SyntheticSpec bad_merge = spec;
  bad_merge.merges = json::array({json::array({"a", "b"})});
  EXPECT_EQ(ErrorOf(SyntheticJson(bad_merge)), "t.json: field 'model': merged token 'ab' is not in the vocabulary");

  SyntheticSpec legacy = spec;
  legacy.merges = json::array({"a b c"});
  EXPECT_EQ(ErrorOf(SyntheticJson(legacy)),
            "t.json: field 'model.merges[0]': a merge must be two tokens separated by one space");

  SyntheticSpec bad_regex = spec;
  bad_regex.pre_tokenizer = {
      {"type", "Sequence"},
      {"pretokenizers", json::array({{{"type", "Split"}, {"pattern", {{"Regex", "(a"}}}, {"behavior", "Isolated"}}})}};
  EXPECT_NE(ErrorOf(SyntheticJson(bad_regex))
                .find("field 'pre_tokenizer.pretokenizers[0].pattern': invalid regular expression"),
            std::string::npos);

  SyntheticSpec unsupported = spec;
  unsupported.pre_tokenizer = {{"type", "BertPreTokenizer"}};
  EXPECT_EQ(ErrorOf(SyntheticJson(unsupported)),
            "t.json: field 'pre_tokenizer.type': pre-tokenizer 'BertPreTokenizer' is not supported");

  SyntheticSpec after_byte_level = spec;
  after_byte_level.pre_tokenizer = {{"type", "Sequence"},
                                    {"pretokenizers", json::array({{{"type", "ByteLevel"}}, {{"type", "Digits"}}})}};
  EXPECT_EQ(ErrorOf(SyntheticJson(after_byte_level)),
            "t.json: field 'pre_tokenizer.pretokenizers[1]': a pre-tokenizer after ByteLevel is not supported");

  SyntheticSpec dropout = spec;
  dropout.model_extra = {{"dropout", 0.1}};
  EXPECT_EQ(ErrorOf(SyntheticJson(dropout)),
            "t.json: field 'model.dropout': BPE dropout makes encoding random; not supported");

  SyntheticSpec bad_id = spec;
  bad_id.vocab["zz"] = -3;
  EXPECT_EQ(ErrorOf(SyntheticJson(bad_id)),
            "t.json: field 'model.vocab.zz': must be a token id (a non-negative 32-bit integer)");
}

TEST(TokenizerJson, LoadReportsMissingFiles) {
  const auto error_of = [](const std::string& path) -> std::string {
    try {
      (void)Tokenizer::Load(path);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_EQ(error_of("/nonexistent/tokenizer.json"), "/nonexistent/tokenizer.json: no such file");
  const std::string folder = infermark::test::Fixture("tokenizer-corpus");
  EXPECT_EQ(error_of(folder), folder + ": folder has no tokenizer.json");
}

}  // namespace
}  // namespace infermark::tokenizer::test
