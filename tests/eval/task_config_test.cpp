// The task file reader: InferenceX's gsm8k.yaml as lm-eval reads it, and malformed files refused
// with file:line, field and rule.
#include "eval/task_config.hpp"

#include <gtest/gtest.h>

#include "core/diagnostic.hpp"
#include "eval/doc_template.hpp"
#include "test_paths.hpp"

namespace infermark::eval {
namespace {

std::string ErrorOf(const std::string& yaml) {
  try {
    ParseTask(yaml, "task.yaml");
  } catch (const InputError& e) {
    std::string all;
    for (const Diagnostic& d : e.diagnostics()) all += d.ToString() + "\n";
    return all;
  }
  return "";
}

const std::string kGood = R"(task: t
dataset_path: some/folder
output_type: generate_until
test_split: test
doc_to_text: "Q: {{question}}"
doc_to_target: "{{answer}}"
metric_list:
  - metric: exact_match
)";

TEST(TaskConfig, ReadsInferenceXGsm8k) {
  const TaskConfig t = ReadTaskFile(test::SourcePath("data/evals/gsm8k.yaml"));
  EXPECT_EQ(t.task, "gsm8k");
  EXPECT_EQ(t.dataset_path, "openai/gsm8k");
  EXPECT_EQ(t.fewshot_split, "train");
  EXPECT_EQ(t.test_split, "test");
  EXPECT_EQ(t.num_fewshot, 5);
  EXPECT_EQ(t.sampler, "default");
  EXPECT_EQ(t.until, (std::vector<std::string>{"</s>", "<|im_end|>"}));
  ASSERT_EQ(t.metrics.size(), 1u);
  EXPECT_TRUE(t.metrics[0].ignore_case);
  EXPECT_EQ(t.metrics[0].regexes_to_ignore, (std::vector<std::string>{",", "\\$", "(?s).*#### ", "\\.$"}));
  ASSERT_EQ(t.filters.size(), 2u);
  EXPECT_EQ(t.filters[0].steps[0].regex_pattern, "#### (\\-?[0-9\\.\\,]+)");
  EXPECT_EQ(t.filters[1].steps[0].group_select, -1);
  EXPECT_DOUBLE_EQ(t.version, 3.0);
  const Json doc = {{"question", "How many?"}, {"answer", "x\n#### 3"}};
  EXPECT_EQ(t.doc_to_text.Render(doc, {}, "doc_to_text"),
            "Question: How many?\nEnd your response with the answer on the last line, formatted as: #### [number]\n"
            "Answer:");
  EXPECT_EQ(t.doc_to_target.Render(doc, {}, "doc_to_target"), "x\n#### 3");
}

TEST(TaskConfig, AMinimalFileReads) {
  EXPECT_EQ(ErrorOf(kGood), "");
}

TEST(TaskConfig, UnsupportedTemplatesAreRefusedWithTheirPlace) {
  std::string yaml = kGood;
  yaml.replace(yaml.find("\"{{answer}}\""), 12, "\"{{answer.split('### ')[-1]}}\"");
  const std::string e = ErrorOf(yaml);
  EXPECT_NE(e.find("task.yaml:6"), std::string::npos) << e;
  EXPECT_NE(e.find("doc_to_target"), std::string::npos) << e;
  EXPECT_NE(e.find("not a plain field substitution"), std::string::npos) << e;
  EXPECT_NE(ErrorOf(kGood + "description: \"{% if x %}y{% endif %}\"\n"), "");
  DocTemplate t;
  EXPECT_TRUE(DocTemplate::Compile("{{ a | upper }}", t).has_value());
  EXPECT_TRUE(DocTemplate::Compile("{{ a", t).has_value());
  EXPECT_FALSE(DocTemplate::Compile("{{ a }} and {{b}}", t).has_value());
}

TEST(TaskConfig, BadFieldsNameFileLineFieldAndRule) {
  const std::string unknown = ErrorOf(kGood + "fewshot_confg:\n  sampler: first_n\n");
  EXPECT_NE(unknown.find("task.yaml:9"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("fewshot_confg"), std::string::npos) << unknown;

  const std::string regex = ErrorOf(kGood +
                                    "filter_list:\n  - name: s\n    filter:\n      - function: regex\n"
                                    "        regex_pattern: \"(unclosed\"\n      - function: take_first\n");
  EXPECT_NE(regex.find("filter_list[0].filter[0].regex_pattern"), std::string::npos) << regex;
  EXPECT_NE(regex.find("not a valid regular expression"), std::string::npos) << regex;

  const std::string sampler = ErrorOf(kGood + "fewshot_config:\n  sampler: balanced\n");
  EXPECT_NE(sampler.find("fewshot_config.sampler"), std::string::npos) << sampler;

  const std::string metric = ErrorOf(std::string(kGood).replace(kGood.find("exact_match"), 11, "bleu"));
  EXPECT_NE(metric.find("metric_list[0].metric"), std::string::npos) << metric;

  const std::string sampling = ErrorOf(kGood + "generation_kwargs:\n  do_sample: true\n");
  EXPECT_NE(sampling.find("do_sample"), std::string::npos) << sampling;

  const std::string order = ErrorOf(kGood +
                                    "filter_list:\n  - name: s\n    filter:\n      - function: take_first\n"
                                    "      - function: regex\n");
  EXPECT_NE(order.find("must end with take_first"), std::string::npos) << order;
}

TEST(DocTemplate, MissingFieldIsAnInputErrorAtTheTemplate) {
  DocTemplate t;
  ASSERT_FALSE(DocTemplate::Compile("Q: {{question}}", t).has_value());
  EXPECT_THROW(t.Render(Json{{"answer", "1"}}, SourceMark{"f.yaml", 3, 1}, "doc_to_text"), InputError);
  EXPECT_EQ(t.Render(Json{{"question", 7}}, {}, "doc_to_text"), "Q: 7");
}

}  // namespace
}  // namespace infermark::eval
