// The engine's data files load, validate and resolve names; bad files fail with file:line.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/diagnostic.hpp"
#include "perfmodel/deployment.hpp"
#include "perfmodel/engine_data.hpp"
#include "perfmodel/project_engine_data.hpp"
#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

std::string TempFile(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "infermark-engine-test";
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

TEST(EngineData, LoadsEveryCatalog) {
  const EngineData& d = test::ProjectEngineData();
  for (const char* hw : {"h100", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x"})
    EXPECT_EQ(d.FindHardware(hw).name, hw);
  for (const char* m : {"deepseek-r1", "gpt-oss-120b", "llama-3.3-70b", "qwen3-235b-a22b", "kimi-k2", "minimax-m3"})
    EXPECT_EQ(d.FindModel(m).name, m);
  for (const char* f : {"vllm", "sglang", "trt"}) EXPECT_EQ(d.FindFramework(f).name, f);
  EXPECT_EQ(d.FindFramework("trtllm").name, "trt");
  for (const char* p : {"bf16", "fp8", "fp4", "int4"}) EXPECT_EQ(d.quant.precisions.count(p), 1u) << p;
}

TEST(EngineData, ResolvesAliases) {
  const EngineData& d = test::ProjectEngineData();
  EXPECT_EQ(d.FindModel("amd/MiniMax-M3-MXFP4").name, "minimax-m3");
  EXPECT_EQ(d.FindModel("deepseek-ai/DeepSeek-R1-0528").name, "deepseek-r1");
  EXPECT_EQ(d.FindModel("openai/gpt-oss-120b").name, "gpt-oss-120b");
  EXPECT_EQ(d.FindModel("meta-llama/Llama-3.3-70B-Instruct").name, "llama-3.3-70b");
  EXPECT_EQ(d.FindHardware("MI355X").name, "mi355x");
  EXPECT_THROW((void)d.FindModel("no-such-model"), InputError);
  EXPECT_THROW((void)d.FindHardware("tpu"), InputError);
}

TEST(EngineData, DerivedSizesMatchPublishedOnes) {
  for (const auto& m : test::ProjectEngineData().models) {
    const ParamCounts p = CountParams(m);
    if (m.published_total_params > 0) {
      EXPECT_NEAR(p.Total(m) / m.published_total_params, 1.0, 0.1) << m.name;
    }
    if (m.published_active_params > 0) {
      EXPECT_NEAR(p.Active(m) / m.published_active_params, 1.0, 0.25) << m.name;
    }
  }
}

TEST(EngineData, DeepSeekIsMlaWith256Experts) {
  const ModelSpec m = test::ProjectEngineData().FindModel("deepseek-r1");
  EXPECT_EQ(m.attention.kind, AttentionSpec::Kind::kMla);
  EXPECT_EQ(m.moe.experts, 256);
  EXPECT_EQ(m.moe.active, 8);
  EXPECT_EQ(m.attention.kv_lora_rank + m.attention.qk_rope_head_dim, 576);
}

TEST(EngineData, Fp4MeansTheHardwaresFormat) {
  const EngineData& d = test::ProjectEngineData();
  const ModelSpec llama = d.FindModel("llama-3.3-70b");
  EXPECT_EQ(ResolvePrecision(d.quant, "fp4", "auto", d.FindHardware("b200"), llama).format, "nvfp4");
  EXPECT_EQ(ResolvePrecision(d.quant, "fp4", "auto", d.FindHardware("mi355x"), llama).format, "mxfp4");
  EXPECT_EQ(ResolvePrecision(d.quant, "fp4", "auto", d.FindHardware("h100"), llama).format, "mxfp4");
  const ResolvedPrecision oss =
      ResolvePrecision(d.quant, "fp4", "auto", d.FindHardware("b200"), d.FindModel("gpt-oss-120b"));
  EXPECT_EQ(oss.format, "mxfp4");
  EXPECT_TRUE(oss.experts_only);
  EXPECT_EQ(oss.kv_dtype, "bf16");
  EXPECT_EQ(ResolvePrecision(d.quant, "fp8", "bf16", d.FindHardware("h200"), llama).kv_bytes, 2.0);
  EXPECT_THROW(ResolvePrecision(d.quant, "fp3", "auto", d.FindHardware("h200"), llama), InputError);
}

TEST(EngineData, BadModelFileNamesFileLineAndField) {
  const std::string path = TempFile("bad.yaml",
                                    "name: bad\nsource: test\nlayers: 2\nhidden: 64\nvocab: 100\nmax_context: 128\n"
                                    "attention: {kind: gqa, heads: 4, kv_heads: 3, head_dim: 16}\n"
                                    "ffn: {intermediate: 128, dense_layers: 2}\ncolour: blue\n");
  try {
    LoadModelFile(path);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    bool unknown = false, divides = false;
    for (const auto& d : e.diagnostics()) {
      EXPECT_EQ(d.mark.file, path);
      if (d.field == "colour") {
        unknown = true;
        EXPECT_EQ(d.mark.line, 9);
      }
      divides |= d.field == "attention.kv_heads";
    }
    EXPECT_TRUE(unknown);
    EXPECT_FALSE(divides);  // model rules run only once the fields are valid
  }
}

TEST(EngineData, BadHardwareValueIsReported) {
  const std::string path =
      TempFile("hw.yaml",
               "x1:\n  vendor: intel\n  hbm_gb: -1\n  hbm_tb_s: 1.0\n  tflops: {bf16: 1.0}\n"
               "  fp4_format: none\n  scale_up: {gb_s: 1.0, domain_gpus: 8, allreduce_latency_us: 1.0, "
               "alltoall_latency_us: 1.0}\n");
  try {
    LoadHardwareFile(path);
    FAIL();
  } catch (const InputError& e) {
    ASSERT_GE(e.diagnostics().size(), 2u);
    EXPECT_EQ(e.diagnostics()[0].mark.line, 2);
    EXPECT_EQ(e.diagnostics()[1].mark.line, 3);
  }
}

TEST(EngineData, ReadsHfConfigJson) {
  const std::string path = TempFile("config.json", R"({"architectures": ["DeepseekV3ForCausalLM"],
    "num_hidden_layers": 61, "first_k_dense_replace": 3, "hidden_size": 7168, "num_attention_heads": 128,
    "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
    "n_routed_experts": 256, "num_experts_per_tok": 8, "n_shared_experts": 1, "moe_intermediate_size": 2048,
    "intermediate_size": 18432, "vocab_size": 129280, "max_position_embeddings": 163840,
    "num_nextn_predict_layers": 1})");
  const ModelSpec hf = test::ProjectEngineData().FindModel(path);
  const ModelSpec builtin = test::ProjectEngineData().FindModel("deepseek-r1");
  EXPECT_NEAR(CountParams(hf).Total(hf), CountParams(builtin).Total(builtin), 1e6);
  EXPECT_EQ(hf.mtp_layers, 1);
}

TEST(Deployment, RefusesWhatCannotRun) {
  DeploymentOptions o;
  o.model = "llama-3.3-70b";
  o.hardware = "h100";
  o.precision = "bf16";
  o.tp = 1;
  EXPECT_THROW(ResolveDeployment(test::ProjectEngineData(), o), InputError);  // 141 GB of weights on 80 GB
  o.tp = 12;
  EXPECT_THROW(ResolveDeployment(test::ProjectEngineData(), o),
               InputError);  // beyond one 8-GPU domain but not whole domains
  o.tp = 16;
  EXPECT_EQ(ResolveDeployment(test::ProjectEngineData(), o).tp, 16);  // two domains over the scale-out network
  o.tp = 4;
  o.ep = 4;
  EXPECT_THROW(ResolveDeployment(test::ProjectEngineData(), o), InputError);  // a dense model has no experts
  o.ep = 1;
  const Deployment d = ResolveDeployment(test::ProjectEngineData(), o);
  EXPECT_GT(d.scheduler.num_blocks, 1000);
  EXPECT_NEAR(d.memory.weight_bytes_per_gpu, 141e9 / 4, 3e9);
}

}  // namespace
}  // namespace infermark::perfmodel
