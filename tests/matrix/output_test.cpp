#include <gtest/gtest.h>

#include "core/diagnostic.hpp"
#include "matrix/matrix_output.hpp"
#include "matrix/result_filename.hpp"

namespace infermark::matrix {
namespace {

Json SingleNodeRow(int conc) {
  return Json::parse(R"({"image": "img", "model": "amd/MiniMax-M3-MXFP4", "model-prefix": "minimaxm3",
    "precision": "fp4", "framework": "vllm", "runner": "mi355x", "isl": 8192, "osl": 1024, "tp": 2, "pp": 1,
    "dcp-size": 1, "pcp-size": 1, "conc": )" +
                     std::to_string(conc) + R"(, "max-model-len": 9472, "ep": 1,
    "dp-attn": false, "spec-decoding": "none", "exp-name": "minimaxm3_8k1k", "disagg": false, "run-eval": false})");
}

TEST(ResultFilename, SingleNodeAsTheBenchmarkTemplateBuildsIt) {
  EXPECT_EQ(ResultFilename(SingleNodeRow(64), "mi355x-amds_03"),
            "minimaxm3_8k1k_fp4_vllm_tp2-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc64_mi355x-amds_03");
  Json row = SingleNodeRow(64);
  row["recipe-fingerprint"] = "039c177303ee6f3eff1310accaee3928c70cecd4397acb5b127b12314f1eeb60";
  EXPECT_EQ(ResultFilename(row, "h"),
            "minimaxm3_8k1k_fp4_vllm_tp2-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc64_h"
            "_recipe-039c177303ee6f3e");
}

TEST(ResultFilename, MultiNodeNamesBothPoolsAndJoinsConcurrencies) {
  const Json row = Json::parse(R"({"exp-name": "minimaxm3_8k1k", "precision": "fp4", "framework": "vllm-disagg",
    "spec-decoding": "none", "disagg": true, "conc": [1, 2, 4],
    "prefill": {"num-worker": 1, "tp": 4, "ep": 1, "dp-attn": false, "pp": 1, "dcp-size": 1, "pcp-size": 1},
    "decode": {"num-worker": 2, "tp": 8, "ep": 8, "dp-attn": true, "pp": 1, "dcp-size": 1, "pcp-size": 1}})");
  EXPECT_EQ(ResultFilename(row, "mi355x-amds_06"),
            "minimaxm3_8k1k_fp4_vllm-disagg_prefill-tp4-pp1-dcp1-pcp1-ep1-dpfalse-nw1_decode-tp8-pp1-dcp1-pcp1-ep8-"
            "dptrue-nw2_disagg-true_spec-none_conc1x2x4_mi355x-amds_06");
}

TEST(ResultFilename, AgenticRowsUseTheirOwnExpName) {
  const Json row = Json::parse(R"({"exp-name": "minimaxm3_tp4_conc8_kvnone", "precision": "fp4", "framework": "vllm",
    "tp": 4, "pp": 1, "dcp-size": 1, "pcp-size": 1, "ep": 1, "dp-attn": false, "spec-decoding": "none", "conc": 8,
    "scenario-type": "agentic-coding"})");
  EXPECT_EQ(ResultFilename(row, "r_1"),
            "minimaxm3_tp4_conc8_kvnone_fp4_vllm_tp4-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc8_r_1");
}

TEST(ResultFilename, MissingFieldIsAClearError) {
  Json row = SingleNodeRow(1);
  row.erase("tp");
  EXPECT_THROW(ResultFilename(row, "x"), std::invalid_argument);
}

TEST(GithubFormat, WrapsRowsInInclude) {
  EXPECT_EQ(FormatGithub({Json::parse(R"({"a": 1})")}), "{\"include\": [{\"a\": 1}]}\n");
}

TEST(GithubFormat, RefusesMoreThan256RowsAndSuggestsShards) {
  std::vector<Json> rows(300, SingleNodeRow(1));
  try {
    FormatGithub(rows);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--shard K/2"), std::string::npos) << e.what();
  }
  const auto first = SelectShard(rows, ParseShard("1/2"));
  const auto second = SelectShard(rows, ParseShard("2/2"));
  EXPECT_EQ(first.size() + second.size(), rows.size());
  EXPECT_NO_THROW(FormatGithub(first));
}

