// The processing settings a matrix row implies: a multi-node row's worker blocks become
// IS_MULTINODE and the PREFILL_*/DECODE_* set InferenceX's multi-node template exports, so its
// client results process as multi-node records.
#include <gtest/gtest.h>

#include "results/process_result.hpp"
#include "results/process_settings.hpp"

namespace infermark::results {
namespace {

Json MultiNodeRow() {
  return Json::parse(R"({"model": "amd/MiniMax-M3-MXFP4", "model-prefix": "minimaxm3", "precision": "fp4",
    "framework": "vllm-disagg", "runner": "mi355x-disagg", "isl": 8192, "osl": 1024, "spec-decoding": "none",
    "image": "img", "exp-name": "minimaxm3_8k1k", "disagg": true, "kv-p2p-transfer": "moriio",
    "router": {"name": "vllm-router", "version": "0.1.14"}, "conc": [4, 8],
    "prefill": {"num-worker": 2, "tp": 4, "ep": 1, "dp-attn": false, "pp": 1, "dcp-size": 1, "pcp-size": 1},
    "decode": {"num-worker": 1, "tp": 8, "ep": 8, "dp-attn": true, "pp": 1, "dcp-size": 1, "pcp-size": 1}})");
}

TEST(MatrixRowSettings, AMultiNodeRowGivesItsWorkerPools) {
  const ProcessSettings s = SettingsFromMatrixRow(MultiNodeRow());
  EXPECT_EQ(s.Get("IS_MULTINODE"), "true");
  EXPECT_EQ(s.Get("PREFILL_GPUS"), "8");
  EXPECT_EQ(s.Get("DECODE_GPUS"), "8");
  EXPECT_EQ(s.Get("PREFILL_NUM_WORKERS"), "2");
  EXPECT_EQ(s.Get("PREFILL_TP"), "4");
  EXPECT_EQ(s.Get("DECODE_EP"), "8");
  EXPECT_EQ(s.Get("DECODE_DP_ATTN"), "true");
  EXPECT_EQ(s.Get("KV_P2P_TRANSFER"), "moriio");
  EXPECT_FALSE(s.Get("TP").has_value());
  // Processed as InferenceX processes multi-node results: total per GPU of both pools, output
  // per decode GPU, input per prefill GPU.
  const Json client = Json::parse(R"({"total_token_throughput": 1600.0, "output_throughput": 400.0,
    "max_concurrency": 4, "model_id": "amd/MiniMax-M3-MXFP4", "median_tpot_ms": 10.0})");
  ProcessSettings all = s;
  all.values["RUNNER_TYPE"] = "mi355x-disagg";
  ProcessOptions o;
  o.power_fields = false;
  const Json agg = ProcessClientResult(client, all, "r.json", o);
  EXPECT_EQ(agg["is_multinode"], true);
  EXPECT_EQ(agg["num_prefill_gpu"], 8);
  EXPECT_EQ(agg["num_decode_gpu"], 8);
  EXPECT_DOUBLE_EQ(agg["tput_per_gpu"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(agg["output_tput_per_gpu"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(agg["input_tput_per_gpu"].get<double>(), 150.0);
  EXPECT_EQ(agg["router"]["name"], "vllm-router");
}

TEST(MatrixRowSettings, ASingleNodeRowHasNoMultiNodeSettings) {
  const ProcessSettings s =
      SettingsFromMatrixRow(Json::parse(R"({"runner": "mi355x", "tp": 8, "ep": 1, "dp-attn": false})"));
  EXPECT_EQ(s.Get("TP"), "8");
  EXPECT_FALSE(s.Get("IS_MULTINODE").has_value());
  EXPECT_FALSE(s.Get("PREFILL_GPUS").has_value());
}

}  // namespace
}  // namespace infermark::results
