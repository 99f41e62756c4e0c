// `infermark tokenize` black-box: the binary's ids are the library's, per line and whole, decode
// inverts encode, and bad input (missing tokenizer, bad ids) is one clear message and exit 2.
#include <gtest/gtest.h>

#include "run_binary.hpp"
#include "tokenizer_test_support.hpp"

namespace infermark::tokenizer::test {
namespace {

// Runs `infermark tokenize ARGS… < stdin_text`.
ProcessResult Tokenize(const std::vector<std::string>& args, const std::string& stdin_text) {
  const fs::path input = fs::temp_directory_path() / ("infermark-tokenize-" + std::to_string(getpid()) + ".in");
  std::ofstream(input, std::ios::binary) << stdin_text;
  std::vector<std::string> argv = {"sh",      "-c",           "in=\"$1\"; shift; exec \"$@\" < \"$in\"",
                                   "sh",      input.string(), infermark::test::Binary(),
                                   "tokenize"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult result = RunCapture(argv);
  fs::remove(input);
  return result;
}

std::string IdsJson(const std::vector<std::uint32_t>& ids) {
  return nlohmann::json(ids).dump();
}

TEST(CliTokenize, EncodesLikeTheLibraryWholeAndPerLine) {
  if (!HaveTokenizer("qwen3")) GTEST_FAIL() << MissingFixturesMessage("qwen3");
  const Tokenizer& tok = RealTokenizer("qwen3");
  const std::string text = "Hello, 世界!\r\n<|im_start|>user\n\n  two spaces\xff";
  const ProcessResult whole = Tokenize({"--tokenizer", TokenizerDir("qwen3")}, text);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(whole.out, IdsJson(tok.Encode(text)) + "\n");

  const ProcessResult lines = Tokenize({"--tokenizer", TokenizerDir("qwen3") + "/tokenizer.json", "--per-line"}, text);
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  EXPECT_EQ(lines.out, IdsJson(tok.Encode("Hello, 世界!")) + "\n" + IdsJson(tok.Encode("<|im_start|>user")) + "\n" +
                           "[]\n" + IdsJson(tok.Encode("  two spaces\xff")) + "\n");

  const ProcessResult decoded = Tokenize({"--tokenizer", TokenizerDir("qwen3"), "--decode"}, IdsJson(tok.Encode(text)));
  ASSERT_EQ(decoded.exit_code, 0) << decoded.err;
  EXPECT_EQ(decoded.out, tok.Decode(tok.Encode(text)));
  EXPECT_EQ(decoded.out, "Hello, 世界!\r\n<|im_start|>user\n\n  two spaces\uFFFD");
}

// A tiny tokenizer keeps these quick: each run loads it.
std::string TinyTokenizer() {
  SyntheticSpec spec;
  std::vector<std::string> tokens;
  for (char c = ' '; c <= '~'; ++c) tokens.emplace_back(1, c);
  spec.vocab = Vocab(tokens);
  spec.decoder = {{"type", "Fuse"}};
  spec.added_tokens = nlohmann::json::array({AddedTokenJson(95, "<s>", true)});
  spec.post_processor = {{"type", "TemplateProcessing"},
                         {"single", nlohmann::json::array({{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                                                           {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})},
                         {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {95}}, {"tokens", {"<s>"}}}}}}};
  const fs::path dir = fs::temp_directory_path() / ("infermark-tiny-tokenizer-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "tokenizer.json") << SyntheticJson(spec);
  return dir.string();
}

TEST(CliTokenize, DecodePerLineAndSpecialTokenFlags) {
  const std::string dir = TinyTokenizer();
  EXPECT_EQ(Tokenize({"--tokenizer", dir}, "AB").out, "[33,34]\n");
  EXPECT_EQ(Tokenize({"--tokenizer", dir, "--add-special-tokens"}, "AB").out, "[95,33,34]\n");
  EXPECT_EQ(Tokenize({"--tokenizer", dir, "--decode"}, "[95, 33, 34]").out, "<s>AB");
  EXPECT_EQ(Tokenize({"--tokenizer", dir, "--decode", "--skip-special-tokens"}, "[95,33]").out, "A");
  EXPECT_EQ(Tokenize({"--tokenizer", dir, "--decode", "--per-line"}, "[33]\n\n[34,34]\n").out, "A\n\nBB\n");
  EXPECT_EQ(Tokenize({"--tokenizer", dir}, "").out, "[]\n");
  fs::remove_all(dir);
}

TEST(CliTokenize, BadInputExitsTwoWithOneMessage) {
  const std::string dir = TinyTokenizer();
  const auto expect_bad = [](const ProcessResult& r, const std::string& message) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  expect_bad(Tokenize({"--tokenizer", "/nonexistent/dir"}, "x"), "/nonexistent/dir: no such file");
  expect_bad(Tokenize({"--tokenizer", dir, "--decode"}, "[1, 2"), "stdin: expected a JSON array of token ids");
  expect_bad(Tokenize({"--tokenizer", dir, "--decode"}, "{\"ids\": [1]}"), "stdin: expected a JSON array of token ids");
  expect_bad(Tokenize({"--tokenizer", dir, "--decode"}, "[1, \"x\"]"), "item 1 is not an integer token id");
  expect_bad(Tokenize({"--tokenizer", dir, "--decode"}, "[1, 96]"), "item 1: no token has id 96");
  expect_bad(Tokenize({"--tokenizer", dir, "--decode"}, "[-1]"), "item 0: no token has id -1");
  expect_bad(Tokenize({"--tokenizer", dir, "--decode", "--per-line"}, "[1]\n[2,x]\n"),
             "stdin:2: expected a JSON array of token ids");
  std::ofstream(fs::path(dir) / "tokenizer.json") << "{\"model\": {\"type\": \"Unigram\", \"vocab\": []}}";
  expect_bad(Tokenize({"--tokenizer", dir}, "x"), "field 'model.type': model 'Unigram' is not supported");
  const ProcessResult no_flag = Tokenize({}, "x");
  EXPECT_EQ(no_flag.exit_code, 2);
  EXPECT_NE(no_flag.err.find("--tokenizer is required"), std::string::npos) << no_flag.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark::tokenizer::test
