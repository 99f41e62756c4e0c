// `infermark changelog` against git repositories the tests build: additions expanded into the
// InferenceX buckets, deletions and unknown keys rejected, trim-conc and append-only deltas.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "run_binary.hpp"

namespace infermark {
namespace {
namespace fs = std::filesystem;

class ChangelogRepo : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infermark-changelog-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "configs");
    fs::copy_file(test::Fixture("inferencex/configs/deprecated/amd-minimaxm3-8k1k-master.yaml"),
                  dir_ / "configs/amd-master.yaml");
    fs::copy_file(test::Fixture("inferencex/configs/runners.yaml"), dir_ / "configs/runners.yaml");
    Write("perf-changelog.yaml", kBase);
    Git({"init", "-q"});
    Commit("base");
  }
  void TearDown() override { fs::remove_all(dir_); }

  static constexpr const char* kBase =
      "- config-keys:\n    - minimaxm3-fp8-mi355x-vllm\n  description:\n    - \"old entry\"\n"
      "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/1\n";

  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  void Append(const std::string& text) { std::ofstream(dir_ / "perf-changelog.yaml", std::ios::app) << text; }
  void Git(std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-c", "user.email=t@example.com", "-c", "user.name=t"});
    ASSERT_EQ(RunCapture(args, dir_.string()).exit_code, 0);
  }
  void Commit(const std::string& message) {
    Git({"add", "-A"});
    Git({"commit", "-qm", message});
  }
  ProcessResult Run(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"changelog",
                                     "--base-ref",
                                     "HEAD~1",
                                     "--head-ref",
                                     "HEAD",
                                     "--config-files",
                                     "configs/amd-master.yaml",
                                     "--runner-config",
                                     "configs/runners.yaml"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::RunInfermark(args, dir_.string());
  }
  static std::string Entry(const std::string& key, const std::string& extra = "") {
    return "\n- config-keys:\n    - " + key + "\n  description:\n    - \"change\"\n" + extra +
           "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/2\n";
  }

  fs::path dir_;
};

TEST_F(ChangelogRepo, ExpandsAnAddedEntryIntoBuckets) {
  Append(Entry("minimaxm3-fp4-mi355x-vllm"));
  Commit("head");
  const auto r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  const auto& rows = doc["single_node"]["8k1k"];
  ASSERT_EQ(rows.size(), 17u);
  EXPECT_EQ(rows[0]["recipe-fingerprint"], "039c177303ee6f3eff1310accaee3928c70cecd4397acb5b127b12314f1eeb60");
  EXPECT_EQ(rows[0]["eval-only"], false);
  // Model field order: spec-decoding right after framework, as the pydantic model dumps it.
  auto it = rows[0].items().begin();
  for (int i = 0; i < 5; ++i) ++it;
  EXPECT_EQ(it.key(), "spec-decoding");
  EXPECT_TRUE(doc["multi_node"].empty());
  ASSERT_EQ(doc["evals"].size(), 2u);
  EXPECT_EQ(doc["evals"][0]["eval-only"], true);
  EXPECT_FALSE(doc["evals"][0].contains("recipe-fingerprint"));
  EXPECT_EQ(doc["changelog_metadata"]["base_ref"], "HEAD~1");
  EXPECT_EQ(doc["changelog_metadata"]["entries"][0]["config-keys"][0], "minimaxm3-fp4-mi355x-vllm");
  EXPECT_EQ(r.out.find(", "), std::string::npos) << "compact separators expected";
}

TEST_F(ChangelogRepo, GlobsReachMultiNodeRecipes) {
  Append(Entry("minimaxm3-fp4-mi355x-vllm*"));
  Commit("head");
  const auto r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  ASSERT_TRUE(doc["multi_node"].contains("8k1k"));
  const auto& row = doc["multi_node"]["8k1k"][0];
  EXPECT_EQ(row["eval-all-concs"], false);
  EXPECT_EQ(row["prefill"]["additional-settings"][0], "PREFILL_NODES=1");
  EXPECT_EQ(row["kv-p2p-transfer"], "moriio");
  EXPECT_EQ(row["recipe-fingerprint"].get<std::string>().size(), 64u);
}

