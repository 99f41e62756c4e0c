// The founding model's multi-node recipe as a user meets it: the project catalog still validates,
// the recipe expands into one 1P1D and one 2P1D row in InferenceX's multi-node row format, its
// launcher is where InferenceX's MI355X launcher looks (benchmarks/multi_node/<prefix>_<precision>_
// mi355x_<framework>.sh), reads the multi-node contract and refuses to run outside a Slurm
// allocation, and the site file maps its runner label.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/file_io.hpp"
#include "core/json_text.hpp"
#include "run_binary.hpp"

namespace infermark {
namespace {

using test::RunInfermark;

constexpr const char* kKey = "minimaxm3-fp4-mi355x-vllm-disagg";

TEST(MultiNodeRecipe, ValidatesAndExpandsToOnePrefillAndTwoPrefillRows) {
  const std::string root = test::SourcePath("");
  const auto valid = RunInfermark({"validate"}, root);
  ASSERT_EQ(valid.exit_code, 0) << valid.err;
  EXPECT_NE(valid.out.find("validate: ok"), std::string::npos);

  const auto r = RunInfermark({"matrix", "test-config", "--config-keys", kKey, "--format", "json"}, root);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json rows = Json::parse(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  const std::vector<int> concs = {1, 4, 16, 64, 256};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Json& row = rows[i];
    EXPECT_EQ(row["runner"], "cluster:mi355x-disagg-local");
    EXPECT_EQ(row["framework"], "vllm-disagg");
    EXPECT_EQ(row["disagg"], true);
    EXPECT_EQ(row["kv-p2p-transfer"], "moriio");
    EXPECT_EQ(row["router"]["name"], "vllm-router");
    EXPECT_EQ(row["isl"], 8192);
    EXPECT_EQ(row["conc"].get<std::vector<int>>(), concs);
    EXPECT_EQ(row["prefill"]["num-worker"], static_cast<int>(i + 1));  // 1P1D, then 2P1D
    EXPECT_EQ(row["prefill"]["tp"], 4);
    EXPECT_EQ(row["decode"]["num-worker"], 1);
    EXPECT_EQ(row["decode"]["tp"], 4);
    EXPECT_EQ(row["prefill"]["additional-settings"][0], "PREFILL_NODES=1");
    EXPECT_EQ(row["decode"]["additional-settings"][0], "DECODE_NODES=1");
  }
  // Only the 8k/1k rows' highest eligible concurrency per topology is marked for evals.
  EXPECT_EQ(rows[0]["eval-conc"], 256);
}

TEST(MultiNodeRecipe, LauncherAndSiteMapping) {
  const std::string launcher = test::SourcePath("recipes/benchmarks/multi_node/minimaxm3_fp4_mi355x_vllm-disagg.sh");
  ASSERT_TRUE(std::filesystem::is_regular_file(launcher));
  const std::string text = ReadFile(launcher);
  // The multi-node contract it reads.
  for (const char* var : {"CONC_LIST", "PREFILL_NUM_WORKERS", "PREFILL_TP", "DECODE_NUM_WORKERS", "DECODE_TP",
                          "PREFILL_NODES", "DECODE_NODES", "KV_P2P_TRANSFER", "RESULT_FILENAME"}) {
    EXPECT_NE(text.find(var), std::string::npos) << var;
  }
  const auto syntax = RunCapture({"bash", "-n", launcher});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
  // Outside an allocation it says what it needs and fails (after the contract check passes).
  const auto outside = RunCapture({"env",
                                   "-u",
                                   "SLURM_JOB_ID",
                                   "MODEL=m",
                                   "CONC_LIST=1 4",
                                   "ISL=8192",
                                   "OSL=1024",
                                   "MAX_MODEL_LEN=9472",
                                   "RANDOM_RANGE_RATIO=0.8",
                                   "RESULT_FILENAME=r",
                                   "PREFILL_NUM_WORKERS=1",
                                   "PREFILL_TP=4",
                                   "PREFILL_EP=1",
                                   "PREFILL_DP_ATTN=false",
                                   "DECODE_NUM_WORKERS=1",
                                   "DECODE_TP=4",
                                   "DECODE_EP=1",
                                   "DECODE_DP_ATTN=false",
                                   "PREFILL_NODES=1",
                                   "DECODE_NODES=1",
                                   "KV_P2P_TRANSFER=moriio",
                                   "bash",
                                   launcher});
  EXPECT_EQ(outside.exit_code, 1);
  EXPECT_NE(outside.err.find("needs a Slurm allocation"), std::string::npos) << outside.err;
  const auto missing = RunCapture({"env", "-u", "CONC_LIST", "bash", launcher});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("CONC_LIST"), std::string::npos) << missing.err;

  const std::string site = ReadFile(test::SourcePath("infermark.yaml"));
  EXPECT_NE(site.find("\"cluster:mi355x-disagg-local\": {executor: local, engine: {hardware: mi355x}}"),
            std::string::npos);
}

}  // namespace
}  // namespace infermark
