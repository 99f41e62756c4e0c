// Where the JS oracle and Hugging Face `tokenizers` disagree, Hugging Face wins. Each case of
// tests/fixtures/tokenizer-corpus/js_hf_disagreements.json states the text, the pieces Hugging Face
// (Oniguruma, Unicode 14, Rust decoders) splits it into, and why JavaScript differs. Hugging Face
// cannot run here (no PyPI), so the expectation is built from the oracle itself on each piece
// alone, where both agree: our ids must equal the concatenation of the oracle's ids for the
// pieces, and must differ from the oracle's ids for the whole text (else the case is stale).
#include <gtest/gtest.h>

#include "tokenizer_test_support.hpp"

namespace infermark::tokenizer::test {
namespace {

class DisagreementTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DisagreementTest, HuggingFaceBehaviourWins) {
  const std::string& name = GetParam();
  if (!HaveTokenizer(name)) GTEST_FAIL() << MissingFixturesMessage(name);
  const Tokenizer& tok = RealTokenizer(name);
  const std::vector<Disagreement> cases = DisagreementsFor(name, tok);
  if (cases.empty()) GTEST_SKIP() << "no recorded disagreement for " << name;
  const OracleAnswer& oracle = FullOracle(name, tok);
  for (const auto& d : cases) {
    SCOPED_TRACE(d.name + ": " + d.why);
    if (d.kind == "encode") {
      std::vector<std::uint32_t> hf;
      std::string joined;
      for (const auto& piece : d.pieces) {
        const auto& ids = oracle.strings.at({piece, false});
        hf.insert(hf.end(), ids.begin(), ids.end());
        joined += piece;
      }
      ASSERT_EQ(joined, d.text) << "pieces must concatenate to the text";
      const std::vector<std::uint32_t> ours = tok.Encode(d.text);
      EXPECT_EQ(ours, hf) << "ours: " << Describe(tok, ours, 0, 12) << "\nHF:   " << Describe(tok, hf, 0, 12);
      EXPECT_NE(oracle.strings.at({d.text, false}), hf) << "the JS oracle now agrees with Hugging Face: drop this case";
    } else {
      EXPECT_EQ(tok.Decode(d.ids), d.hf_text);
      EXPECT_NE(oracle.decoded.at(d.ids), d.hf_text) << "the JS oracle now agrees with Hugging Face: drop this case";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Real, DisagreementTest, ::testing::ValuesIn(kRealTokenizers), TokenizerParamName);

}  // namespace
}  // namespace infermark::tokenizer::test
