// InferenceX's batched eval layout as core states it: the manifest in meta_env.json read (with
// collect_eval_results.py's defaults) and written in InferenceX's key order, a concurrency's file
// names with the staging rule's `_2`, `_3` for names already taken, and the concurrency read back
// from a results file's name; and, as parity tests, benchmark_lib.sh's own staging and the
// scripts' own suffix pattern agreeing with both rules.
#include "core/eval_batch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/diagnostic.hpp"
#include "core/file_io.hpp"
#include "core/subprocess.hpp"
#include "reference.hpp"
#include "scratch_dir.hpp"

namespace infermark {
namespace {

namespace fs = std::filesystem;

std::string BatchProblem(const Json& meta) {
  try {
    ReadEvalBatch(meta, "/r/meta_env.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(EvalBatch, ReadsTheManifestWithTheCollectorsDefaults) {
  EXPECT_FALSE(ReadEvalBatch(Json{{"conc", 64}}, "m").has_value());  // one eval's folder
  const auto b = ReadEvalBatch(
      Json{{"conc", 8}, {"eval_concs", {8, 16, 32}}, {"completed_eval_concs", {8, 32}}, {"failed_eval_concs", {16}}},
      "m");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->concs, (std::vector<long long>{8, 16, 32}));
  EXPECT_TRUE(b->Completed(32));
  EXPECT_FALSE(b->Completed(16));
  EXPECT_TRUE(b->Failed(16));
  // Without the outcome lists every concurrency counts as completed (collect_eval_results.py).
  const auto bare = ReadEvalBatch(Json{{"eval_concs", {4, 16}}}, "m");
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->completed, (std::vector<long long>{4, 16}));
  EXPECT_TRUE(bare->failed.empty());
}

TEST(EvalBatch, ABadManifestNamesFileFieldAndRule) {
  const std::string list = BatchProblem(Json{{"eval_concs", "8 16"}});
  EXPECT_NE(list.find("/r/meta_env.json"), std::string::npos) << list;
  EXPECT_NE(list.find("eval_concs"), std::string::npos) << list;
  EXPECT_NE(list.find("must be a list"), std::string::npos) << list;
  EXPECT_NE(BatchProblem(Json{{"eval_concs", {8, 0}}}).find("positive integers"), std::string::npos);
  EXPECT_NE(BatchProblem(Json{{"eval_concs", {8}}, {"failed_eval_concs", {"8"}}}).find("failed_eval_concs"),
            std::string::npos);
  EXPECT_NE(BatchProblem(Json{{"eval_concs", {8, 8}}}).find("twice"), std::string::npos);
}

TEST(EvalBatch, TheManifestGoesAfterConcInInferenceXsOrder) {
  Json meta = Json::object();
  meta["tp"] = 4;
  meta["conc"] = 256;
  meta["ep"] = 1;
  const Json out = WithEvalBatch(meta, EvalBatch{{64, 256}, {64}, {256}});
  std::vector<std::string> keys;
  for (const auto& [key, value] : out.items()) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"tp", "conc", "eval_concs", "completed_eval_concs", "failed_eval_concs", "ep"}));
  EXPECT_EQ(out["conc"], 64);  // the first concurrency asked for
  EXPECT_EQ(out["failed_eval_concs"], Json::array({256}));
  // Written again, the fields are replaced, not repeated.
  const Json again = WithEvalBatch(out, EvalBatch{{64, 256}, {64, 256}, {}});
  EXPECT_EQ(again.size(), out.size());
  EXPECT_EQ(again["completed_eval_concs"], Json::array({64, 256}));
  const auto back = ReadEvalBatch(again, "m");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->completed, (std::vector<long long>{64, 256}));
}

TEST(EvalBatch, NamesTakenGetTheNextSuffix) {
  test::ScratchDir s;
  const std::string dir = s.path.string();
  EXPECT_EQ(BatchedFileName(dir, "results_x", 8, ".json"), "results_x_conc8.json");
  WriteFileAtomic((s.path / "results_x_conc8.json").string(), "{}");
  EXPECT_EQ(BatchedFileName(dir, "results_x", 8, ".json"), "results_x_conc8_2.json");
  WriteFileAtomic((s.path / "results_x_conc8_2.json").string(), "{}");
  EXPECT_EQ(BatchedFileName(dir, "results_x", 8, ".json"), "results_x_conc8_3.json");
  EXPECT_EQ(BatchedFileName(dir, "results_x", 16, ".json"), "results_x_conc16.json");
  EXPECT_EQ(BatchedFileName(dir, "samples_gsm8k_x", 8, ".jsonl"), "samples_gsm8k_x_conc8.jsonl");
}

