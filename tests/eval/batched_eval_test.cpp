// Batched evals as InferenceX batches them: `infermark eval --concurrency 8,16` runs one eval per
// concurrency against the same server, in order, and writes InferenceX's batched layout
// (results_<stamp>_conc<N>.json, samples files, one meta_env.json with eval_concs,
// completed_eval_concs and failed_eval_concs); a failed concurrency is listed as failed and the
// others kept. As parity tests, InferenceX's own collect_eval_results.py and validate_scores.py
// read that output unchanged and give the rows and verdicts infermark's store gives (`results
// ingest`, then `results show --json`): every concurrency completed, one failed, and a re-run that
// leaves `_conc<N>_2` files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/eval_batch.hpp"
#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "core/subprocess.hpp"
#include "eval/eval_run.hpp"
#include "eval/gsm8k_answer_server.hpp"
#include "eval/lm_eval_output.hpp"
#include "reference.hpp"
#include "run_binary.hpp"
#include "scratch_dir.hpp"
#include "test_paths.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;

std::string BatchTestSplit() {
  return test::SourcePath("data/evals/gsm8k/test.jsonl");
}

// The launcher environment meta_env.json is written from (a founding-recipe row's).
const std::vector<std::string> kBatchEnv = {
    "MODEL_PREFIX=minimaxm3", "RUNNER_TYPE=mi355x", "FRAMEWORK=vllm", "PRECISION=fp4", "TP=4", "ISL=8192", "OSL=1024"};

