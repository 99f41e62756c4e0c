// Eval folders read into evaluations: the four kinds the runner leaves (scored and passing,
// scored and failing its threshold, not run, INVALID; tests/fixtures/evals, real `infermark eval`
// outputs), a folder of lm-eval's files alone read as collect_eval_results.py reads it, the
// configuration keyed as a throughput point of it is, thresholds as thresholds.yaml holds them, and
// bad files named with their field and rule.
#include "results/eval_folder.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/eval_batch.hpp"
#include "core/eval_thresholds.hpp"
#include "core/file_io.hpp"
#include "results/result_files.hpp"
#include "results/sample_points.hpp"
#include "test_paths.hpp"

namespace infermark::results {
namespace {

namespace fs = std::filesystem;

std::string EvalFixture(const std::string& name) {
  return test::Fixture("evals/" + name);
}

// The point key of an agg record of the fixtures' configuration (dsr1 on `hw`, vLLM FP8 TP8, 1k/1k).
PointKey FixturePointKey(const std::string& hw, long long conc) {
  Json agg = Json::object();
  agg["model"] = "deepseek-ai/DeepSeek-R1-0528";
  agg["hw"] = hw;
  agg["framework"] = "vllm";
  agg["precision"] = "fp8";
  agg["spec_decoding"] = "none";
  agg["disagg"] = false;
  agg["is_multinode"] = false;
  agg["tp"] = 8;
  agg["ep"] = 1;
  agg["dp_attention"] = "false";
  agg["pp"] = 1;
  agg["dcp_size"] = 1;
  agg["pcp_size"] = 1;
  agg["conc"] = conc;
  agg["isl"] = 1024;
  agg["osl"] = 1024;
  return KeyFromAgg(agg, "test");
}

// The diagnostics of ReadEvalFolder(dir) as one text ("" when it reads).
std::string Problem(const fs::path& dir) {
  try {
    ReadEvalFolder(dir.string());
  } catch (const InputError& e) {
    std::string text;
    for (const Diagnostic& d : e.diagnostics()) text += d.ToString() + "\n";
    return text;
  }
  return "";
}

class EvalFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark_evalfolder_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A copy of fixture folder `name` to break.
  fs::path Copy(const std::string& name) {
    const fs::path to = dir_ / name;
    fs::remove_all(to);
    fs::create_directories(to.parent_path());
    fs::copy(EvalFixture(name), to, fs::copy_options::recursive);
    return to;
  }

  static Json Read(const fs::path& file) { return Json::parse(ReadFile(file.string())); }
  static void Write(const fs::path& file, const Json& doc) { WriteFileAtomic(file.string(), doc.dump(2)); }

