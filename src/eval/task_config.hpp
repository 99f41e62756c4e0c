// An lm-evaluation-harness task file (YAML), the subset InferenceX's task files use for
// generate_until tasks, read strictly: every field is type checked, values infermark would run
// differently from lm-eval are refused, and each problem names file:line, field and rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"
#include "eval/doc_template.hpp"

namespace infermark::eval {

/// One `metric_list` entry (exact_match aggregated by mean).
struct MetricSpec {
  std::string metric = "exact_match";          ///< The metric's name (exact_match only).
  std::string aggregation = "mean";            ///< How per-document values are aggregated (mean only).
  bool higher_is_better = true;                ///< Direction, as written.
  bool ignore_case = false;                    ///< Lower-case prediction and reference.
  bool ignore_punctuation = false;             ///< Delete ASCII punctuation from both.
  bool ignore_numbers = false;                 ///< Delete ASCII digits from both.
  std::vector<std::string> regexes_to_ignore;  ///< Python regexes deleted from both, in order.
};

/// One step of a filter pipeline.
struct FilterStep {
  std::string function;                                   ///< "regex" or "take_first".
  std::string regex_pattern = R"(#### (\-?[0-9\.\,]+))";  ///< regex: the pattern (lm-eval's default).
  std::int64_t group_select = 0;                          ///< regex: which match (negative from the end).
  std::string fallback = "[invalid]";                     ///< regex: the value when nothing matches.
};

/// A named filter pipeline (`filter_list` entry); the metrics are reported per pipeline.
struct FilterSpec {
  std::string name;               ///< e.g. "strict-match".
  std::vector<FilterStep> steps;  ///< Applied in order.
};

/// A task as read.
struct TaskConfig {
  std::string file;                          ///< Where it was read from.
  std::string task;                          ///< Its name (results key).
  std::vector<std::string> tag;              ///< Tags, as written.
  std::string dataset_path;                  ///< HF dataset name, or a folder of <split>.jsonl files.
  std::string dataset_name;                  ///< HF config name (may be empty).
  std::string training_split;                ///< As written (may be empty).
  std::string fewshot_split;                 ///< Split few-shot examples come from (training_split when absent).
  std::string test_split;                    ///< Split evaluated.
  DocTemplate doc_to_text;                   ///< The question.
  DocTemplate doc_to_target;                 ///< The reference answer.
  SourceMark doc_to_text_mark;               ///< Where doc_to_text was written.
  SourceMark doc_to_target_mark;             ///< Where doc_to_target was written.
  std::string description;                   ///< Text before the few-shot examples (empty: none).
  std::string target_delimiter = " ";        ///< Between a question and its answer (plain-text prompts).
  std::string fewshot_delimiter = "\n\n";    ///< Between examples (plain-text prompts).
  std::string sampler = "default";           ///< fewshot_config.sampler: "default" (seeded random) or "first_n".
  std::int64_t num_fewshot = 0;              ///< Examples per prompt.
  std::vector<std::string> until;            ///< generation_kwargs.until (stop strings).
  std::optional<double> temperature;         ///< generation_kwargs.temperature.
  std::optional<std::int64_t> max_gen_toks;  ///< generation_kwargs.max_gen_toks.
  std::vector<MetricSpec> metrics;           ///< metric_list.
  std::vector<FilterSpec> filters;           ///< filter_list ("none" with take_first when absent).
  Json as_json;                              ///< The file as JSON (the results file's `configs` entry).
  Json generation_kwargs;                    ///< generation_kwargs as JSON.
  double version = 0;                        ///< metadata.version.
};

/// Reads a task file; throws InputError listing every problem.
TaskConfig ReadTaskFile(const std::string& path);
/// Reads task YAML text named `name` in diagnostics.
TaskConfig ParseTask(const std::string& text, const std::string& name);

}  // namespace infermark::eval
