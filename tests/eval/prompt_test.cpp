// Few-shot sampling and prompts as lm-evaluation-harness builds them: Python's random.Random
// re-implemented (values from CPython), and the first 20 GSM8K test prompts, 5-shot, equal to the
// fixture make_prompt_fixture.py writes with Python's own generator.
#include <gtest/gtest.h>

#include <fstream>

#include "eval/prompt_builder.hpp"
#include "eval/python_random.hpp"
#include "eval/task_config.hpp"
#include "eval/task_data.hpp"
#include "test_paths.hpp"

namespace infermark::eval {
namespace {

TEST(PythonRandom, MatchesCPython) {
  // random.Random(1234): getrandbits(32) three times.
  PythonRandom r(1234);
  EXPECT_EQ(r.GetRandBits(32), 4150886329u);
  EXPECT_EQ(r.GetRandBits(32), 3342196574u);
  EXPECT_EQ(r.GetRandBits(32), 1892932127u);
  // random.Random(1234).sample(range(7473), 5) twice: the set algorithm.
  PythonRandom s(1234);
  EXPECT_EQ(s.SampleIndices(7473, 5), (std::vector<std::size_t>{6374, 3610, 957, 61, 742}));
  EXPECT_EQ(s.SampleIndices(7473, 5), (std::vector<std::size_t>{7462, 6610, 4769, 286, 5501}));
  // random.Random(7).sample(range(10), 4): the pool algorithm.
  PythonRandom p(7);
  EXPECT_EQ(p.SampleIndices(10, 4), (std::vector<std::size_t>{5, 2, 6, 9}));
}

TEST(Prompts, First20Gsm8kPromptsMatchLmEvalsRules) {
  const TaskConfig task = ReadTaskFile(test::SourcePath("data/evals/gsm8k.yaml"));
  const std::string folder = DatasetFolder(task);
  const std::vector<Json> train = ReadSplit(folder, "train");
  const std::vector<Json> tests = ReadSplit(folder, "test");
  ASSERT_EQ(train.size(), 7473u);
  ASSERT_EQ(tests.size(), 1319u);
  std::ifstream in(test::SourcePath("tests/eval/fixtures/gsm8k_chat_5shot_first20.json"));
  const Json expected = Json::parse(in);
  ASSERT_EQ(expected.size(), 20u);
  FewshotSampler sampler(train, task.sampler);
  for (std::size_t i = 0; i < 20; ++i) {
    std::vector<const Json*> examples;
    for (const std::size_t k : sampler.Sample(5, nullptr)) examples.push_back(&train[k]);
    const std::vector<Turn> turns = BuildTurns(task, examples, tests[i]);
    EXPECT_EQ(ChatMessages(turns), expected[i]) << "test document " << i;
  }
}

TEST(Prompts, PlainTextJoinsWithTheTaskDelimiters) {
  const TaskConfig task = ReadTaskFile(test::SourcePath("data/evals/gsm8k.yaml"));
  const Json a = {{"question", "A?"}, {"answer", "1"}};
  const Json b = {{"question", "B?"}, {"answer", "2"}};
  const Json doc = {{"question", "C?"}, {"answer", "3"}};
  const std::string text = PromptText(BuildTurns(task, {&a, &b}, doc));
  const std::string tail = "\nEnd your response with the answer on the last line, formatted as: #### [number]\nAnswer:";
  EXPECT_EQ(text, "Question: A?" + tail + " 1\n\nQuestion: B?" + tail + " 2\n\nQuestion: C?" + tail);
}

TEST(Prompts, AnExampleIsNeverItsOwnDocumentWhenSplitsAreShared) {
  std::vector<Json> pool;
  for (int i = 0; i < 6; ++i) pool.push_back(Json{{"question", std::to_string(i)}});
  FewshotSampler sampler(pool, "default");
  for (int round = 0; round < 50; ++round) {
    const auto picked = sampler.Sample(5, &pool[2]);
    ASSERT_EQ(picked.size(), 5u);
    for (const std::size_t k : picked) EXPECT_NE(k, 2u);
  }
  FewshotSampler first(pool, "first_n");
  EXPECT_EQ(first.Sample(3, nullptr), (std::vector<std::size_t>{0, 1, 2}));
}

}  // namespace
}  // namespace infermark::eval