  fs::path dir_;
};

TEST_F(EvalFolderTest, ScoredPassingEvalKeyedAsItsThroughputPoint) {
  const Evaluation e = ReadEvalFolder(EvalFixture("scored-pass")).at(0);
  EXPECT_EQ(e.status, EvalStatus::kScored);
  EXPECT_EQ(e.task, "gsm8k");
  EXPECT_EQ(e.metric, "exact_match,strict-match");
  ASSERT_TRUE(e.score.has_value());
  EXPECT_DOUBLE_EQ(*e.score, 1.0);  // the test server answered every question with the data's answer
  EXPECT_EQ(e.n, 20);
  ASSERT_TRUE(e.threshold.has_value());
  EXPECT_DOUBLE_EQ(*e.threshold, 0.91);
  EXPECT_EQ(e.threshold_source, "dsr1");
  EXPECT_EQ(e.passed, true);
  EXPECT_EQ(e.Verdict(), "PASS");
  EXPECT_EQ(e.origin, kEvalOriginInfermark);
  EXPECT_EQ(e.model_prefix, "dsr1");
  EXPECT_EQ(e.eval_concurrency, 64);
  EXPECT_TRUE(fs::is_regular_file(fs::path(EvalFixture("scored-pass")) / e.results_file)) << e.results_file;
  EXPECT_EQ(e.key.Canonical(), FixturePointKey("h100", 64).Canonical());
  EXPECT_TRUE(SameConfiguration(e.key, FixturePointKey("h100", 64)));
  EXPECT_FALSE(SameConfiguration(e.key, FixturePointKey("h100", 16)));
  EXPECT_FALSE(SameConfiguration(e.key, FixturePointKey("b200", 64)));
}

TEST_F(EvalFolderTest, ScoredFailingEvalNamesTheThreshold) {
  const Evaluation e = ReadEvalFolder(EvalFixture("scored-fail")).at(0);
  EXPECT_EQ(e.status, EvalStatus::kScored);
  EXPECT_DOUBLE_EQ(*e.score, 0.5);  // every other answer was wrong
  EXPECT_GT(*e.score_stderr, 0.1);
  EXPECT_EQ(e.passed, false);
  EXPECT_EQ(e.Verdict(), "FAIL");
  ASSERT_FALSE(e.reasons.empty());
  EXPECT_EQ(e.reasons.back(), "gsm8k 0.5 < 0.91 (dsr1)");
}

TEST_F(EvalFolderTest, NotRunAndInvalidEvalsHaveNoScore) {
  const Evaluation not_run = ReadEvalFolder(EvalFixture("not-run")).at(0);
  EXPECT_EQ(not_run.status, EvalStatus::kNotRun);
  EXPECT_FALSE(not_run.score.has_value());
  EXPECT_FALSE(not_run.passed.has_value());
  EXPECT_FALSE(not_run.Scored());
  EXPECT_EQ(not_run.Verdict(), "NOT RUN");
  EXPECT_EQ(not_run.reasons, std::vector<std::string>{"the built-in engine has no weights: accuracy is not measured"});
  EXPECT_EQ(not_run.key.conc, 256);

  const Evaluation invalid = ReadEvalFolder(EvalFixture("invalid")).at(0);
  EXPECT_EQ(invalid.status, EvalStatus::kInvalid);
  EXPECT_FALSE(invalid.Scored());
  EXPECT_FALSE(invalid.passed.has_value());
  EXPECT_EQ(invalid.Verdict(), "INVALID");
  ASSERT_FALSE(invalid.reasons.empty());
  EXPECT_NE(invalid.reasons[0].find("fail"), std::string::npos) << invalid.reasons[0];
}

TEST_F(EvalFolderTest, LmEvalFilesAloneAreReadAsCollectEvalResultsReadsThem) {
  const EvalThresholds thresholds = LoadEvalThresholds(test::SourcePath("data/evals/thresholds.yaml"));
  const Evaluation gated = ReadEvalFolder(EvalFixture("lm-eval-only"), &thresholds).at(0);
  EXPECT_EQ(gated.origin, kEvalOriginLmEval);
  EXPECT_EQ(gated.status, EvalStatus::kScored);
  EXPECT_DOUBLE_EQ(*gated.score, 0.5);
  EXPECT_TRUE(gated.flexible_score.has_value());
  EXPECT_EQ(gated.n, 20);
  EXPECT_EQ(gated.threshold_source, "dsr1");
  EXPECT_DOUBLE_EQ(*gated.threshold, 0.91);
  EXPECT_EQ(gated.passed, false);
  EXPECT_EQ(gated.eval_concurrency, 64);  // meta_env.json's conc, as the reference's row

  const Evaluation ungated = ReadEvalFolder(EvalFixture("lm-eval-only")).at(0);
  EXPECT_FALSE(ungated.threshold.has_value());
  EXPECT_FALSE(ungated.passed.has_value());
  EXPECT_EQ(ungated.Verdict(), "NO THRESHOLD");
  EXPECT_EQ(ungated.key.Canonical(), gated.key.Canonical());
}

TEST_F(EvalFolderTest, UnfinishedResultsWithoutStatusAreNotScores) {
  const fs::path dir = Copy("invalid");
  fs::remove(dir / "eval_status.json");
  const Evaluation e = ReadEvalFolder(dir.string()).at(0);
  EXPECT_EQ(e.origin, kEvalOriginLmEval);
  EXPECT_EQ(e.status, EvalStatus::kInvalid);
  EXPECT_FALSE(e.Scored());
  EXPECT_FALSE(e.score.has_value());  // its results file's 0.0 is no score
  EXPECT_FALSE(e.flexible_score.has_value());
  EXPECT_FALSE(e.reasons.empty());
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("invalid_results", 0) == 0) fs::remove(entry.path());
  }
  const Evaluation none = ReadEvalFolder(dir.string()).at(0);
  EXPECT_EQ(none.status, EvalStatus::kNotRun);
  EXPECT_EQ(none.reasons, std::vector<std::string>{"no lm-eval results file in the folder"});
}