ProcessResult BatchEval(const test::Gsm8kAnswerServer& server, const fs::path& out, const std::string& concs,
                        const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv = {"env"};
  argv.insert(argv.end(), kBatchEnv.begin(), kBatchEnv.end());
  const std::vector<std::string> args = {test::Binary(),
                                         "eval",
                                         "--tasks",
                                         "gsm8k",
                                         "--base-url",
                                         "http://127.0.0.1:" + std::to_string(server.port()),
                                         "--model",
                                         "oracle",
                                         "--output-path",
                                         out.string(),
                                         "--quiet",
                                         "--limit",
                                         "20",
                                         "--concurrency",
                                         concs,
                                         "--retry-wait-min",
                                         "0.01",
                                         "--retry-wait-max",
                                         "0.01"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  return RunCapture(argv);
}

Json BatchJson(const fs::path& p) {
  return Json::parse(ReadFile(p.string()));
}

// The names in `dir` that start with `prefix`, sorted.
std::vector<std::string> BatchNames(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(BatchedEval, SeveralConcurrenciesRunInOrderIntoTheBatchedLayout) {
  test::Gsm8kAnswerServer server(BatchTestSplit(), {});
  test::ScratchDir dir;
  const ProcessResult r = BatchEval(server, dir.path, "8,16");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(server.requests(), 40);  // both evals against the one server
  const std::vector<std::string> results = BatchNames(dir.path, "results_");
  ASSERT_EQ(results.size(), 2u);
  const std::vector<std::string> samples = BatchNames(dir.path, "samples_gsm8k_");
  ASSERT_EQ(samples.size(), 2u);
  std::map<long long, std::string> by_conc;
  for (const std::string& name : results) {
    const auto conc = BatchedFileConcurrency(name);
    ASSERT_TRUE(conc.has_value()) << name;
    by_conc[*conc] = name;
  }
  ASSERT_EQ(by_conc.size(), 2u);
  for (const auto& [conc, name] : by_conc) {
    const Json j = BatchJson(dir.path / name);
    EXPECT_EQ(j["results"]["gsm8k"]["exact_match,strict-match"], 1.0);
    EXPECT_EQ(j["n-samples"]["gsm8k"]["effective"], 20);
    EXPECT_NE(j["config"]["model_args"].get<std::string>().find("num_concurrent=" + std::to_string(conc)),
              std::string::npos);
    // The samples file of the same eval carries the same stamp and suffix.
    const std::string stem = name.substr(std::string("results_").size());
    EXPECT_TRUE(fs::exists(dir.path / ("samples_gsm8k_" + stem.substr(0, stem.size() - 5) + ".jsonl"))) << name;
  }
  EXPECT_TRUE(by_conc.count(8) && by_conc.count(16));
  // The conc-8 eval ran first.
  EXPECT_LT(BatchJson(dir.path / by_conc[8])["start_time"].get<double>(),
            BatchJson(dir.path / by_conc[16])["start_time"].get<double>());
  const Json meta = BatchJson(dir.path / "meta_env.json");
  EXPECT_EQ(meta["eval_concs"], Json::array({8, 16}));
  EXPECT_EQ(meta["completed_eval_concs"], Json::array({8, 16}));
  EXPECT_EQ(meta["failed_eval_concs"], Json::array());
  EXPECT_EQ(meta["conc"], 8);
  EXPECT_EQ(meta["infmax_model_prefix"], "minimaxm3");
  EXPECT_NE(r.out.find("batch: completed 8 16; failed none"), std::string::npos) << r.out;
}

TEST(BatchedEval, AFailedConcurrencyIsListedAndTheOthersKept) {
  test::AnswerServerOptions o;
  o.fail_after_requests = 20;  // the conc-16 eval, second, gets HTTP 500 for every request
  test::Gsm8kAnswerServer server(BatchTestSplit(), o);
  test::ScratchDir dir;
  const ProcessResult r = BatchEval(server, dir.path, "8,16");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("batched eval failed for concurrency: 16"), std::string::npos) << r.err;
  const Json meta = BatchJson(dir.path / "meta_env.json");
  EXPECT_EQ(meta["eval_concs"], Json::array({8, 16}));
  EXPECT_EQ(meta["completed_eval_concs"], Json::array({8}));
  EXPECT_EQ(meta["failed_eval_concs"], Json::array({16}));
  const std::vector<std::string> results = BatchNames(dir.path, "results_");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(BatchedFileConcurrency(results[0]), 8);
  const std::vector<std::string> invalid = BatchNames(dir.path, "invalid_results_");
  ASSERT_EQ(invalid.size(), 1u);
  EXPECT_EQ(BatchedFileConcurrency(invalid[0]), 16);
  EXPECT_FALSE(BatchJson(dir.path / invalid[0]).contains("lm_eval_version"));
}

TEST(BatchedEval, ConcurrenciesAreDistinctAndPositive) {
  test::Gsm8kAnswerServer server(BatchTestSplit(), {});
  test::ScratchDir dir;
  const ProcessResult twice = BatchEval(server, dir.path, "8,8");
  EXPECT_EQ(twice.exit_code, 2) << twice.out << twice.err;
  EXPECT_NE(twice.err.find("--concurrency"), std::string::npos) << twice.err;
  EXPECT_NE(twice.err.find("names concurrency 8 twice"), std::string::npos) << twice.err;
  const ProcessResult zero = BatchEval(server, dir.path, "8,0");
  EXPECT_EQ(zero.exit_code, 2) << zero.out << zero.err;
  EXPECT_NE(zero.err.find("must be >= 1"), std::string::npos) << zero.err;
  EXPECT_EQ(server.requests(), 0);
  EXPECT_TRUE(fs::is_empty(dir.path));
}

// --- parity: InferenceX's scripts and the store on the same batched folder ---------------------

// Debian's interpreter, where scripts/setup.sh installs python3-yaml and python3-tabulate.
std::string BatchPython() {
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// The reference scripts and an interpreter with the modules they import; skips saying which is
// missing, or fails under CI=true (tests/reference.hpp's rule).
#define INFERMARK_REQUIRE_BATCH_REFERENCE()                                                                  \
  INFERMARK_REQUIRE_REFERENCE({"utils/collect_eval_results.py", "utils/evals/validate_scores.py"});          \
  if (RunCapture({BatchPython(), "-c", "import tabulate, yaml"}).exit_code != 0) {                           \
    if (test::InCi()) FAIL() << BatchPython() << " lacks tabulate or yaml [CI=true: parity tests must run]"; \
    GTEST_SKIP() << BatchPython() << " lacks tabulate or yaml (scripts/setup.sh installs them)";             \
  }

// What collect_eval_results.py aggregates for `dir` (agg_eval_<name>.json's rows); `printed`, when
// given, gets the table it prints.
Json CollectRows(const fs::path& dir, const fs::path& work, std::string* printed = nullptr) {
  const ProcessResult ran = RunCapture(
      {BatchPython(), test::ReferencePath("utils/collect_eval_results.py"), dir.string(), "batch"}, work.string());
  EXPECT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  if (printed != nullptr) *printed = ran.out;
  return BatchJson(work / "agg_eval_batch.json");
}

// validate_scores.py on `glob` with the folder's meta_env.json and the project's thresholds.
ProcessResult Validate(const fs::path& dir, const std::string& glob) {
  return RunCapture({BatchPython(), test::ReferencePath("utils/evals/validate_scores.py"), "--thresholds",
                     test::SourcePath("data/evals/thresholds.yaml"), "--meta-env", (dir / "meta_env.json").string(),
                     "--results-glob", (dir / glob).string()},
                    dir.string());
}

// The store's evaluations of `dir`: `results ingest` into a fresh store, `results show --json`.
Json StoreEvaluations(const fs::path& dir, const fs::path& work) {
  const std::string db = (work / "store.db").string();
  const ProcessResult ingest = test::RunInfermark({"results", "ingest", dir.string(), "--db", db});
  EXPECT_EQ(ingest.exit_code, 0) << ingest.out << ingest.err;
  const ProcessResult show = test::RunInfermark({"results", "show", "latest", "--db", db, "--json"});
  EXPECT_EQ(show.exit_code, 0) << show.out << show.err;
  Json evals = Json::parse(show.out)["evaluations"];
  std::vector<Json> sorted(evals.begin(), evals.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const Json& a, const Json& b) { return a["eval_concurrency"] < b["eval_concurrency"]; });
  return Json(sorted);
}

// collect_eval_results.py's rows are the store's scored evaluations, figure for figure, from the
// same results files; and validate_scores.py, run on the file each took, gives each verdict.
void ExpectStoreAgrees(const fs::path& dir, const Json& rows, const Json& evals) {
  std::vector<Json> scored;
  for (const Json& e : evals) {
    if (e["status"] == "scored") scored.push_back(e);
  }
  ASSERT_EQ(rows.size(), scored.size()) << rows.dump(1) << "\n" << evals.dump(1);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    const Json& e = scored[i];
    EXPECT_EQ(row["conc"], e["conc"]);
    EXPECT_EQ(row["conc"], e["eval_concurrency"]);
    EXPECT_EQ(row["task"], e["task"]);
    EXPECT_EQ(row["score"], e["score"]);
    EXPECT_EQ(row["score_se"], e["stderr"]);
    EXPECT_EQ(row["em_flexible"], e["flexible_score"]);
    EXPECT_EQ(row["em_flexible_se"], e["flexible_stderr"]);
    EXPECT_EQ(row["n_eff"], e["n"]);
    EXPECT_EQ(row["model_prefix"], e["model_prefix"]);
    EXPECT_EQ(row["tp"], 4);
    EXPECT_EQ(row["isl"], e["isl"]);
    EXPECT_EQ(fs::path(row["source"].get<std::string>()).filename().string(), e["results_file"]) << row.dump();
  }
  for (const Json& e : scored) {
    const ProcessResult v = Validate(dir, e["results_file"].get<std::string>());
    const std::string label = "[conc=" + std::to_string(e["eval_concurrency"].get<long long>()) + "] ";
    const bool pass = v.out.find("PASS: " + label + "gsm8k exact_match,strict-match") != std::string::npos &&
                      v.err.find("FAIL: " + label) == std::string::npos;
    EXPECT_EQ(pass, e["passed"] == true) << e.dump() << "\n" << v.out << v.err;
  }
}

