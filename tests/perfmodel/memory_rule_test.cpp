// The KV cache gets what each framework's own memory rule leaves it, of the memory the GPU reports:
// SGLang's mem-fraction-static (its default derived from the GPU and TP, or the recipe's flag),
// vLLM's gpu-memory-utilization less the activation reserve. A deployment InferenceX served
// predicts; one that cannot fit is refused with the rule that refused it.
#include <gtest/gtest.h>

#include "core/diagnostic.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/project_engine_data.hpp"
#include "perfmodel/sglang_memory.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// SGLang's reserve in MiB: 512 + 1.5 per chunked-prefill token + 2 per CUDA-graph batch + 1,024
// per 8 TP ranks, at least 10 GiB above 60 GiB; the fraction rounded to 3 decimals.
TEST(SglangMemory, DefaultFractionFollowsTheGpuAndTp) {
  // B200 (183,359 MiB, over 160 GiB): chunk 16,384, graphs up to 512: 512 + 24,576 + 1,024 + 512.
  EXPECT_DOUBLE_EQ(SglangDefaultMemFractionStatic({183359 * kMiB, 4, false, false}), 0.855);
  // At TP 8 the reserve grows by 512 MiB.
  EXPECT_DOUBLE_EQ(SglangDefaultMemFractionStatic({183359 * kMiB, 8, false, false}), 0.852);
  // H200 (143,771 MiB): chunk 8,192, graphs up to 512 at TP >= 4: 512 + 12,288 + 1,024 + 1,024.
  EXPECT_DOUBLE_EQ(SglangDefaultMemFractionStatic({143771 * kMiB, 8, false, false}), 0.897);
  // H100 (81,559 MiB) at TP 1: graphs up to 256, and the 10 GiB floor does not bind (13,440 MiB).
  EXPECT_DOUBLE_EQ(SglangDefaultMemFractionStatic({81559 * kMiB, 1, false, false}), 0.835);
  // A draft model takes 2 GiB more; attention data-parallel pads by batch x DP size.
  EXPECT_LT(SglangDefaultMemFractionStatic({183359 * kMiB, 4, false, true}), 0.855);
  EXPECT_LT(SglangDefaultMemFractionStatic({183359 * kMiB, 8, true, false}), 0.852);
}

DeploymentOptions Dsr1Fp8B200Tp4() {
  DeploymentOptions o;
  o.model = "deepseek-r1";
  o.hardware = "b200";
  o.framework = "sglang";
  o.precision = "fp8";
  o.tp = 4;
  return o;
}

// InferenceX served DeepSeek-R1 FP8 at TP 4 on B200 with SGLang (dsr1_fp8_b200.sh passes
// --mem-fraction-static 0.95 --kv-cache-dtype fp8_e4m3): 0.95 of 192.3 GB per GPU holds its
// ~168 GB of weights and a KV pool of ~14 GB, whose fp8 latent (61 layers x 576 x 1 B a token,
// the same on every TP rank) holds the recipe's 32 requests of 8k/1k.
TEST(MemoryRule, DeepSeekR1Fp8Tp4OnB200WithTheRecipesFlagPredicts) {
  DeploymentOptions o = Dsr1Fp8B200Tp4();
  o.recipe = "dsr1_fp8_b200";
  const Deployment d = ResolveDeployment(test::ProjectEngineData(), o);
  EXPECT_DOUBLE_EQ(d.memory.memory_fraction, 0.95);
  EXPECT_EQ(d.memory.memory_fraction_source, "recipe dsr1_fp8_b200");
  EXPECT_EQ(d.precision.kv_dtype, "fp8_e4m3");
  EXPECT_DOUBLE_EQ(d.memory.kv_bytes_per_token, 61 * 576 * 1.0);
  EXPECT_NEAR(d.hardware.memory_bytes, 183359 * kMiB, 1);
  EXPECT_NEAR(d.memory.kv_pool_bytes_per_gpu, 0.95 * 183359 * kMiB - d.memory.weight_bytes_per_gpu, 1);
  EXPECT_GT(d.memory.kv_pool_bytes_per_gpu, 10e9);
  // The recipe's TP 4 rows: conc up to 32 of 8k/1k sequences fit their KV at once.
  EXPECT_GT(d.memory.kv_capacity_tokens, 32 * (8192 + 1024));
  // The flags given on the command line are the same deployment.
  DeploymentOptions flag = Dsr1Fp8B200Tp4();
  flag.mem_fraction_static = 0.95;
  flag.kv_cache_dtype = "fp8_e4m3";
  EXPECT_EQ(ResolveDeployment(test::ProjectEngineData(), flag).memory.kv_capacity_tokens, d.memory.kv_capacity_tokens);
}