TEST_F(EvalFolderTest, BadFilesNameFileFieldAndRule) {
  {
    const fs::path dir = Copy("scored-pass");
    fs::remove(dir / "meta_env.json");
    EXPECT_NE(Problem(dir).find("meta_env.json"), std::string::npos) << Problem(dir);
  }
  const auto broken = [&](const std::string& field, const Json& value, const std::string& want) {
    const fs::path dir = Copy("scored-pass");
    Json status = Read(dir / "eval_status.json");
    status[field] = value;
    Write(dir / "eval_status.json", status);
    const std::string problem = Problem(dir);
    EXPECT_NE(problem.find("eval_status.json"), std::string::npos) << problem;
    EXPECT_NE(problem.find("'" + field + "'"), std::string::npos) << problem;
    EXPECT_NE(problem.find(want), std::string::npos) << problem;
    fs::remove_all(dir);
  };
  broken("status", "done", "must be scored, not_run, invalid or incomplete");
  broken("score", nullptr, "a scored eval needs a score");
  broken("score", 0.25, "disagrees with");
  broken("score", 1.5, "between 0 and 1");
  broken("stderr", "N/A", "must be a finite number or null");
  broken("schema", "infermark.eval_status/9", "must be infermark.eval_status/1");
  broken("results_file", "results_missing.json", "not in the folder");
  broken("reasons", "why", "list of strings");
  {
    const fs::path dir = Copy("not-run");
    Json status = Read(dir / "eval_status.json");
    status["passed"] = true;
    Write(dir / "eval_status.json", status);
    EXPECT_NE(Problem(dir).find("must be null unless the status is scored"), std::string::npos) << Problem(dir);
  }
  {
    const fs::path dir = Copy("not-run");
    Json meta = Read(dir / "meta_env.json");
    meta.erase("hw");
    Write(dir / "meta_env.json", meta);
    EXPECT_NE(Problem(dir).find("meta_env.json: field 'hw': field required"), std::string::npos) << Problem(dir);
  }
  {
    const fs::path dir = Copy("not-run");
    WriteFileAtomic((dir / "eval_status.json").string(), "{\n  \"schema\": \"infermark.eval_status/1\",\n  oops\n}");
    EXPECT_NE(Problem(dir).find("eval_status.json:3"), std::string::npos) << Problem(dir);
    EXPECT_NE(Problem(dir).find("not valid JSON"), std::string::npos) << Problem(dir);
  }
  {
    const fs::path dir = Copy("not-run");
    Json meta = Read(dir / "meta_env.json");
    meta["tp"] = "eight";
    Write(dir / "meta_env.json", meta);
    EXPECT_NE(Problem(dir).find("field 'tp': must be an integer"), std::string::npos) << Problem(dir);
  }
}

TEST_F(EvalFolderTest, ResultFoldersLeaveEvalFoldersToTheirReader) {
  fs::create_directories(dir_ / "sweep");
  const Point point = sample::SamplePoint({}, 4);
  WriteFileAtomic((dir_ / "sweep" / "agg_minimaxm3_conc4.json").string(), DumpJson(point.agg));
  fs::create_directories(dir_ / "sweep" / "evals");
  fs::copy(EvalFixture("scored-pass"), dir_ / "sweep" / "evals" / "row-a", fs::copy_options::recursive);
  fs::copy(EvalFixture("not-run"), dir_ / "sweep" / "evals" / "row-b", fs::copy_options::recursive);
  const std::vector<std::string> files = ExpandResultPaths({(dir_ / "sweep").string()});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(fs::path(files[0]).filename(), "agg_minimaxm3_conc4.json");
  const std::vector<std::string> folders = FindEvalFolders({(dir_ / "sweep").string()});
  ASSERT_EQ(folders.size(), 2u);
  EXPECT_EQ(fs::path(folders[0]).filename(), "row-a");
  EXPECT_EQ(fs::path(folders[1]).filename(), "row-b");
  EXPECT_THROW(FindEvalFolders({(dir_ / "nowhere").string()}), InputError);
  // A multi-node row: InferenceX's batched meta_env.json above infermark's conc<N>/ folders.
  const fs::path row = dir_ / "sweep" / "evals" / "row-c";
  fs::create_directories(row);
  fs::copy_file(fs::path(EvalFixture("scored-pass")) / "meta_env.json", row / "meta_env.json");
  fs::copy(EvalFixture("scored-pass"), row / "conc64", fs::copy_options::recursive);
  fs::copy(EvalFixture("not-run"), row / "conc256", fs::copy_options::recursive);
  const std::vector<std::string> multinode = FindEvalFolders({row.string()});
  ASSERT_EQ(multinode.size(), 2u);
  EXPECT_EQ(fs::path(multinode[0]).filename(), "conc256");
  EXPECT_EQ(fs::path(multinode[1]).filename(), "conc64");
}

