// Scoring as lm-evaluation-harness scores GSM8K with InferenceX's task file: the strict and
// flexible filters, then exact_match with its regexes_to_ignore and ignore_case. The expected
// values follow lm-eval's rules (Python re.findall, the last match, the first non-empty group,
// strip, "[invalid]" without a match; re.sub of each ignored pattern in order, then lower()).
#include <gtest/gtest.h>

#include "eval/aggregate.hpp"
#include "eval/answer_filter.hpp"
#include "eval/exact_match.hpp"
#include "eval/python_regex.hpp"
#include "eval/task_config.hpp"
#include "eval/task_data.hpp"
#include "test_paths.hpp"

namespace infermark::eval {
namespace {

const TaskConfig& Gsm8k() {
  static const TaskConfig task = ReadTaskFile(test::SourcePath("data/evals/gsm8k.yaml"));
  return task;
}

struct Case {
  const char* response;
  const char* strict;
  double strict_score;
  const char* flexible;
  double flexible_score;
};

// The reference answer is GSM8K's worked solution; "(?s).*#### " and "," reduce it to "1234".
constexpr const char* kGold = "Some work\n#### 1,234";

TEST(Gsm8kScoring, EveryFilterBranchScoresAsLmEvalDoes) {
  const std::vector<Case> cases = {
      {"no number here", "[invalid]", 0, "[invalid]", 0},  // no match: the fallback
      {"The answer is 1234", "[invalid]", 0, "1234", 1},   // flexible only
      {"#### 1234", "1234", 1, "1234", 1},
      {"#### 1,234", "1,234", 1, "1,234", 1},                 // commas ignored
      {"#### $1,234", "[invalid]", 0, "$1,234", 1},           // '$' ignored (flexible keeps it)
      {"#### 1234.", "1234.", 1, "1234.", 1},                 // trailing period ignored
      {"#### 1234.\n", "1234.", 1, "1234.", 1},               // '$' matches before a final newline
      {"first 12 then 34\n#### 1234", "1234", 1, "1234", 1},  // several matches: the last
      {"#### 12\nthen #### 1234", "1234", 1, "1234", 1},
      {"#### 1234\nwait, #### 99", "99", 0, "99", 0},  // the last match wins, wrongly
      {"costs $5 and 7", "[invalid]", 0, "7", 0},      // two groups: the non-empty one
      {"Answer: 1234.", "[invalid]", 0, "1234.", 1},
      {"#### -1234", "-1234", 0, "-1234", 0},
      {"THE ANSWER IS 1,234", "[invalid]", 0, "1,234", 1},
      {"#### 1.234", "1.234", 0, "1.234", 0},  // an inner period is kept
      {"x 7", "[invalid]", 0, "7", 0},         // the second alternative alone
      {"#### 1234 dollars", "1234", 1, "1234", 1},
      {"12 items\n#### 1234\n", "1234", 1, "1234", 1},
  };
  const TaskConfig& task = Gsm8k();
  ASSERT_EQ(task.filters.size(), 2u);
  const AnswerFilter strict(task.filters[0]);
  const AnswerFilter flexible(task.filters[1]);
  EXPECT_EQ(strict.name(), "strict-match");
  EXPECT_EQ(flexible.name(), "flexible-extract");
  const ExactMatch em(task.metrics.at(0));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.response);
    const std::string s = strict.Apply({c.response});
    const std::string f = flexible.Apply({c.response});
    EXPECT_EQ(s, c.strict);
    EXPECT_EQ(f, c.flexible);
    EXPECT_EQ(em.Score(s, kGold), c.strict_score);
    EXPECT_EQ(em.Score(f, kGold), c.flexible_score);
  }
}

TEST(Gsm8kScoring, CaseAndPunctuationOptionsApplyToBothSides) {
  MetricSpec m;
  m.ignore_case = true;
  EXPECT_EQ(ExactMatch(m).Score("Paris", "PARIS"), 1.0);
  m.ignore_case = false;
  EXPECT_EQ(ExactMatch(m).Score("Paris", "PARIS"), 0.0);
  m.ignore_punctuation = true;
  EXPECT_EQ(ExactMatch(m).Score("a.b,c!", "abc"), 1.0);
  m.ignore_numbers = true;
  EXPECT_EQ(ExactMatch(m).Score("a1b2", "ab"), 1.0);
  m = MetricSpec{};
  m.regexes_to_ignore = {"x+", "^a"};  // in order: "axxb" -> "ab" -> "b"
  EXPECT_EQ(ExactMatch(m).Normalize("axxb"), "b");
}

TEST(Gsm8kScoring, TakeFirstKeepsTheFirstResponse) {
  const AnswerFilter strict(Gsm8k().filters[0]);
  EXPECT_EQ(strict.Apply({"#### 5", "#### 6"}), "5");
  EXPECT_EQ(strict.Apply({}), "");
}

TEST(PythonRegex, DollarDotAllAndEmptyMatchesFollowPython) {
  EXPECT_EQ(PythonRegex(R"(\.$)").Delete("5.\n"), "5\n");  // before a final newline
  EXPECT_EQ(PythonRegex(R"(\.$)").Delete("5.\nx"), "5.\nx");
  EXPECT_EQ(PythonRegex("(?s).*#### ").Delete("a\nb\n#### 7"), "7");
  EXPECT_EQ(PythonRegex(".*#### ").Delete("a\nb #### 7"), "a\n7");  // '.' stops at newlines
  // re.findall("x*", "axb") == ['', 'x', '', '']
  const auto m = PythonRegex("x*").FindAll("axb");
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].whole, "");
  EXPECT_EQ(m[1].whole, "x");
  EXPECT_EQ(m[2].whole, "");
  EXPECT_TRUE(PythonRegex::Check("(unclosed").has_value());
}

// lm-eval's group aggregation: the mean weighted by size and the pooled standard error
// (aggregate_subtask_metrics, pooled_sample_stderr), worked out by hand.
TEST(Aggregate, GroupsCombineAsLmEvalCombinesSubtasks) {
  EXPECT_DOUBLE_EQ(SizeWeightedMean({0.8, 0.5}, {300, 100}), (0.8 * 300 + 0.5 * 100) / 400);
  // (99·0.03²·100 + 99·0.04²·100) / (200 − 2) = 0.125; / 200 = 0.000625; sqrt = 0.025.
  EXPECT_NEAR(*PooledSampleStderr({0.03, 0.04}, {100, 100}), 0.025, 1e-15);
  EXPECT_FALSE(PooledSampleStderr({0.1}, {1}));  // no degree of freedom
  EXPECT_FALSE(PooledSampleStderr({0.1, 0.2}, {5}));
}

TEST(Aggregate, MeanAndSampleStandardError) {
  EXPECT_DOUBLE_EQ(Mean({1, 0, 1, 1}), 0.75);
  // sample stddev of {1,0,1,1} = sqrt(0.75/3) = 0.5; over sqrt(4) = 0.25
  EXPECT_DOUBLE_EQ(*MeanStderr({1, 0, 1, 1}), 0.25);
  EXPECT_FALSE(MeanStderr({1}).has_value());  // "N/A"
}

}  // namespace
}  // namespace infermark::eval
