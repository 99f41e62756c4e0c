// `infermark eval` as a user runs it, against a scripted server that knows GSM8K's answers: the
// requests lm-eval would send, the scores of right and wrong answers, retries, INVALID on failing
// servers, bad task files; and InferenceX's collect_eval_results.py and validate_scores.py run
// unchanged on the files written.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/json_text.hpp"
#include "core/subprocess.hpp"
#include "eval/gsm8k_answer_server.hpp"
#include "reference.hpp"
#include "run_binary.hpp"
#include "test_paths.hpp"

namespace infermark {
namespace {
namespace fs = std::filesystem;

// InferenceX's utils/ (its Python, run unchanged), where tests/reference.hpp finds the reference
// copy ($INFERMARK_REFERENCE_DIR, else ../shared/reference/inferencex); the parity checks skip
// without one.
std::string InferenceXUtils() {
  const std::string utils = test::ReferencePath("utils");
  return fs::is_regular_file(utils + "/collect_eval_results.py") ? utils : std::string();
}

// Debian's interpreter, where scripts/setup.sh installs python3-yaml and python3-tabulate;
// another python3 on PATH may lack them.
std::string Python() {
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

std::string TestSplit() {
  return test::SourcePath("data/evals/gsm8k/test.jsonl");
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("infermark-eval-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::vector<fs::path> Files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path());
  }
  return out;
}

Json ReadJson(const fs::path& p) {
  std::ifstream in(p);
  return Json::parse(in);
}

ProcessResult Eval(const test::Gsm8kAnswerServer& server, const fs::path& out, std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "eval",    "--tasks", "gsm8k",         "--base-url", "http://127.0.0.1:" + std::to_string(server.port()),
      "--model", "oracle",  "--output-path", out.string(), "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return test::RunInfermark(args);
}

TEST(EvalCommand, SendsTheRequestsLmEvalWouldSend) {
  test::Gsm8kAnswerServer server(TestSplit(), {});
  TempDir dir;
  const ProcessResult r = Eval(server, dir.path, {"--limit", "20", "--concurrency", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(test::SourcePath("tests/eval/fixtures/gsm8k_chat_5shot_first20.json"));
  const Json expected = Json::parse(in);
  const std::vector<std::string> bodies = server.bodies();
  ASSERT_EQ(bodies.size(), 20u);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const Json body = Json::parse(bodies[i]);
    EXPECT_EQ(body["messages"], expected[i]) << "request " << i;
    EXPECT_EQ(body["model"], "oracle");
    EXPECT_EQ(body["max_tokens"], 12288);  // InferenceX: a 16384 context less 4096
    EXPECT_EQ(body["temperature"], 0);
    EXPECT_EQ(body["top_p"], 1);
    EXPECT_EQ(body["seed"], 1234);
    EXPECT_EQ(body["stop"], Json::array({"</s>", "<|im_end|>"}));
  }
}

TEST(EvalCommand, RightAnswersScoreOneAndInferenceXsScriptsReadTheFiles) {
  test::Gsm8kAnswerServer server(TestSplit(), {});
  TempDir dir;
  const ProcessResult r = Eval(server, dir.path, {"--limit", "50", "--concurrency", "16"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto results = Files(dir.path, "results_");
  ASSERT_EQ(results.size(), 1u);
  const Json j = ReadJson(results[0]);
  EXPECT_EQ(j["results"]["gsm8k"]["exact_match,strict-match"], 1.0);
  EXPECT_EQ(j["results"]["gsm8k"]["exact_match,flexible-extract"], 1.0);
  EXPECT_EQ(j["results"]["gsm8k"]["exact_match_stderr,strict-match"], 0.0);
  EXPECT_EQ(j["n-samples"]["gsm8k"]["effective"], 50);
  EXPECT_EQ(j["n-samples"]["gsm8k"]["original"], 1319);
  EXPECT_EQ(j["n-shot"]["gsm8k"], 5);
  const auto samples = Files(dir.path, "samples_gsm8k_");
  ASSERT_EQ(samples.size(), 1u);
  std::ifstream s(samples[0]);
  std::size_t lines = 0;
  for (std::string line; std::getline(s, line);) ++lines;
  EXPECT_EQ(lines, 100u);  // 50 documents × 2 filters

  const std::string utils = InferenceXUtils();
  if (utils.empty()) GTEST_SKIP() << "no copy of InferenceX's utils/ (set INFERMARK_INFERENCEX_DIR)";
  const ProcessResult collect =
      RunCapture({Python(), utils + "/collect_eval_results.py", dir.path.string(), "t"}, dir.path.string());
  ASSERT_EQ(collect.exit_code, 0) << collect.err;
  EXPECT_NE(collect.out.find("100.00%"), std::string::npos) << collect.out;
  const Json agg = ReadJson(dir.path / "agg_eval_t.json");
  ASSERT_EQ(agg.size(), 1u);
  EXPECT_EQ(agg[0]["task"], "gsm8k");
  EXPECT_EQ(agg[0]["score"], 1.0);
  EXPECT_EQ(agg[0]["n_eff"], 50);

  const ProcessResult validate =
      RunCapture({Python(), utils + "/evals/validate_scores.py", "--model-prefix", "minimaxm2.5", "--results-glob",
                  (dir.path / "results*.json").string(), "--meta-env", (dir.path / "meta_env.json").string()},
                 dir.path.string());
  EXPECT_EQ(validate.exit_code, 0) << validate.out << validate.err;
  EXPECT_NE(validate.out.find("PASS: gsm8k exact_match,strict-match = 1.0000"), std::string::npos) << validate.out;
}

TEST(EvalCommand, WrongAnswersFailTheThreshold) {
  test::AnswerServerOptions o;
  o.wrong_every = 3;  // documents 0, 3, 6, … answered wrongly: 17 of 50
  test::Gsm8kAnswerServer server(TestSplit(), o);
  TempDir dir;
  const ProcessResult r = Eval(server, dir.path, {"--limit", "50", "--concurrency", "8"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;  // a low score is a result, not a failed run
  const Json j = ReadJson(Files(dir.path, "results_").at(0));
  EXPECT_DOUBLE_EQ(j["results"]["gsm8k"]["exact_match,strict-match"].get<double>(), 33.0 / 50.0);
  const std::string utils = InferenceXUtils();
  if (utils.empty()) GTEST_SKIP() << "no copy of InferenceX's utils/ (set INFERMARK_INFERENCEX_DIR)";
  const ProcessResult validate =
      RunCapture({Python(), utils + "/evals/validate_scores.py", "--model-prefix", "minimaxm2.5", "--results-glob",
                  (dir.path / "results*.json").string(), "--meta-env", (dir.path / "meta_env.json").string()},
                 dir.path.string());
  EXPECT_EQ(validate.exit_code, 1);
  EXPECT_NE(validate.err.find("FAIL: gsm8k exact_match,strict-match = 0.6600 (< 0.92 from models.minimaxm2.5)"),
            std::string::npos)
      << validate.err;
}

// --repeats 3: three runs under seeds 1234, 1235, 1236 (their few-shot examples and requests), each
// kept in repeats/repeat-<k>/, combined as lm-eval combines a group (size-weighted mean, pooled
// standard error) in the files InferenceX's scripts read.
TEST(EvalCommand, RepeatsRunUnderSuccessiveSeedsAndCombineAsAGroup) {
  test::AnswerServerOptions o;
  o.wrong_every = 4;  // documents 0, 4, 8, … answered wrongly: 5 of 20 in every repeat
  test::Gsm8kAnswerServer server(TestSplit(), o);
  TempDir dir;
  const ProcessResult r = Eval(server, dir.path, {"--limit", "20", "--concurrency", "4", "--repeats", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("3 repeats (seeds 1234..1236)"), std::string::npos) << r.out;
  std::map<long long, int> seeds;
  std::set<std::string> first_prompts;
  for (const std::string& b : server.bodies()) {
    const Json body = Json::parse(b);
    ++seeds[body["seed"].get<long long>()];
    first_prompts.insert(body["messages"][0].dump());
  }
  EXPECT_EQ(seeds, (std::map<long long, int>{{1234, 20}, {1235, 20}, {1236, 20}}));
  EXPECT_GT(first_prompts.size(), 20u);  // other seeds draw other few-shot examples
  for (int k = 1; k <= 3; ++k) {
    const fs::path repeat = dir.path / "repeats" / ("repeat-" + std::to_string(k));
    ASSERT_EQ(Files(repeat, "results_").size(), 1u) << repeat;
    EXPECT_FALSE(fs::exists(repeat / "meta_env.json"));  // not an eval folder of its own
    const Json j = ReadJson(Files(repeat, "results_").at(0));
    EXPECT_EQ(j["config"]["fewshot_seed"], 1233 + k);
    EXPECT_DOUBLE_EQ(j["results"]["gsm8k"]["exact_match,strict-match"].get<double>(), 0.75);
  }
  const Json j = ReadJson(Files(dir.path, "results_").at(0));
  EXPECT_DOUBLE_EQ(j["results"]["gsm8k"]["exact_match,strict-match"].get<double>(), 0.75);
  // Each repeat's standard error: sqrt(p(1 − p) / (n − 1)) over 20 documents; pooled over the three:
  // sqrt(mean(se²) / 3), since the repeats score as many documents each.
  const double se = std::sqrt(0.75 * 0.25 / 19);
  EXPECT_NEAR(j["results"]["gsm8k"]["exact_match_stderr,strict-match"].get<double>(), se / std::sqrt(3.0), 1e-12);
  const Json& repeats = j["infermark"]["repeats"];
  EXPECT_EQ(repeats["count"], 3);
  EXPECT_EQ(repeats["seeds"], Json::array({1234, 1235, 1236}));
  EXPECT_EQ(repeats["runs"].size(), 3u);
  EXPECT_EQ(repeats["spread"]["exact_match,strict-match"]["sd"], 0.0);
  EXPECT_EQ(j["n-samples"]["gsm8k"]["effective"], 60);  // the answers the combined score is over
  EXPECT_TRUE(fs::exists(dir.path / "meta_env.json"));

  const std::string utils = InferenceXUtils();
  if (utils.empty()) GTEST_SKIP() << "no copy of InferenceX's utils/ (set INFERMARK_INFERENCEX_DIR)";
  const ProcessResult collect =
      RunCapture({Python(), utils + "/collect_eval_results.py", dir.path.string(), "t"}, dir.path.string());
  ASSERT_EQ(collect.exit_code, 0) << collect.err;
  const Json agg = ReadJson(dir.path / "agg_eval_t.json");
  ASSERT_EQ(agg.size(), 1u);  // the combined result, not the repeats
  EXPECT_DOUBLE_EQ(agg[0]["score"].get<double>(), 0.75);
  EXPECT_EQ(agg[0]["n_eff"], 60);
}

TEST(EvalCommand, FailedAttemptsAreRetried) {
  test::AnswerServerOptions o;
  o.fail_first_attempts = 2;
  test::Gsm8kAnswerServer server(TestSplit(), o);
  TempDir dir;
  const ProcessResult r =
      Eval(server, dir.path,
           {"--limit", "10", "--concurrency", "4", "--retry-wait-min", "0.01", "--retry-wait-max", "0.02"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(server.requests(), 30);
  const Json j = ReadJson(Files(dir.path, "results_").at(0));
  EXPECT_EQ(j["results"]["gsm8k"]["exact_match,strict-match"], 1.0);
  EXPECT_EQ(j["infermark"]["retried_requests"], 10);
  EXPECT_EQ(j["infermark"]["failed_requests"], 0);
}

TEST(EvalCommand, AServerThatKeepsFailingMakesTheEvalInvalid) {
  test::AnswerServerOptions o;
  o.always_fail = true;
  test::Gsm8kAnswerServer server(TestSplit(), o);
  TempDir dir;
  const ProcessResult r =
      Eval(server, dir.path, {"--limit", "4", "--retry-wait-min", "0.01", "--retry-wait-max", "0.01"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("4 of 4 requests failed after 5 attempts (http_status 4)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("INVALID"), std::string::npos);
  EXPECT_EQ(server.requests(), 20);
  EXPECT_TRUE(Files(dir.path, "results_").empty());  // no score the gate could take
  const auto invalid = Files(dir.path, "invalid_results_");
  ASSERT_EQ(invalid.size(), 1u);
  const Json j = ReadJson(invalid[0]);
  EXPECT_FALSE(j.contains("lm_eval_version"));
  EXPECT_EQ(j["infermark"]["status"], "invalid");
}

TEST(EvalCommand, BadInputIsExitTwoWithItsPlace) {
  TempDir dir;
  const fs::path task = dir.path / "bad.yaml";
  std::ofstream(task) << "task: t\ndataset_path: x\noutput_type: generate_until\ntest_split: test\n"
                         "doc_to_text: \"{{question|upper}}\"\ndoc_to_target: \"{{answer}}\"\n"
                         "metric_list:\n  - metric: exact_match\n";
  const ProcessResult r =
      test::RunInfermark({"eval", "--tasks", task.string(), "--base-url", "http://127.0.0.1:9", "--model", "m"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("doc_to_text"), std::string::npos) << r.err;
  const ProcessResult unknown =
      test::RunInfermark({"eval", "--tasks", "mmlu", "--base-url", "http://127.0.0.1:9", "--model", "m"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("neither a built-in task"), std::string::npos) << unknown.err;
}

TEST(EvalCommand, AnUnreachableServerWritesNothing) {
  TempDir dir;
  const ProcessResult r = test::RunInfermark({"eval", "--tasks", "gsm8k", "--base-url", "http://127.0.0.1:9", "--model",
                                              "m", "--limit", "2", "--output-path", dir.path.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot reach the server"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir.path));
}

}  // namespace
}  // namespace infermark