// InferenceX's batched artifacts (benchmark_lib.sh's staging, as test_collect_eval_results.py
// builds them): eval_concs 4, 16, 64 and 128, 4 and 16 completed (16 run twice, the re-run's file
// `_conc16_2`), 64 failed (lm-eval still wrote a file: the collector takes none), 128 never run.
TEST_F(EvalFolderTest, InferenceXsBatchedArtifactsAreOneEvaluationPerConcurrency) {
  const fs::path dir = Copy("lm-eval-only");
  const fs::path template_file = dir / "results_2026-12-06T03-36-02.063998.json";
  const Json results = Read(template_file);
  fs::remove(template_file);
  const auto stage = [&](const std::string& name, double score, int age_s) {
    Json doc = results;
    doc["results"]["gsm8k"]["exact_match,strict-match"] = score;
    doc["results"]["gsm8k"]["exact_match,flexible-extract"] = score;
    Write(dir / name, doc);
    fs::last_write_time(dir / name, fs::file_time_type::clock::now() - std::chrono::seconds(age_s));
  };
  stage("results_a_conc4.json", 0.95, 40);
  stage("results_a_conc16.json", 0.50, 30);    // the first run's conc-16 file
  stage("results_a_conc16_2.json", 0.93, 20);  // the re-run's, newer
  stage("results_a_conc64.json", 0.99, 10);
  Json meta = Read(dir / "meta_env.json");
  meta = WithEvalBatch(meta, EvalBatch{{4, 16, 64, 128}, {4, 16}, {64}});
  Write(dir / "meta_env.json", meta);
  const EvalThresholds t = LoadEvalThresholds(test::SourcePath("data/evals/thresholds.yaml"));
  const std::vector<Evaluation> evals = ReadEvalFolder(dir.string(), &t);
  ASSERT_EQ(evals.size(), 4u);
  std::vector<long long> concs;
  for (const Evaluation& e : evals) {
    concs.push_back(e.eval_concurrency);
    EXPECT_EQ(e.key.conc, e.eval_concurrency);  // keyed as the point of its concurrency
    EXPECT_EQ(e.task, "gsm8k");
    EXPECT_EQ(e.origin, kEvalOriginLmEval);
    EXPECT_EQ(e.key.Canonical(), FixturePointKey("b200", e.eval_concurrency).Canonical());
  }
  EXPECT_EQ(concs, (std::vector<long long>{4, 16, 64, 128}));
  EXPECT_EQ(evals[0].Verdict(), "PASS");
  EXPECT_DOUBLE_EQ(*evals[0].score, 0.95);
  EXPECT_EQ(evals[1].results_file, "results_a_conc16_2.json");  // the newest of its concurrency
  EXPECT_DOUBLE_EQ(*evals[1].score, 0.93);
  EXPECT_EQ(evals[1].Verdict(), "PASS");  // 0.93 >= dsr1's 0.91
  EXPECT_EQ(evals[2].status, EvalStatus::kInvalid);
  EXPECT_FALSE(evals[2].score.has_value());  // a failed concurrency's file is no score
  EXPECT_EQ(evals[2].reasons.at(0), "the batch lists concurrency 64 as failed (failed_eval_concs)");
  EXPECT_EQ(evals[3].status, EvalStatus::kNotRun);
  EXPECT_NE(evals[3].reasons.at(0).find("did not run concurrency 128"), std::string::npos);
  // Each is its own evaluation in the store: distinct keys.
  EXPECT_NE(evals[0].EvalKey(), evals[1].EvalKey());
  EXPECT_NE(evals[2].EvalKey(), evals[3].EvalKey());

  // A completed concurrency without its file is a broken batch: INVALID, saying so.
  fs::remove(dir / "results_a_conc4.json");
  const std::vector<Evaluation> broken = ReadEvalFolder(dir.string(), &t);
  EXPECT_EQ(broken[0].status, EvalStatus::kInvalid);
  EXPECT_NE(broken[0].reasons.at(0).find("as completed, but the folder holds no lm-eval results file of it"),
            std::string::npos);
  // A manifest that is not lists of concurrencies names the file and the field.
  meta["failed_eval_concs"] = "64";
  Write(dir / "meta_env.json", meta);
  EXPECT_NE(Problem(dir).find("failed_eval_concs"), std::string::npos) << Problem(dir);
}