Json CountsOf(const Json& evals, const char* field) {
  Json out = Json::array();
  for (const Json& e : evals) out.push_back(e[field]);
  return out;
}

TEST(BatchedEvalParity, EveryConcurrencyCompleted) {
  INFERMARK_REQUIRE_BATCH_REFERENCE();
  test::Gsm8kAnswerServer server(BatchTestSplit(), {});
  test::ScratchDir work;
  const fs::path dir = work.path / "eval";
  const ProcessResult r = BatchEval(server, dir, "8,16");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string table;
  const Json rows = CollectRows(dir, work.path, &table);
  ASSERT_EQ(rows.size(), 2u);
  // The collector prints two rows, one per concurrency.
  std::size_t printed = 0;
  for (std::size_t at = table.find("\n| minimaxm3 "); at != std::string::npos;
       at = table.find("\n| minimaxm3 ", at + 1))
    ++printed;
  EXPECT_EQ(printed, 2u) << table;
  const Json evals = StoreEvaluations(dir, work.path);
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(CountsOf(evals, "eval_concurrency"), Json::array({8, 16}));
  EXPECT_EQ(CountsOf(evals, "verdict"), Json::array({"PASS", "PASS"}));
  ExpectStoreAgrees(dir, rows, evals);
  const ProcessResult folder = Validate(dir, "results*.json");
  EXPECT_EQ(folder.exit_code, 0) << folder.out << folder.err;
  EXPECT_NE(folder.out.find("PASS: batched eval produced every requested concurrency"), std::string::npos);
}