TEST(GithubOutputs, SplitsSingleAndMultiNodeRowsIntoTwoMatrices) {
  Json multi = Json::parse(R"({"exp-name": "m", "conc": [1], "prefill": {"tp": 4}, "decode": {"tp": 4}})");
  const std::string out = FormatGithubOutputs({SingleNodeRow(1), multi, SingleNodeRow(4)});
  const std::string single_matrix = FormatGithub({SingleNodeRow(1), SingleNodeRow(4)});
  EXPECT_EQ(out, "single-node=" + single_matrix + "single-node-jobs=2\nmulti-node=" + FormatGithub({multi}) +
                     "multi-node-jobs=1\n");
  EXPECT_EQ(FormatGithubOutputs({}),
            "single-node={\"include\": []}\nsingle-node-jobs=0\nmulti-node={\"include\": []}\n"
            "multi-node-jobs=0\n");
}

TEST(GithubOutputs, RefusesAMatrixOver256RowsNamingTheShardsThatFit) {
  std::vector<Json> rows(300, SingleNodeRow(1));
  rows.push_back(Json::parse(R"({"exp-name": "m", "conc": [1], "prefill": {}, "decode": {}})"));
  try {
    FormatGithubOutputs(rows);
    FAIL() << "301 rows in one matrix were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(e.diagnostics()[0].rule.find("the single-node matrix has 300 rows"), std::string::npos);
    EXPECT_NE(e.diagnostics()[0].rule.find("--shard K/2"), std::string::npos) << e.diagnostics()[0].rule;
  }
  EXPECT_NO_THROW(FormatGithubOutputs(SelectShard(rows, ParseShard("1/2"))));
}

TEST(ChangelogRows, FlattenBucketsThenEvalLists) {
  const Json doc = Json::parse(R"({"single_node": {"1k1k": [{"r": 1}], "8k1k": [{"r": 2}]},
    "multi_node": {"8k1k": [{"r": 3}]}, "evals": [{"r": 4}], "agentic_evals": [], "multinode_evals": [{"r": 5}],
    "changelog_metadata": {"base_ref": "a"}})");
  std::vector<int> order;
  for (const Json& row : ChangelogRows(doc)) order.push_back(row["r"].get<int>());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
}

TEST(Shard, SplitsContiguouslyAndRejectsNonsense) {
  std::vector<Json> rows;
  for (int i = 0; i < 10; ++i) rows.push_back(SingleNodeRow(i));
  std::vector<std::size_t> sizes;
  for (std::size_t k = 1; k <= 3; ++k) sizes.push_back(SelectShard(rows, ParseShard(std::to_string(k) + "/3")).size());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{3, 3, 4}));
  EXPECT_EQ(SelectShard(rows, ParseShard("3/3")).front()["conc"], 6);
  for (const char* bad : {"0/3", "4/3", "1/0", "a/b", "1", "1/2/3", ""}) {
    EXPECT_THROW(ParseShard(bad), InputError) << bad;
  }
}

TEST(TableFormat, AlignsColumnsAndCountsEvals) {
  Json eval = SingleNodeRow(256);
  eval["run-eval"] = true;
  const std::string table = FormatTable({SingleNodeRow(1), eval});
  EXPECT_NE(table.find("parallelism"), std::string::npos);
  EXPECT_NE(table.find("TP2"), std::string::npos);
  EXPECT_NE(table.find("2 rows, 1 with evals"), std::string::npos);
  // Every data line has the same prefix width up to the exp-name column.
  const auto line2 = table.find('\n') + 1;
  const auto line3 = table.find('\n', line2) + 1;
  EXPECT_EQ(table.find("minimaxm3_8k1k", line2) - line2, table.find("minimaxm3_8k1k", line3) - line3);
}

}  // namespace
}  // namespace infermark::matrix
