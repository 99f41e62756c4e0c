// The one reader of thresholds.yaml (the accuracy gate's and the store's): the project's file read
// as validate_scores.py reads it (default per task, override per model prefix, the legacy flat
// format), the most specific threshold first with the 0.85 fallback, and bad files named by line,
// field and rule.
#include "core/eval_thresholds.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "scratch_dir.hpp"
#include "test_paths.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;

// `text` written to `name` in `dir`; its path.
std::string WriteThresholds(const test::ScratchDir& dir, const std::string& name, const std::string& text) {
  WriteFileAtomic(dir / name, text);
  return dir / name;
}

EvalThresholds ProjectThresholds() {
  return LoadEvalThresholds(test::SourcePath("data/evals/thresholds.yaml"));
}

// The text of the InputError `path` raises ("" when it reads).
std::string ThresholdsProblem(const std::string& path) {
  try {
    LoadEvalThresholds(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(EvalThresholds, ReadsDefaultsAndModelOverrides) {
  const EvalThresholds t = ProjectThresholds();
  EXPECT_DOUBLE_EQ(t.defaults.at("gsm8k"), 0.90);
  EXPECT_DOUBLE_EQ(t.models.at("minimaxm2.5").at("gsm8k"), 0.92);
  EXPECT_DOUBLE_EQ(t.models.at("glm5").at("gsm8k"), 0.94);
  EXPECT_EQ(t.file, test::SourcePath("data/evals/thresholds.yaml"));
}

TEST(EvalThresholds, MostSpecificFirstThenTheFallback) {
  const EvalThresholds t = ProjectThresholds();
  const ThresholdRule model = t.Resolve("gsm8k", "minimaxm2.5");
  EXPECT_DOUBLE_EQ(model.value, 0.92);
  EXPECT_EQ(model.source, "models.minimaxm2.5");
  EXPECT_EQ(model.SourceName(), "minimaxm2.5");
  // The founding model has no override: the task's default applies.
  const ThresholdRule founding = t.Resolve("gsm8k", "minimaxm3");
  EXPECT_DOUBLE_EQ(founding.value, 0.90);
  EXPECT_EQ(founding.source, "default");
  EXPECT_EQ(founding.SourceName(), "default");
  // "unknown" (meta_env.json's placeholder) and no prefix name no model.
  EXPECT_EQ(t.Resolve("gsm8k", "unknown").source, "default");
  EXPECT_EQ(t.Resolve("gsm8k", "").source, "default");
  // A task nothing names: validate_scores.py's --min-score, or the caller's own fallback.
  const ThresholdRule other = t.Resolve("mmlu", "minimaxm2.5");
  EXPECT_DOUBLE_EQ(other.value, kFallbackMinScore);
  EXPECT_EQ(other.SourceName(), "min-score");
  EXPECT_DOUBLE_EQ(t.Resolve("mmlu", "dsr1", 0.5).value, 0.5);
}

TEST(EvalThresholds, LegacyFlatFileIsAllDefaults) {
  test::ScratchDir s;
  const EvalThresholds t = LoadEvalThresholds(WriteThresholds(s, "flat.yaml", "gsm8k: 0.5\nmmlu: 1\n"));
  EXPECT_DOUBLE_EQ(t.defaults.at("gsm8k"), 0.5);
  EXPECT_DOUBLE_EQ(t.defaults.at("mmlu"), 1.0);
  EXPECT_TRUE(t.models.empty());
  EXPECT_DOUBLE_EQ(t.Resolve("gsm8k", "dsr1").value, 0.5);
  // JSON is YAML too (validate_scores.py reads either).
  EXPECT_DOUBLE_EQ(
      LoadEvalThresholds(WriteThresholds(s, "t.json", R"({"default": {"gsm8k": 0.8}})")).Resolve("gsm8k", "").value,
      0.8);
}

TEST(EvalThresholds, BadFilesNameLineFieldAndRule) {
  test::ScratchDir s;
  const std::string text = ThresholdsProblem(WriteThresholds(s, "bad.yaml", "default:\n  gsm8k: high\n"));
  EXPECT_NE(text.find("bad.yaml:2"), std::string::npos) << text;
  EXPECT_NE(text.find("default.gsm8k"), std::string::npos) << text;
  EXPECT_NE(text.find("must be a number"), std::string::npos) << text;
  const std::string range = ThresholdsProblem(WriteThresholds(s, "range.yaml", "models:\n  dsr1:\n    gsm8k: 91\n"));
  EXPECT_NE(range.find("range.yaml:3"), std::string::npos) << range;
  EXPECT_NE(range.find("models.dsr1.gsm8k"), std::string::npos) << range;
  EXPECT_NE(range.find("between 0 and 1"), std::string::npos) << range;
  EXPECT_NE(ThresholdsProblem(WriteThresholds(s, "key.yaml", "default: {gsm8k: 0.9}\nmodel: {x: {gsm8k: 0.9}}\n"))
                .find("unknown key"),
            std::string::npos);
  EXPECT_NE(ThresholdsProblem(WriteThresholds(s, "list.yaml", "- 0.9\n")).find("must be a mapping"), std::string::npos);
  EXPECT_NE(ThresholdsProblem(WriteThresholds(s, "models.yaml", "models: [dsr1]\n")).find("models"), std::string::npos);
  EXPECT_FALSE(ThresholdsProblem((s.path / "missing.yaml").string()).empty());
}

}  // namespace
}  // namespace infermark