TEST(EvalBatch, TheConcurrencyOfAResultsFilesName) {
  EXPECT_EQ(BatchedFileConcurrency("results_2026-12-06T04-00-00.1_conc64.json"), 64);
  EXPECT_EQ(BatchedFileConcurrency("results_x_conc64_2.json"), 64);
  EXPECT_EQ(BatchedFileConcurrency("invalid_results_x_conc8.json"), 8);
  EXPECT_FALSE(BatchedFileConcurrency("results_x.json").has_value());
  EXPECT_FALSE(BatchedFileConcurrency("samples_gsm8k_x_conc8.jsonl").has_value());
  EXPECT_FALSE(BatchedFileConcurrency("results_x_conc8_b.json").has_value());
  EXPECT_FALSE(BatchedFileConcurrency("results_x_conc.json").has_value());
}

// benchmark_lib.sh's _stage_lm_eval_artifacts, unchanged, staging the same files twice into one
// folder (a re-run whose lm-eval files repeat their names): the names it gives are ours.
TEST(EvalBatchParity, StagingNamesAreInferenceXs) {
  INFERMARK_REQUIRE_REFERENCE({"benchmarks/benchmark_lib.sh"});
  test::ScratchDir s;
  const fs::path out = s.path / "out";
  fs::create_directories(out);
  const std::string script =
      "source \"$1\" >/dev/null 2>&1\n"
      "for run in 1 2; do\n"
      "  for conc in 8 16; do\n"
      "    d=$(mktemp -d \"$2/lm-XXXXXX\"); mkdir -p \"$d/model\"\n"
      "    echo '{}' > \"$d/model/results_x.json\"; echo '{}' > \"$d/model/samples_gsm8k_x.jsonl\"\n"
      "    _stage_lm_eval_artifacts \"$d\" \"$conc\" || exit 1\n"
      "  done\n"
      "done\n";
  const ProcessResult ran =
      RunCapture({"bash", "-c", script, "stage", test::ReferencePath("benchmarks/benchmark_lib.sh"), s.path.string()},
                 out.string());
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  std::vector<std::string> theirs;
  for (const auto& e : fs::directory_iterator(out)) theirs.push_back(e.path().filename().string());
  std::sort(theirs.begin(), theirs.end());

  test::ScratchDir mine_dir;
  std::vector<std::string> mine;
  for (int run = 0; run < 2; ++run) {
    for (const long long conc : {8, 16}) {
      for (const auto& [stem, ext] : {std::pair{"results_x", ".json"}, std::pair{"samples_gsm8k_x", ".jsonl"}}) {
        const std::string name = BatchedFileName(mine_dir.path.string(), stem, conc, ext);
        WriteFileAtomic((mine_dir.path / name).string(), "{}");
        mine.push_back(name);
      }
    }
  }
  std::sort(mine.begin(), mine.end());
  EXPECT_EQ(mine, theirs);
}

// The suffix pattern of collect_eval_results.py and validate_scores.py (CONC_SUFFIX_RE), run by
// the scripts' own code on the same names.
TEST(EvalBatchParity, ConcurrencySuffixIsTheScriptsPattern) {
  INFERMARK_REQUIRE_REFERENCE({"utils/collect_eval_results.py"});
  // Debian's interpreter, where scripts/setup.sh installs python3-tabulate (the collector imports it).
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (RunCapture({python, "-c", "import tabulate"}).exit_code != 0) {
    if (test::InCi()) FAIL() << python << " lacks tabulate [CI=true: parity tests must run]";
    GTEST_SKIP() << python << " lacks tabulate (scripts/setup.sh installs python3-tabulate)";
  }
  const std::vector<std::string> names = {
      "results_x_conc64.json",  "results_x_conc64_2.json",      "results_x.json",   "results_x_conc64.jsonl",
      "results_x_conc_2.json",  "results_conc7_x.json",         "r_conc1_2_3.json", "results_x_conc0010.json",
      "results_x_conc8_b.json", "invalid_results_y_conc16.json"};
  Json list = Json::array();
  for (const auto& n : names) list.push_back(n);
  const std::string probe =
      "import json, sys\nfrom pathlib import Path\nsys.path.insert(0, 'utils')\n"
      "from collect_eval_results import result_concurrency\n"
      "print(json.dumps([result_concurrency(Path(n)) for n in json.loads(sys.argv[1])]))\n";
  const ProcessResult ran = RunCapture({python, "-c", probe, list.dump()}, test::ReferenceRoot());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  const Json theirs = Json::parse(ran.out);
  ASSERT_EQ(theirs.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto mine = BatchedFileConcurrency(names[i]);
    EXPECT_EQ(mine ? Json(*mine) : Json(nullptr), theirs[i]) << names[i];
  }
}

}  // namespace
}  // namespace infermark
