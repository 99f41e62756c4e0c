// Disaggregated prediction: the KV transfer time from the hardware's link figures and the
// backend's efficiency, every worker of both pools on one clock (every token arrives, TTFT is the
// aggregated prefill plus the transfer), the router's spread, and a worker block the hardware
// cannot hold refused with the role named.
#include "sim/disagg_target.hpp"

#include <gtest/gtest.h>

#include "core/diagnostic.hpp"
#include "perfmodel/disaggregation.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/project_engine_data.hpp"
#include "sim/disagg_run.hpp"
#include "sim/predict.hpp"
#include "test_paths.hpp"

namespace infermark::sim {
namespace {

perfmodel::DeploymentOptions Role(const std::string& hardware, int tp) {
  perfmodel::DeploymentOptions o;
  o.model = "minimax-m3";
  o.hardware = hardware;
  o.precision = "fp4";
  o.tp = tp;
  o.prefix_caching = false;
  return o;
}

perfmodel::DisaggOptions Disagg(const std::string& hardware, int prefill_workers, int prefill_tp, int decode_workers,
                                int decode_tp, const std::string& backend = "nixl") {
  perfmodel::DisaggOptions o;
  o.prefill = Role(hardware, prefill_tp);
  o.prefill_workers = prefill_workers;
  o.decode = Role(hardware, decode_tp);
  o.decode_workers = decode_workers;
  o.kv_transfer = backend;
  return o;
}

TEST(Disaggregation, TransferTimeComesFromTheLinkFigures) {
  const perfmodel::DisaggDeployment d =
      perfmodel::ResolveDisaggDeployment(test::ProjectEngineData(), Disagg("mi355x", 1, 4, 1, 4));
  // MI355X nodes: one 400 Gb/s NIC per GPU, 50 GB/s per direction; nixl's prior efficiency 0.85.
  EXPECT_EQ(d.link.kind, "rdma-400g");
  EXPECT_DOUBLE_EQ(d.link.bytes_per_s, 50e9);
  EXPECT_DOUBLE_EQ(d.link.latency_s, 5e-6);
  EXPECT_EQ(d.NumGpus(), 8);
  const double per_token = d.prefill.memory.kv_bytes_per_token;
  ASSERT_GT(per_token, 0);
  EXPECT_DOUBLE_EQ(d.WireSeconds(8192), 8192 * per_token / (50e9 * 0.85));
  EXPECT_DOUBLE_EQ(d.TransferSeconds(8192), d.WireSeconds(8192) + 5e-6 + 0.5e-3);
  // Twice the prompt, twice the wire time.
  EXPECT_DOUBLE_EQ(d.WireSeconds(16384), 2 * d.WireSeconds(8192));
  // Both roles inside one NVL72 rack move the KV over NVLink (900 GB/s per direction).
  perfmodel::DisaggOptions gb = Disagg("gb200", 1, 4, 1, 4, "mooncake");
  gb.prefill.model = gb.decode.model = "llama-3.3-70b";
  gb.prefill.precision = gb.decode.precision = "fp8";
  const perfmodel::DisaggDeployment nvl = perfmodel::ResolveDisaggDeployment(test::ProjectEngineData(), gb);
  EXPECT_EQ(nvl.link.kind, "nvlink");
  EXPECT_DOUBLE_EQ(nvl.link.bytes_per_s, 900e9);
  EXPECT_DOUBLE_EQ(nvl.backend.efficiency, 0.80);
}

TEST(Disaggregation, EveryTokenArrivesAndTtftIsThePrefillPlusTheTransfer) {
  const perfmodel::DisaggDeployment d =
      perfmodel::ResolveDisaggDeployment(test::ProjectEngineData(), Disagg("mi355x", 1, 4, 1, 4));
  // Fixed-length prompts (range ratio 1) at concurrency 1: the prefill worker runs each prompt
  // alone, exactly as the aggregated TP4 deployment would.
  const loadgen::BenchConfig client = ReferenceClient("minimax-m3", 8192, 64, 1, 6, 0, 1.0);
  VirtualTargetOptions o;
  o.chunk_times = true;
  const DisaggPrediction p = PredictDisagg(d, client, o);
  ASSERT_TRUE(p.result.verdict.valid);
  ASSERT_EQ(p.result.records.size(), 6u);
  for (const auto& r : p.result.records) {
    ASSERT_TRUE(r.success) << r.error;
    EXPECT_EQ(r.server_output_tokens, 64);
    EXPECT_EQ(r.chunk_tokens.back(), 64u);
  }
  EXPECT_EQ(p.transfers.transfers, 6);
  EXPECT_DOUBLE_EQ(p.transfers.wait_seconds, 0.0);
  const Prediction agg = Predict(d.prefill, client, o);
  const double transfer_ms = d.TransferSeconds(8192) * 1e3;
  EXPECT_NEAR(p.result.metrics.ttft.median, agg.result.metrics.ttft.median + transfer_ms, 1e-5);
  // Figures per GPU over both pools.
  EXPECT_DOUBLE_EQ(p.figures.tput_per_gpu, p.result.metrics.total_token_throughput / 8);
  EXPECT_EQ(p.result.result["infermark"]["server"]["kv_transfer"]["transfers"], 6);
}

TEST(Disaggregation, TheRouterSpreadsRequestsOverEveryWorker) {
  const perfmodel::DisaggDeployment d =
      perfmodel::ResolveDisaggDeployment(test::ProjectEngineData(), Disagg("mi355x", 2, 4, 1, 8));
  for (const RouterPolicy policy : {RouterPolicy::kRoundRobin, RouterPolicy::kLeastLoaded}) {
    const loadgen::BenchConfig client = ReferenceClient("minimax-m3", 1024, 128, 16, 64, 0);
    const DisaggPrediction p = PredictDisagg(d, client, {}, policy);
    ASSERT_TRUE(p.result.verdict.valid);
    EXPECT_EQ(p.result.metrics.completed, 64u);
    const Json& server = p.result.result["infermark"]["server"];
    ASSERT_EQ(server["prefill_workers"].size(), 2u);
    for (const auto& w : server["prefill_workers"]) EXPECT_GT(w["passes"].get<int>(), 0);
    EXPECT_LE(server["decode_workers"][0]["max_running"].get<int>(), 16);
  }
  EXPECT_EQ(ParseRouterPolicy("least-loaded"), RouterPolicy::kLeastLoaded);
  EXPECT_EQ(ParseRouterPolicy("kv-aware"), RouterPolicy::kKvAware);
  EXPECT_THROW(ParseRouterPolicy("cache-aware"), InputError);
}

// InferenceX's aggregated multi-node rows have no decode workers (D = 0): the prefill workers
// serve whole requests, nothing crosses the link, and one worker is the aggregated deployment.
TEST(Disaggregation, NoDecodeWorkersIsTheAggregatedDeployment) {
  const perfmodel::DisaggDeployment d =
      perfmodel::ResolveDisaggDeployment(test::ProjectEngineData(), Disagg("mi355x", 1, 4, 0, 4));
  EXPECT_EQ(d.NumGpus(), 4);
  const loadgen::BenchConfig client = ReferenceClient("minimax-m3", 1024, 128, 8, 40, 0);
  const DisaggPrediction p = PredictDisagg(d, client);
  ASSERT_TRUE(p.result.verdict.valid);
  EXPECT_EQ(p.transfers.transfers, 0);
  const Prediction agg = Predict(d.prefill, client);
  EXPECT_DOUBLE_EQ(p.result.metrics.ttft.median, agg.result.metrics.ttft.median);
  EXPECT_DOUBLE_EQ(p.result.metrics.tpot.median, agg.result.metrics.tpot.median);
  EXPECT_DOUBLE_EQ(p.figures.tput_per_gpu, agg.figures.tput_per_gpu);
}

TEST(Disaggregation, AWorkerTheHardwareCannotHoldIsRefusedNamingItsRole) {
  try {
    perfmodel::ResolveDisaggDeployment(test::ProjectEngineData(), Disagg("mi355x", 1, 4, 1, 12));
    FAIL() << "a TP12 decode worker on 8-GPU domains (not whole domains) was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("decode"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--tp"), std::string::npos) << e.what();
  }
  EXPECT_THROW(perfmodel::ResolveDisaggDeployment(test::ProjectEngineData(), Disagg("mi355x", 0, 4, 1, 4)), InputError);
  EXPECT_THROW(
      perfmodel::ResolveDisaggDeployment(test::ProjectEngineData(), Disagg("mi355x", 1, 4, 1, 4, "carrier-pigeon")),
      InputError);
}

}  // namespace
}  // namespace infermark::sim
