#include "eval/task_config.hpp"

#include "core/field_reader.hpp"
#include "core/file_io.hpp"
#include "core/yaml_node.hpp"
#include "eval/python_regex.hpp"

namespace infermark::eval {
namespace {

SourceMark MarkOf(const std::string& file, const YamlNode* node) {
  return node == nullptr ? SourceMark{file, 0, 0} : SourceMark{file, node->line, node->column};
}

void ReadTemplate(FieldReader& r, const ReadContext& ctx, std::string_view key, DocTemplate& out, SourceMark& mark) {
  const YamlNode* node = r.Get(key);
  const std::optional<std::string> text = r.String(key, Need::kRequired);
  mark = MarkOf(*ctx.file, node);
  if (!text) return;
  if (const auto rule = DocTemplate::Compile(*text, out)) ctx.Report(node, std::string(key), *rule);
}

void CheckRegex(const ReadContext& ctx, const YamlNode* node, const std::string& field, const std::string& pattern) {
  if (const auto error = PythonRegex::Check(pattern))
    ctx.Report(node, field, "not a valid regular expression: " + *error);
}

MetricSpec ReadMetric(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  FieldReader r(ctx, node, path);
  MetricSpec m;
  if (auto v = r.Choice("metric", Need::kRequired, {"exact_match"})) m.metric = *v;
  if (auto v = r.Choice("aggregation", Need::kDefaulted, {"mean"})) m.aggregation = *v;
  if (auto v = r.Bool("higher_is_better", Need::kDefaulted)) m.higher_is_better = *v;
  if (auto v = r.Bool("ignore_case", Need::kDefaulted)) m.ignore_case = *v;
  if (auto v = r.Bool("ignore_punctuation", Need::kDefaulted)) m.ignore_punctuation = *v;
  if (auto v = r.Bool("ignore_numbers", Need::kDefaulted)) m.ignore_numbers = *v;
  if (const YamlNode* list = r.List("regexes_to_ignore", Need::kOptional)) {
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      const YamlNode& item = list->items[i];
      const std::string field = r.PathOf("regexes_to_ignore") + "[" + std::to_string(i) + "]";
      if (item.kind != YamlKind::kString) {
        ctx.Report(&item, field, "must be a string, not " + std::string(item.TypeName()));
        continue;
      }
      CheckRegex(ctx, &item, field, item.text);
      m.regexes_to_ignore.push_back(item.text);
    }
  }
  r.RejectUnknown();
  return m;
}

FilterStep ReadStep(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  FieldReader r(ctx, node, path);
  FilterStep s;
  if (auto v = r.Choice("function", Need::kRequired, {"regex", "take_first"})) s.function = *v;
  if (s.function == "regex") {
    const YamlNode* pattern_node = r.Get("regex_pattern");
    if (auto v = r.String("regex_pattern", Need::kDefaulted, 1)) s.regex_pattern = *v;
    CheckRegex(ctx, pattern_node != nullptr ? pattern_node : &node, r.PathOf("regex_pattern"), s.regex_pattern);
    if (auto v = r.Int("group_select", Need::kDefaulted)) s.group_select = *v;
    if (auto v = r.String("fallback", Need::kDefaulted)) s.fallback = *v;
  }
  r.RejectUnknown();
  return s;
}

FilterSpec ReadFilter(const ReadContext& ctx, const YamlNode& node, const std::string& path) {
  FieldReader r(ctx, node, path);
  FilterSpec f;
  if (auto v = r.String("name", Need::kRequired, 1)) f.name = *v;
  if (const YamlNode* steps = r.List("filter", Need::kRequired)) {
    if (steps->items.empty()) ctx.Report(steps, r.PathOf("filter"), "needs at least one step");
    for (std::size_t i = 0; i < steps->items.size(); ++i) {
      f.steps.push_back(ReadStep(ctx, steps->items[i], r.PathOf("filter") + "[" + std::to_string(i) + "]"));
    }
    // A pipeline must end with one answer per document: lm-eval's take_first does that.
    if (!f.steps.empty() && f.steps.back().function != "take_first") {
      ctx.Report(steps, r.PathOf("filter"), "must end with take_first (one answer per document)");
    }
  }
  r.RejectUnknown();
  return f;
}

void ReadGeneration(const ReadContext& ctx, FieldReader& top, TaskConfig& t) {
  const YamlNode* node = top.Mapping("generation_kwargs", Need::kDefaulted);
  if (node == nullptr) {
    // lm-eval stops at the few-shot delimiter when a task names no stop strings.
    t.until = {t.fewshot_delimiter};
    t.generation_kwargs = Json{{"until", t.until}};
    return;
  }
  t.generation_kwargs = ToJson(*node);
  FieldReader r(ctx, *node, "generation_kwargs");
  if (auto v = r.StringList("until", Need::kDefaulted)) {
    t.until = *v;
  } else {
    t.until = {t.fewshot_delimiter};
  }
  if (auto v = r.Bool("do_sample", Need::kDefaulted); v && *v) {
    ctx.Report(r.Get("do_sample"), "generation_kwargs.do_sample", "sampling is not supported: evals decode greedily");
  }
  t.temperature = r.Float("temperature", Need::kDefaulted);
  t.max_gen_toks = r.Int("max_gen_toks", Need::kDefaulted, 1);
  r.RejectUnknown();
}

}  // namespace