TEST(BatchedEvalParity, OneConcurrencyFailed) {
  INFERMARK_REQUIRE_BATCH_REFERENCE();
  test::AnswerServerOptions o;
  o.fail_after_requests = 20;
  test::Gsm8kAnswerServer server(BatchTestSplit(), o);
  test::ScratchDir work;
  const fs::path dir = work.path / "eval";
  const ProcessResult r = BatchEval(server, dir, "8,16");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  const Json rows = CollectRows(dir, work.path);
  ASSERT_EQ(rows.size(), 1u);  // the failed concurrency has no row
  EXPECT_EQ(rows[0]["conc"], 8);
  const Json evals = StoreEvaluations(dir, work.path);
  ASSERT_EQ(evals.size(), 2u);  // the store keeps it, as failed
  EXPECT_EQ(CountsOf(evals, "verdict"), Json::array({"PASS", "INVALID"}));
  EXPECT_NE(evals[1]["reasons"].at(0).get<std::string>().find("as failed (failed_eval_concs)"), std::string::npos)
      << evals[1].dump();
  EXPECT_EQ(evals[1]["score"], nullptr);
  ExpectStoreAgrees(dir, rows, evals);
  const ProcessResult folder = Validate(dir, "results*.json");
  EXPECT_EQ(folder.exit_code, 1) << folder.out << folder.err;
  EXPECT_NE(folder.err.find("FAIL: batched eval failed for concurrency: 16"), std::string::npos) << folder.err;
  EXPECT_NE(folder.err.find("missing completed concurrency: 16"), std::string::npos) << folder.err;
}

// A re-run into the folder of a batch whose second concurrency failed: lm-eval's file names
// repeat (the same stamp), so InferenceX's staging rule appends `_2` to the re-run's conc-8
// files. infermark's writer (the functions `infermark eval` runs) is given that stamp.
TEST(BatchedEvalParity, AReRunLeavesSuffixedFiles) {
  INFERMARK_REQUIRE_BATCH_REFERENCE();
  test::ScratchDir work;
  const fs::path dir = work.path / "eval";
  const std::string stamp = "2026-12-06T04-00-00.000001";
  const eval::EnvLookup env = [](const std::string& key) -> std::optional<std::string> {
    for (const std::string& kv : kBatchEnv) {
      if (kv.rfind(key + "=", 0) == 0) return kv.substr(key.size() + 1);
    }
    return std::nullopt;
  };
  // One batch run against `server`: each concurrency's files, then the manifest.
  const auto run_batch = [&](const test::Gsm8kAnswerServer& server) {
    EvalBatch manifest{{8, 16}, {}, {}};
    for (const long long conc : manifest.concs) {
      eval::EvalSettings s;
      s.task = "gsm8k";
      s.model = "oracle";
      s.limit = 20;
      s.client.base_url = "http://127.0.0.1:" + std::to_string(server.port());
      s.client.concurrency = static_cast<std::size_t>(conc);
      s.client.retry_wait_min_s = 0.01;
      s.client.retry_wait_max_s = 0.01;
      const eval::EvalResult result = eval::RunEval(s);
      eval::RunDescription run;
      run.model = s.model;
      run.base_url = s.client.base_url;
      run.concurrency = s.client.concurrency;
      run.limit = s.limit;
      eval::WriteBatchedEvalFiles(dir.string(), result, run, stamp);
      const bool ok = result.complete && result.invalid_reasons.empty();
      (ok ? manifest.completed : manifest.failed).push_back(conc);
    }
    WriteFileAtomic((dir / "meta_env.json").string(),
                    WithEvalBatch(eval::MetaEnvJson(env, "oracle", 8), manifest).dump(2));
  };
  {
    test::AnswerServerOptions o;
    o.wrong_every = 10;          // 18 of 20 right: 0.90
    o.fail_after_requests = 20;  // conc 16 fails
    test::Gsm8kAnswerServer first(BatchTestSplit(), o);
    run_batch(first);
  }
  // The first run's files are older (collect_eval_results.py takes the newest per concurrency).
  for (const auto& e : fs::directory_iterator(dir)) {
    fs::last_write_time(e.path(), fs::last_write_time(e.path()) - std::chrono::seconds(10));
  }
  {
    test::Gsm8kAnswerServer second(BatchTestSplit(), {});
    run_batch(second);
  }
  const std::vector<std::string> results = BatchNames(dir, "results_");
  EXPECT_EQ(results, (std::vector<std::string>{"results_" + stamp + "_conc16.json", "results_" + stamp + "_conc8.json",
                                               "results_" + stamp + "_conc8_2.json"}));
  EXPECT_TRUE(fs::exists(dir / ("samples_gsm8k_" + stamp + "_conc8_2.jsonl")));
  const Json rows = CollectRows(dir, work.path);
  ASSERT_EQ(rows.size(), 2u);
  const Json evals = StoreEvaluations(dir, work.path);
  ASSERT_EQ(evals.size(), 2u);
  EXPECT_EQ(CountsOf(evals, "results_file"),
            Json::array({"results_" + stamp + "_conc8_2.json", "results_" + stamp + "_conc16.json"}));
  EXPECT_EQ(CountsOf(evals, "score"), Json::array({1.0, 1.0}));  // the re-run's, not the first run's 0.90
  ExpectStoreAgrees(dir, rows, evals);
  const ProcessResult folder = Validate(dir, "results*.json");
  EXPECT_EQ(folder.exit_code, 0) << folder.out << folder.err;
}

}  // namespace
}  // namespace infermark
