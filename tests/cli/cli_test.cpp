// The binary as a user meets it: help, version, exit codes, validate and matrix on real files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/json_text.hpp"
#include "run_binary.hpp"

namespace infermark {
namespace {

using test::RunInfermark;

std::vector<std::string> AllFixtureConfigs() {
  std::vector<std::string> files;
  for (const char* dir : {"inferencex/configs", "inferencex/configs/deprecated"}) {
    for (const auto& e : std::filesystem::directory_iterator(test::Fixture(dir))) {
      if (e.path().extension() == ".yaml") files.push_back(e.path().string());
    }
  }
  files.push_back(test::Fixture("inferencex/perf-changelog.yaml"));
  return files;
}

TEST(Cli, VersionAndHelp) {
  auto r = RunInfermark({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("infermark ", 0), 0u) << r.out;
  r = RunInfermark({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* cmd : {"validate", "matrix", "changelog"}) EXPECT_NE(r.out.find(cmd), std::string::npos) << cmd;
  r = RunInfermark({"matrix", "full-sweep", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--max-conc"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
  EXPECT_EQ(RunInfermark({}).exit_code, 2);
  EXPECT_EQ(RunInfermark({"no-such-command"}).exit_code, 2);
  EXPECT_EQ(RunInfermark({"matrix", "full-sweep", "--max-conc", "lots"}).exit_code, 2);
  EXPECT_EQ(RunInfermark({"matrix", "full-sweep", "--no-evals", "--evals-only"}).exit_code, 2);
  EXPECT_EQ(RunInfermark({"matrix", "full-sweep", "--seq-lens", "2k2k"}).exit_code, 2);
  const auto r = RunInfermark({"matrix", "full-sweep", "--config-files", "/nonexistent.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent.yaml: cannot open"), std::string::npos) << r.err;
}

TEST(Cli, ValidateReportsExactlyTheTenInvalidFixtureEntries) {
  std::vector<std::string> args = {"validate"};
  for (auto& f : AllFixtureConfigs()) args.push_back(f);
  const auto r = RunInfermark(args);
  EXPECT_EQ(r.exit_code, 2);
  std::size_t lines = 0, pos = 0;
  while ((pos = r.err.find("disagg=true requires kv-p2p-transfer", pos)) != std::string::npos) ++lines, ++pos;
  EXPECT_EQ(lines, 10u) << r.err;
  for (const char* key : {"gptoss-fp4-gb200-dynamo-trt", "minimaxm2.5-fp8-mi355x-vllm-disagg",
                          "minimaxm2.5-fp8-gb300-dynamo-vllm", "minimaxm2.5-fp4-b300-dynamo-vllm"}) {
    EXPECT_NE(r.err.find(std::string("entry '") + key + "' field 'disagg'"), std::string::npos) << key;
  }
  EXPECT_NE(r.err.find("validate: 10 problems in 10 entries"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvidia-gptoss-master.yaml:156:11:"), std::string::npos) << r.err;
}

TEST(Cli, ValidateMergedFlagsCrossFileDuplicates) {
  const auto r =
      RunInfermark({"validate", "--merged", test::Fixture("inferencex/configs/deprecated/amd-1k1k-master.yaml"),
                    test::Fixture("inferencex/configs/deprecated/amd-minimaxm3-8k1k-master.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("duplicate configuration key"), std::string::npos);
}

TEST(Cli, ValidateTheProjectCatalog) {
  const auto r = RunInfermark({"validate"}, test::SourcePath(""));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("validate: ok"), std::string::npos);
}

TEST(Cli, BadYamlNeverCrashes) {
  const auto dir = std::filesystem::temp_directory_path() / ("infermark-cli-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"truncated.yaml", "a:\n  image: [x,\n"},
      {"types.yaml", "k:\n  image: 1\n  multinode: maybe\n  scenarios: []\n"},
      {"huge.yaml",
       "k:\n  image: i\n  model: m\n  model-prefix: p\n  precision: fp8\n  framework: vllm\n"
       "  runner: r\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 1\n      osl: 1\n"
       "      search-space:\n      - { tp: 99999999999999999999999, conc-list: [1] }\n"},
      {"deep.yaml", std::string(5000, '[')},
      {"binary.yaml", std::string("\x00\x01\xff\xfe", 4)},
      {"bomb.yaml",
       "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
       "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
       "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"},
  };
  for (const auto& [name, text] : cases) {
    std::ofstream(dir / name, std::ios::binary) << text;
    const auto r = RunInfermark({"validate", (dir / name).string()});
    EXPECT_EQ(r.exit_code, 2) << name << "\n" << r.err;
    EXPECT_NE(r.err.find((dir / name).string() + ":"), std::string::npos) << name << "\n" << r.err;
  }
  std::filesystem::remove_all(dir);
}

TEST(Cli, MatrixJsonIsTheExactReferenceText) {
  const auto r =
      RunInfermark({"matrix", "full-sweep", "--single-node", "--framework", "vllm", "--model-prefix", "minimaxm3",
                    "--config-files", test::Fixture("golden-matrix/seed-minimaxm3-fp4-mi355x-vllm.yaml"),
                    "--runner-config", test::Fixture("inferencex/configs/runners.yaml"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out).size(), 30u);
  EXPECT_EQ(r.out.substr(0, 18), "[{\"image\": \"vllm/v");
}

TEST(Cli, MatrixDefaultsToTheProjectCatalogAndFormats) {
  const std::string root = test::SourcePath("");
  auto r =
      RunInfermark({"matrix", "test-config", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--format", "table"}, root);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("30 rows, 2 with evals"), std::string::npos) << r.out;
  r = RunInfermark({"matrix", "test-config", "--config-keys", "minimaxm3-fp4-mi355x-vllm", "--format", "names",
                    "--runner-name", "mi355x-local_00", "--seq-lens", "1k1k"},
                   root);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "minimaxm3_1k1k_fp4_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc1_mi355x-local_00");
  // The glob takes the founding recipe's 30 fixed-length rows, its agentic entry's 8 and its
  // disaggregated entry's 2 (1P1D and 2P1D, each holding its concurrency list).
  r = RunInfermark({"matrix", "test-config", "--config-keys", "minimaxm3*", "--format", "github"}, root);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Json::parse(r.out)["include"].size(), 40u);
}

TEST(Cli, GithubFormatRefusesTheFullCatalog) {
  const auto r = RunInfermark({"matrix", "full-sweep", "--config-files", "configs/amd-master.yaml",
                               "configs/nvidia-master.yaml", "--format", "github"},
                              test::Fixture("inferencex"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--shard K/8"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  const auto shard = RunInfermark({"matrix", "full-sweep", "--config-files", "configs/amd-master.yaml",
                                   "configs/nvidia-master.yaml", "--format", "github", "--shard", "8/8"},
                                  test::Fixture("inferencex"));
  ASSERT_EQ(shard.exit_code, 0) << shard.err;
  EXPECT_EQ(Json::parse(shard.out)["include"].size(), 228u);  // 1,820 rows in 8 shards of 227 or 228
}

}  // namespace
}  // namespace infermark