// The runner's batched folder: a status file per concurrency beside one meta_env.json.
TEST_F(EvalFolderTest, ABatchWithStatusFilesReadsEachConcurrencysStatus) {
  const fs::path dir = Copy("scored-pass");
  Json status = Read(dir / "eval_status.json");
  fs::remove(dir / "eval_status.json");
  const std::string results_file = status["results_file"].get<std::string>();
  const std::string stem = results_file.substr(0, results_file.size() - 5);
  fs::rename(dir / results_file, dir / (stem + "_conc16.json"));
  status["results_file"] = stem + "_conc16.json";
  status["concurrency"] = 16;
  Write(dir / "eval_status_conc16.json", status);
  Json not_run = Read(fs::path(EvalFixture("not-run")) / "eval_status.json");
  not_run["concurrency"] = 64;
  Write(dir / "eval_status_conc64.json", not_run);
  Write(dir / "meta_env.json", WithEvalBatch(Read(dir / "meta_env.json"), EvalBatch{{16, 64}, {16}, {}}));
  const std::vector<Evaluation> evals = ReadEvalFolder(dir.string());
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(evals[0].origin, kEvalOriginInfermark);
  EXPECT_EQ(evals[0].Verdict(), "PASS");
  EXPECT_EQ(evals[0].key.conc, 16);
  EXPECT_EQ(evals[1].Verdict(), "NOT RUN");
  EXPECT_EQ(evals[1].key.conc, 64);
  // A status file whose concurrency is not its name's is refused.
  status["concurrency"] = 8;
  Write(dir / "eval_status_conc16.json", status);
  EXPECT_NE(Problem(dir).find("must be 16, the concurrency its file name carries"), std::string::npos) << Problem(dir);
}

TEST(Evaluation, ThresholdVerdictAndKey) {
  Evaluation e = sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.62);
  EXPECT_EQ(e.passed, false);
  EXPECT_EQ(e.reasons, std::vector<std::string>{"gsm8k 0.62 < 0.92 (minimaxm3)"});
  ApplyThreshold(e);  // applying twice adds no second reason
  EXPECT_EQ(e.reasons.size(), 1u);
  EXPECT_EQ(sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.95).Verdict(), "PASS");
  EXPECT_EQ(sample::SampleEvaluation({}, 16, EvalStatus::kIncomplete).Verdict(), "INCOMPLETE");
  EXPECT_NE(sample::SampleEvaluation({}, 16, EvalStatus::kNotRun).EvalKey(),
            sample::SampleEvaluation({}, 64, EvalStatus::kNotRun).EvalKey());
  // Unknown sequence lengths (InferenceX-app rows) match a point of any lengths.
  PointKey any = sample::SamplePoint({}, 16).key;
  any.isl = 0;
  any.osl = 0;
  sample::SampleSpec eight_k;
  eight_k.isl = 8192;
  EXPECT_TRUE(SameConfiguration(any, sample::SamplePoint(eight_k, 16).key));
  EXPECT_FALSE(SameConfiguration(sample::SamplePoint({}, 16).key, sample::SamplePoint(eight_k, 16).key));
  EXPECT_EQ(ParseEvalStatus("not_run"), EvalStatus::kNotRun);
  EXPECT_FALSE(ParseEvalStatus("NOT RUN").has_value());
}

TEST(Evaluation, EveryExactMatchScoreMeetsTheThresholdAsValidateScoresChecksIt) {
  Evaluation e = sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.95);
  e.flexible_score = 0.80;
  e.passed.reset();
  ApplyThreshold(e);
  EXPECT_EQ(e.passed, false);
  EXPECT_EQ(e.reasons, std::vector<std::string>{"gsm8k flexible-extract 0.8 < 0.92 (minimaxm3)"});
  e.flexible_score = 0.92;  // at the threshold passes
  e.reasons.clear();
  ApplyThreshold(e);
  EXPECT_EQ(e.passed, true);
  EXPECT_TRUE(e.reasons.empty());
}

TEST(Evaluation, TheDefaultThresholdIsTheGatesRule) {
  const EvalThresholds t = LoadEvalThresholds(test::SourcePath("data/evals/thresholds.yaml"));
  Evaluation e = sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.86);
  e.threshold.reset();
  e.threshold_source.clear();
  e.passed.reset();
  e.task = "mmlu";  // named by no model and no default: validate_scores.py's 0.85
  ApplyDefaultThreshold(e, &t);
  EXPECT_DOUBLE_EQ(*e.threshold, kFallbackMinScore);
  EXPECT_EQ(e.threshold_source, "min-score");
  EXPECT_EQ(e.passed, true);
  Evaluation own = sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.91);
  own.passed.reset();
  ApplyDefaultThreshold(own, &t);  // its own threshold (0.92, minimaxm3) stands
  EXPECT_DOUBLE_EQ(*own.threshold, 0.92);
  EXPECT_EQ(own.passed, false);
  Evaluation none = sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.5);
  none.threshold.reset();
  none.passed.reset();
  ApplyDefaultThreshold(none, nullptr);
  EXPECT_FALSE(none.passed.has_value());
  EXPECT_EQ(none.Verdict(), "NO THRESHOLD");
}

}  // namespace
}  // namespace infermark::results