// The checkpoint's bf16 KV at the recipe's fraction costs twice as much per token: 32 full 8k/1k
// requests would not fit at once. A --kv-cache-dtype given wins over the recipe's.
TEST(MemoryRule, AKvDtypeGivenWinsOverTheRecipes) {
  DeploymentOptions o = Dsr1Fp8B200Tp4();
  o.recipe = "dsr1_fp8_b200";
  o.kv_cache_dtype = "bf16";
  const Deployment d = ResolveDeployment(test::ProjectEngineData(), o);
  EXPECT_EQ(d.precision.kv_dtype, "bf16");
  EXPECT_DOUBLE_EQ(d.memory.memory_fraction, 0.95);
  EXPECT_DOUBLE_EQ(d.memory.kv_bytes_per_token, 61 * 576 * 2.0);
  EXPECT_LT(d.memory.kv_capacity_tokens, 32 * (8192 + 1024));
  // The launcher's flags are SGLang's: served by vLLM the same row keeps vLLM's defaults.
  o.kv_cache_dtype = "auto";
  o.tp = 8;
  o.framework = "vllm";
  const Deployment v = ResolveDeployment(test::ProjectEngineData(), o);
  EXPECT_EQ(v.precision.kv_dtype, "bf16");
  EXPECT_DOUBLE_EQ(v.memory.memory_fraction, 0.9);
  EXPECT_EQ(v.memory.memory_fraction_source, "default");
}

// Without the recipe's flag SGLang keeps its default 0.855 (164 GB), which the weights exceed:
// SGLang itself refuses to start so, and the model says which rule refused it.
TEST(MemoryRule, TheSameDeploymentAtSglangsDefaultIsRefusedNamingTheRule) {
  try {
    ResolveDeployment(test::ProjectEngineData(), Dsr1Fp8B200Tp4());
    FAIL() << "expected a refusal";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("leave no room for the KV cache on b200"), std::string::npos) << what;
    EXPECT_NE(what.find("mem-fraction-static 0.855 (default) of 192.3 GB"), std::string::npos) << what;
    EXPECT_NE(what.find("--mem-fraction-static"), std::string::npos) << what;
  }
}

// Truly impossible: DeepSeek-R1 FP8 (~671 GB of weights) on two B200s, even at a fraction of 1.
TEST(MemoryRule, ADeploymentThatCannotFitAtAnyFractionIsRefused) {
  DeploymentOptions o = Dsr1Fp8B200Tp4();
  o.tp = 2;
  o.mem_fraction_static = 1.0;
  EXPECT_THROW(ResolveDeployment(test::ProjectEngineData(), o), InputError);
  o.framework = "vllm";
  o.mem_fraction_static.reset();
  o.gpu_memory_utilization = 1.0;
  EXPECT_THROW(ResolveDeployment(test::ProjectEngineData(), o), InputError);
}

// vLLM: gpu-memory-utilization of the reported total, less weights and the activation reserve.
TEST(MemoryRule, VllmTakesItsUtilizationOfTheReportedTotalLessActivations) {
  DeploymentOptions o;
  o.model = "llama-3.3-70b";
  o.hardware = "h200";
  o.framework = "vllm";
  o.precision = "fp8";
  o.tp = 1;
  const Deployment d = ResolveDeployment(test::ProjectEngineData(), o);
  EXPECT_DOUBLE_EQ(d.memory.memory_fraction, 0.9);
  EXPECT_NEAR(d.memory.kv_pool_bytes_per_gpu,
              0.9 * 143771 * kMiB - d.memory.weight_bytes_per_gpu - d.framework.scheduler.activation_reserve_bytes, 1);
}

TEST(MemoryRule, MemFractionStaticIsSglangsFlagOnly) {
  DeploymentOptions o = Dsr1Fp8B200Tp4();
  o.tp = 8;
  o.framework = "vllm";
  o.mem_fraction_static = 0.9;
  try {
    ResolveDeployment(test::ProjectEngineData(), o);
    FAIL() << "expected a refusal";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("vllm takes --gpu-memory-utilization"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace infermark::perfmodel