TaskConfig ParseTask(const std::string& text, const std::string& name) {
  const YamlDocument doc = ParseYaml(text, name);
  std::vector<Diagnostic> problems;
  ReadContext ctx{&doc.file, "", &problems};
  TaskConfig t;
  t.file = name;
  FieldReader r(ctx, doc.root, "");
  if (!r.ok()) throw InputError(problems);
  t.as_json = ToJson(doc.root);

  if (auto v = r.StringList("tag", Need::kDefaulted)) t.tag = *v;
  if (auto v = r.String("task", Need::kRequired, 1)) t.task = *v;
  if (auto v = r.String("dataset_path", Need::kRequired, 1)) t.dataset_path = *v;
  if (auto v = r.String("dataset_name", Need::kOptional)) t.dataset_name = *v;
  r.Choice("output_type", Need::kRequired, {"generate_until"});
  if (auto v = r.String("training_split", Need::kOptional)) t.training_split = *v;
  if (auto v = r.String("validation_split", Need::kOptional)) {
    (void)v;  // read so that it is known; evals run on test_split
  }
  if (auto v = r.String("test_split", Need::kRequired, 1)) t.test_split = *v;
  if (auto v = r.String("fewshot_split", Need::kOptional)) t.fewshot_split = *v;
  if (t.fewshot_split.empty()) t.fewshot_split = t.training_split;
  ReadTemplate(r, ctx, "doc_to_text", t.doc_to_text, t.doc_to_text_mark);
  ReadTemplate(r, ctx, "doc_to_target", t.doc_to_target, t.doc_to_target_mark);
  if (auto v = r.String("description", Need::kDefaulted)) {
    t.description = *v;
    if (!t.description.empty()) {
      ctx.Report(r.Get("description"), "description", "a task description is not supported (leave it empty)");
    }
  }
  if (auto v = r.String("target_delimiter", Need::kDefaulted)) t.target_delimiter = *v;
  if (auto v = r.String("fewshot_delimiter", Need::kDefaulted)) t.fewshot_delimiter = *v;
  if (const YamlNode* fs = r.Mapping("fewshot_config", Need::kOptional)) {
    FieldReader f(ctx, *fs, "fewshot_config");
    if (auto v = f.Choice("sampler", Need::kDefaulted, {"default", "first_n"})) t.sampler = *v;
    f.RejectUnknown();
  }
  if (auto v = r.Int("num_fewshot", Need::kDefaulted, 0)) t.num_fewshot = *v;
  if (t.num_fewshot > 0 && t.fewshot_split.empty()) {
    ctx.Report(r.Get("num_fewshot"), "num_fewshot", "few-shot examples need a fewshot_split or training_split");
  }
  if (auto v = r.Int("repeats", Need::kDefaulted, 1); v && *v != 1) {
    ctx.Report(r.Get("repeats"), "repeats", "only 1 repeat is supported (greedy decoding)");
  }
  ReadGeneration(ctx, r, t);
  if (const YamlNode* list = r.List("metric_list", Need::kRequired)) {
    if (list->items.empty()) ctx.Report(list, "metric_list", "needs at least one metric");
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      t.metrics.push_back(ReadMetric(ctx, list->items[i], "metric_list[" + std::to_string(i) + "]"));
    }
  }
  if (const YamlNode* list = r.List("filter_list", Need::kDefaulted)) {
    for (std::size_t i = 0; i < list->items.size(); ++i) {
      t.filters.push_back(ReadFilter(ctx, list->items[i], "filter_list[" + std::to_string(i) + "]"));
    }
  } else {
    t.filters.push_back(FilterSpec{"none", {FilterStep{"take_first"}}});
  }
  if (const YamlNode* meta = r.Mapping("metadata", Need::kDefaulted)) {
    FieldReader m(ctx, *meta, "metadata");
    if (auto v = m.Float("version", Need::kDefaulted)) t.version = *v;
    m.RejectUnknown();
  }
  r.RejectUnknown();
  if (!problems.empty()) throw InputError(problems);
  return t;
}

TaskConfig ReadTaskFile(const std::string& path) {
  return ParseTask(ReadFile(path), path);
}

}  // namespace infermark::eval
