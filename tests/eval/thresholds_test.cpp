// The accuracy gate (thresholds read by core's reader, tests/core): every exact_match score of a
// results file checked, the failure sentence, the built-in file; and, as a parity test,
// validate_scores.py run unchanged on the same result folders agreeing with every verdict.
#include "eval/thresholds.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "eval/eval_status.hpp"
#include "reference.hpp"
#include "test_paths.hpp"

namespace infermark::eval {
namespace {

namespace fs = std::filesystem;

struct Scratch {
  fs::path path;
  Scratch() {
    std::string tmpl = (fs::temp_directory_path() / "infermark-gate-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

EvalThresholds Project() {
  return LoadEvalThresholds(test::SourcePath("data/evals/thresholds.yaml"));
}

Json Results(double strict, double flexible, const std::string& task = "gsm8k") {
  Json block = Json::object();
  block["alias"] = task;
  block["exact_match,strict-match"] = strict;
  block["exact_match_stderr,strict-match"] = 0.01;
  block["exact_match,flexible-extract"] = flexible;
  block["exact_match_stderr,flexible-extract"] = 0.01;
  Json file = Json::object();
  file["results"] = Json{{task, block}};
  file["n-samples"] = Json{{task, Json{{"original", 1319}, {"effective", 1319}}}};
  file["start_time"] = 1796000000.0;
  file["end_time"] = 1796000012.5;
  return file;
}

TEST(Gate, TheBuiltInThresholdsAreTheProjectsFile) {
  // The test binary lives in the build tree below the source tree, where data/evals is found.
  const EvalThresholds built_in = BuiltInThresholds();
  EXPECT_EQ(built_in.defaults, Project().defaults);
  EXPECT_EQ(built_in.models, Project().models);
}

TEST(Gate, EveryExactMatchScoreIsChecked) {
  const EvalThresholds t = Project();
  const GateVerdict pass = JudgeResults(Results(0.95, 0.96), t, "minimaxm3");
  EXPECT_TRUE(pass.passed);
  ASSERT_EQ(pass.checks.size(), 2u);  // strict and flexible; stderr entries skipped
  // A flexible score below the threshold fails the file even with a passing strict score.
  const GateVerdict flexible = JudgeResults(Results(0.95, 0.80), t, "minimaxm3");
  EXPECT_FALSE(flexible.passed);
  ASSERT_EQ(flexible.failures.size(), 1u);
  EXPECT_EQ(flexible.failures[0], "gsm8k flexible-extract 0.80 < 0.90 (default, minimaxm3 has no override)");
  // At the threshold passes (validate_scores.py fails only below it).
  EXPECT_TRUE(JudgeResults(Results(0.92, 0.92), t, "minimaxm2.5").passed);
  // Nothing to check fails.
  const GateVerdict none = JudgeResults(Json{{"results", Json{{"gsm8k", Json{{"alias", "gsm8k"}}}}}}, t, "minimaxm3");
  EXPECT_FALSE(none.passed);
}

TEST(Gate, FailureNamesScoreThresholdAndWhereItCameFrom) {
  const EvalThresholds t = Project();
  const GateVerdict model = JudgeResults(Results(0.62, 0.95), t, "minimaxm2.5");
  ASSERT_EQ(model.failures.size(), 1u);
  EXPECT_EQ(model.failures[0], "gsm8k 0.62 < 0.92 (minimaxm2.5)");
  const GateVerdict founding = JudgeResults(Results(0.62, 0.95), t, "minimaxm3");
  EXPECT_EQ(founding.failures.at(0), "gsm8k 0.62 < 0.90 (default, minimaxm3 has no override)");
  // Two decimals would round 0.8996 up to the threshold: four are shown.
  EXPECT_EQ(JudgeResults(Results(0.8996, 0.95), t, "minimaxm3").failures.at(0),
            "gsm8k 0.8996 < 0.90 (default, minimaxm3 has no override)");
}

TEST(EvalStatusFile, JudgesAFolderAndRoundTrips) {
  Scratch s;
  WriteFileAtomic((s.path / "results_2026-12-06T04-00-00.000001.json").string(), Results(0.62, 0.64).dump());
  EvalStatus st = JudgeEvalFolder(s.path.string(), Project(), "minimaxm3");
  EXPECT_EQ(st.status, "scored");
  EXPECT_EQ(st.passed, false);
  EXPECT_DOUBLE_EQ(*st.score, 0.62);
  EXPECT_DOUBLE_EQ(*st.flexible_score, 0.64);
  EXPECT_EQ(*st.n, 1319);
  EXPECT_DOUBLE_EQ(*st.threshold, 0.90);
  EXPECT_EQ(st.threshold_source, "default");
  EXPECT_DOUBLE_EQ(st.duration_s, 12.5);
  EXPECT_EQ(st.results_file, "results_2026-12-06T04-00-00.000001.json");
  EXPECT_TRUE(st.Failed());
  st.concurrency = 64;
  WriteEvalStatus(s.path.string(), st);
  const Json j = Json::parse(ReadFile((s.path / kEvalStatusFile).string()));
  EXPECT_EQ(j["schema"], "infermark.eval_status/1");
  EXPECT_EQ(j["metric"], "exact_match,strict-match");
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["concurrency"], 64);
  EXPECT_EQ(j["reasons"].at(0), "gsm8k 0.62 < 0.90 (default, minimaxm3 has no override)");
  const auto back = ReadEvalStatus(s.path.string());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->passed, false);
  EXPECT_EQ(back->reasons, st.reasons);

  Scratch invalid;
  Json file = Results(0.1, 0.1);
  file["infermark"] = Json{{"invalid_reasons", Json::array({"4 of 4 requests failed"})}};
  WriteFileAtomic((invalid.path / "invalid_results_x.json").string(), file.dump());
  const EvalStatus inv = JudgeEvalFolder(invalid.path.string(), Project(), "minimaxm3");
  EXPECT_EQ(inv.status, "invalid");
  EXPECT_FALSE(inv.passed.has_value());
  EXPECT_EQ(inv.reasons.at(0), "4 of 4 requests failed");

  Scratch empty;
  EXPECT_EQ(JudgeEvalFolder(empty.path.string(), Project(), "minimaxm3").status, "invalid");
}

// validate_scores.py, unchanged, on the same folders: its exit code and the gate agree.
TEST(GateParity, ValidateScoresAgreesOnEveryFolder) {
  INFERMARK_REQUIRE_REFERENCE({"utils/evals/validate_scores.py"}, "import yaml");
  struct GateCase {
    std::string prefix;
    double strict, flexible;
    std::string task;
  };
  const std::vector<GateCase> cases = {
      {"minimaxm3", 0.95, 0.96, "gsm8k"},   {"minimaxm3", 0.62, 0.95, "gsm8k"},   {"minimaxm3", 0.95, 0.80, "gsm8k"},
      {"minimaxm2.5", 0.91, 0.95, "gsm8k"}, {"minimaxm2.5", 0.92, 0.92, "gsm8k"}, {"kimik2.5", 0.90, 0.90, "gsm8k"},
      {"glm5", 0.935, 0.95, "gsm8k"},       {"minimaxm3", 0.86, 0.86, "mmlu"},    {"minimaxm3", 0.84, 0.90, "mmlu"},
      {"unknown", 0.89, 0.95, "gsm8k"},
  };
  const EvalThresholds t = Project();
  for (const GateCase& c : cases) {
    Scratch s;
    WriteFileAtomic((s.path / "results_2026-12-06T04-00-00.000001.json").string(),
                    Results(c.strict, c.flexible, c.task).dump(2));
    WriteFileAtomic((s.path / "meta_env.json").string(), Json{{"infmax_model_prefix", c.prefix}, {"conc", 64}}.dump());
    const ProcessResult ran =
        RunCapture({"python3", test::ReferencePath("utils/evals/validate_scores.py"), "--thresholds",
                    test::SourcePath("data/evals/thresholds.yaml"), "--meta-env", (s.path / "meta_env.json").string(),
                    "--results-glob", (s.path / "results*.json").string()},
                   s.path.string());
    ASSERT_TRUE(ran.exit_code == 0 || ran.exit_code == 1) << ran.out << ran.err;
    const EvalStatus ours = JudgeEvalFolder(s.path.string(), t, c.prefix);
    const std::string what =
        c.prefix + " " + c.task + " " + std::to_string(c.strict) + "/" + std::to_string(c.flexible);
    EXPECT_EQ(ours.passed.value_or(false), ran.exit_code == 0) << what << "\n" << ran.out << ran.err;
    // The failed checks are the ones validate_scores.py names.
    for (const std::string filter : {"strict-match", "flexible-extract"}) {
      const bool theirs = ran.err.find(c.task + " exact_match," + filter + " =") != std::string::npos;
      bool mine = false;
      for (const std::string& f : ours.reasons) {
        mine = mine || (filter == "strict-match" ? f.find(" flexible-extract ") == std::string::npos
                                                 : f.find(" flexible-extract ") != std::string::npos);
      }
      EXPECT_EQ(mine, theirs) << what << " " << filter << "\n" << ran.err;
    }
  }
}

}  // namespace
}  // namespace infermark::eval
