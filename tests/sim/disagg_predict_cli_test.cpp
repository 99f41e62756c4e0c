// `infermark predict` on multi-node rows, black box: every worker of a row in one simulation,
// one result file and one stored point per concurrency of its list (stored through the
// multi-node processing), a row whose worker block the hardware cannot hold failing with the
// reason while the sweep goes on, and agentic multi-node rows replayed on their workers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "run_binary.hpp"

namespace infermark::sim {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(PredictDisaggCli, OneResultPerConcurrencyOfAMultiNodeRow) {
  const fs::path dir = TempDir("predict_disagg");
  const auto r = test::RunInfermark(
      {"predict", "--config-keys", "dsr1-fp8-mi355x-sglang-disagg", "--config-files",
       test::SourcePath("tests/fixtures/inferencex/configs/amd-master.yaml"), "--site",
       test::SourcePath("infermark.yaml"), "--conc", "4,8,16", "--result-dir", dir.string(), "--database",
       (dir / "store.db").string(), "--runner-name", "mi355x-disagg_00", "--format", "json"},
      test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out);
  // Two worker layouts of the recipe hold 4, 8 and 16 in their lists: three points each.
  ASSERT_EQ(rows.size(), 6u) << r.out;
  int tp4_prefill = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row["status"], "done") << row["reason"];
    const std::string stem = row["result_filename"];
    const fs::path file = dir / "predicted" / (stem + ".json");
    ASSERT_TRUE(fs::exists(file)) << file;
    const auto result = nlohmann::json::parse(std::ifstream(file));
    const int conc = result["max_concurrency"];
    EXPECT_NE(stem.find("_conc" + std::to_string(conc) + "_gpus_"), std::string::npos) << stem;
    const auto& server = result["infermark"]["server"];
    EXPECT_EQ(server["kv_transfer"]["backend"], "mori");
    EXPECT_EQ(server["kv_transfer"]["link"], "rdma-400g");
    EXPECT_GT(server["kv_transfer"]["transfers"].get<int>(), 0);
    // 1P TP4 + 1D TP8, or 1P TP8 + 2D TP8: the GPUs of both pools name the file.
    if (stem.find("_gpus_12_ctx_4_gen_8") != std::string::npos) {
      ++tp4_prefill;
    } else {
      EXPECT_NE(stem.find("_gpus_24_ctx_8_gen_16"), std::string::npos) << stem;
    }
    EXPECT_GT(row["tput_per_gpu"].get<double>(), 0);
    EXPECT_GT(row["median_ttft"].get<double>(), 0);
  }
  EXPECT_EQ(tp4_prefill, 3);
  // Stored through InferenceX's multi-node processing: both pools' GPUs, per-GPU over all of them.
  const auto csv = test::RunInfermark({"results", "export", "--csv", "--db", (dir / "store.db").string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, line;
  std::getline(lines, header);
  EXPECT_NE(header.find("is_multinode"), std::string::npos) << header;
  EXPECT_NE(header.find("num_prefill_gpu"), std::string::npos) << header;
  int stored = 0, one_p_one_d = 0;
  while (std::getline(lines, line)) {
    ++stored;
    if (line.find("disagg 1P1D tp4/tp8") != std::string::npos) ++one_p_one_d;
  }
  EXPECT_EQ(stored, 6);
  EXPECT_EQ(one_p_one_d, 3);
  fs::remove_all(dir);
}

TEST(PredictDisaggCli, AWorkerTheHardwareCannotHoldFailsItsRowAndTheSweepGoesOn) {
  const fs::path dir = TempDir("predict_disagg_bad");
  const fs::path config = dir / "master.yaml";
  std::ofstream(config) << R"(dsr1-fp8-mi355x-sglang-disagg:
  image: rocm/sgl-dev:sglang-0.5.9-rocm720-mi35x-mori-0227-2
  model: deepseek-ai/DeepSeek-R1-0528
  model-prefix: dsr1
  runner: mi355x-disagg
  precision: fp8
  framework: sglang-disagg
  router: { name: sglang-router, version: "0.3.2" }
  kv-p2p-transfer: mori
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 1024
      osl: 1024
      search-space:
      - conc-list: [ 2 ]
        prefill: { num-worker: 1, tp: 8, ep: 1, dp-attn: false }
        decode: { num-worker: 1, tp: 12, ep: 1, dp-attn: false }
      - conc-list: [ 2, 4 ]
        prefill: { num-worker: 1, tp: 4, ep: 1, dp-attn: false }
        decode: { num-worker: 1, tp: 4, ep: 1, dp-attn: false }
)";
  fs::copy_file(test::SourcePath("tests/fixtures/inferencex/configs/runners.yaml"), dir / "runners.yaml");
  const auto r = test::RunInfermark(
      {"predict", "--config-keys", "dsr1-fp8-mi355x-sglang-disagg", "--config-files", config.string(), "--site",
       test::SourcePath("infermark.yaml"), "--result-dir", dir.string(), "--no-store", "--format", "json"},
      test::SourcePath(""));
  EXPECT_NE(r.exit_code, 0);
  const auto rows = nlohmann::json::parse(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  int failed = 0, done = 0;
  for (const auto& row : rows) {
    if (row["status"] == "failed") {
      ++failed;
      const std::string reason = row["reason"];
      EXPECT_NE(reason.find("decode worker cannot be deployed"), std::string::npos) << reason;
      EXPECT_NE(reason.find("--tp"), std::string::npos) << reason;
    } else {
      EXPECT_EQ(row["status"], "done") << row["reason"];
      ++done;
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(done, 2);
  fs::remove_all(dir);
}

// InferenceX's agentic multi-node rows: one aggregated worker (no decode workers) is replayed
// against that worker's deployment, a disaggregated row against every worker of both pools, its
// aggregate's per-GPU throughput over the GPUs of both.
TEST(PredictDisaggCli, AgenticMultiNodeRowsAreReplayedOnTheirWorkers) {
  const fs::path dir = TempDir("predict_disagg_agentic");
  const auto r = test::RunInfermark({"predict", "--config-keys", "minimaxm3-fp4-gb200-dynamo-vllm-agentic-agg-mtp",
                                     "minimaxm3-fp4-gb200-dynamo-vllm-agentic-disagg-mtp", "--config-files",
                                     test::SourcePath("tests/fixtures/inferencex/configs/nvidia-master.yaml"), "--site",
                                     test::SourcePath("infermark.yaml"), "--conc", "1,48", "--result-dir", dir.string(),
                                     "--no-store", "--format", "json"},
                                    test::SourcePath(""));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto rows = nlohmann::json::parse(r.out);
  int aggregated = 0, disaggregated = 0;
  for (const auto& row : rows) {
    const std::string stem = row["result_filename"];
    EXPECT_EQ(row["status"], "done") << stem << ": " << row["reason"];
    EXPECT_GT(row["tput_per_gpu"].get<double>(), 0);
    if (stem.find("_d0x") != std::string::npos) {
      ++aggregated;
      continue;
    }
    // 1P DEP8 + 1D DEP4, conc 48: the aggregate counts the 8 prefill and 4 decode GPUs.
    ++disaggregated;
    const fs::path file = dir / "predicted" / (stem + ".json");
    ASSERT_TRUE(fs::exists(file)) << file;
    const auto agg = nlohmann::json::parse(std::ifstream(file));
    EXPECT_EQ(agg["num_prefill_gpu"], 8);
    EXPECT_EQ(agg["num_decode_gpu"], 4);
    const auto& tput = agg["request_metrics"]["throughput"];
    EXPECT_NEAR(tput["per_gpu"]["total_tput_tps"].get<double>() * 12, tput["total"]["tokens_per_second"].get<double>(),
                1e-3 * tput["total"]["tokens_per_second"].get<double>());
    EXPECT_NEAR(row["tput_per_gpu"].get<double>(), tput["per_gpu"]["total_tput_tps"].get<double>(), 1e-6);
    // Conversations come back to the prefill worker holding their prefix: most prompt tokens hit.
    EXPECT_GT(agg["server_metrics"]["cache"]["gpu_cache_hit_rate"].get<double>(), 0.5);
    // The workers, the router and the link go with the aggregate; the decode worker holding a
    // conversation's earlier turns receives the new KV only.
    const auto& server = agg["infermark"]["server"];
    EXPECT_EQ(server["router"], "kv-aware");
    EXPECT_EQ(server["prefill_workers"].size(), 1u);
    EXPECT_EQ(server["decode_workers"].size(), 1u);
    EXPECT_GT(server["kv_transfer"]["transfers"].get<int>(), 0);
    EXPECT_GT(server["kv_transfer"]["reused_tokens"].get<double>(), server["kv_transfer"]["tokens"].get<double>());
  }
  EXPECT_GE(aggregated, 2) << r.out;
  EXPECT_EQ(disaggregated, 1) << r.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace infermark::sim