TEST_F(ChangelogRepo, TrimConcKeepsTheSmallestPointOfEachCurve) {
  Append(Entry("minimaxm3-fp4-mi355x-vllm"));
  Commit("head");
  const auto r = Run({"--trim-conc"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  ASSERT_EQ(doc["single_node"]["8k1k"].size(), 2u);  // TP2 and TP4 curves
  for (const auto& row : doc["single_node"]["8k1k"]) EXPECT_EQ(row["conc"], 1);
}

TEST_F(ChangelogRepo, GithubOutputsSplitTheRowsForAWorkflow) {
  Append(Entry("minimaxm3-fp4-mi355x-vllm*"));
  Commit("head");
  const auto doc_run = Run({"--trim-conc"});
  ASSERT_EQ(doc_run.exit_code, 0) << doc_run.err;
  const Json doc = Json::parse(doc_run.out);
  const auto r = Run({"--trim-conc", "--format", "github-outputs"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> outputs;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    outputs[line.substr(0, line.find('='))] = line.substr(line.find('=') + 1);
  ASSERT_EQ(outputs.size(), 4u) << r.out;
  const Json single = Json::parse(outputs["single-node"])["include"];
  const Json multi = Json::parse(outputs["multi-node"])["include"];
  // Every bucket's rows, single-node throughput rows then eval rows, multi-node apart.
  std::size_t want_single = doc["evals"].size();
  for (const auto& [bucket, rows] : doc["single_node"].items()) want_single += rows.size();
  std::size_t want_multi = doc["multinode_evals"].size();
  for (const auto& [bucket, rows] : doc["multi_node"].items()) want_multi += rows.size();
  EXPECT_EQ(single.size(), want_single);
  EXPECT_EQ(multi.size(), want_multi);
  EXPECT_GT(multi.size(), 0u);
  EXPECT_EQ(outputs["single-node-jobs"], std::to_string(want_single));
  EXPECT_EQ(outputs["multi-node-jobs"], std::to_string(want_multi));
  EXPECT_EQ(single[0], doc["single_node"]["8k1k"][0]);
  for (const auto& row : multi) EXPECT_TRUE(row.contains("prefill") && row.contains("decode"));
  // Shards split the rows; the JSON document is one and is not split.
  const auto half = Run({"--trim-conc", "--format", "github-outputs", "--shard", "1/2"});
  ASSERT_EQ(half.exit_code, 0) << half.err;
  EXPECT_NE(half.out, r.out);
  const auto bad = Run({"--shard", "1/2"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("splits the github-outputs format only"), std::string::npos) << bad.err;
}

TEST_F(ChangelogRepo, EvalsOnlyEntriesRunNoThroughput) {
  Append(Entry("minimaxm3-fp4-mi355x-vllm", "  evals-only: true\n"));
  Commit("head");
  const auto r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_TRUE(doc["single_node"].empty());
  EXPECT_EQ(doc["evals"].size(), 2u);
}

TEST_F(ChangelogRepo, DeletionsAreRejected) {
  std::string text = kBase;
  text.replace(text.find("old entry"), 9, "rewritten");
  Write("perf-changelog.yaml", text + Entry("minimaxm3-fp4-mi355x-vllm"));
  Commit("head");
  const auto r = Run();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Deletions are not allowed"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(ChangelogRepo, UnknownKeysAndPatternsAreRejected) {
  Append(Entry("no-such-config"));
  Commit("head");
  auto r = Run();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Config key 'no-such-config' not found"), std::string::npos) << r.err;
}

TEST_F(ChangelogRepo, SchemaErrorsPointAtTheHeadFileLine) {
  Append(Entry("minimaxm3-fp4-mi355x-vllm", "  bogus: 1\n"));
  Commit("head");
  const auto r = Run();
  EXPECT_EQ(r.exit_code, 2);
  // kBase has 5 lines, then a blank line; the added entry's `bogus` is line 11 of the head file.
  EXPECT_NE(r.err.find("perf-changelog.yaml@HEAD:11:3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown field"), std::string::npos) << r.err;
}

TEST_F(ChangelogRepo, NoAdditionsIsAnError) {
  Write("other.txt", "x");
  Commit("head");
  const auto r = Run();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("No additions found"), std::string::npos) << r.err;
}

TEST_F(ChangelogRepo, BadRevisionIsAnError) {
  const auto r = test::RunInfermark({"changelog", "--base-ref", "nope", "--head-ref", "HEAD", "--config-files",
                                     "configs/amd-master.yaml", "--runner-config", "configs/runners.yaml"},
                                    dir_.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST_F(ChangelogRepo, AppendOnlyRunsOnlyTheNewPoints) {
  // Head widens the TP4 curve of the 8k1k recipe from 1..64 to 1..256: only c128 and c256 are new.
  std::string config = ReadFile((dir_ / "configs/amd-master.yaml").string());
  const std::string from = "{ tp: 4, conc-start: 1, conc-end: 64 }";
  const auto at = config.find(from, config.find("minimaxm3-fp4-mi355x-vllm:"));
  ASSERT_NE(at, std::string::npos);
  config.replace(at, from.size(), "{ tp: 4, conc-start: 1, conc-end: 256 }");
  Write("configs/amd-master.yaml", config);
  Append(Entry("minimaxm3-fp4-mi355x-vllm", "  append-only: true\n"));
  Commit("head");
  const auto r = Run();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  const auto& rows = doc["single_node"]["8k1k"];
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["conc"], 128);
  EXPECT_EQ(rows[1]["conc"], 256);
}

TEST_F(ChangelogRepo, AppendOnlyMayNotDropPoints) {
  std::string config = ReadFile((dir_ / "configs/amd-master.yaml").string());
  const std::string from = "{ tp: 4, conc-start: 1, conc-end: 64 }";
  const auto at = config.find(from, config.find("minimaxm3-fp4-mi355x-vllm:"));
  ASSERT_NE(at, std::string::npos);
  config.replace(at, from.size(), "{ tp: 4, conc-start: 1, conc-end: 32 }");
  Write("configs/amd-master.yaml", config);
  Append(Entry("minimaxm3-fp4-mi355x-vllm", "  append-only: true\n"));
  Commit("head");
  const auto r = Run();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("removes an existing point"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace infermark
