// The GEMM shapes the probe times follow from the built-in models' specs.
#include "perfmodel/kernel_shapes.hpp"

#include <gtest/gtest.h>

#include <map>

#include "test_paths.hpp"

namespace infermark::perfmodel {
namespace {

std::map<std::string, KernelShape> ByOp(const std::string& model, int tp) {
  std::map<std::string, KernelShape> out;
  const ModelSpec spec = LoadModelFile(test::SourcePath("data/engine/models/" + model + ".yaml"));
  for (const KernelShape& s : KernelShapes(spec, tp)) {
    EXPECT_TRUE(out.emplace(s.op, s).second) << model << " lists " << s.op << " twice";
  }
  return out;
}

TEST(KernelShapes, LlamaDenseGqa) {
  auto tp8 = ByOp("llama-3.3-70b", 8);
  EXPECT_EQ(tp8.size(), 5u);
  EXPECT_EQ(tp8["qkv"].n, (64 + 2 * 8) * 128 / 8);
  EXPECT_EQ(tp8["qkv"].n, 1280);
  EXPECT_EQ(tp8["qkv"].k, 8192);
  EXPECT_EQ(tp8["o_proj"].n, 8192);
  EXPECT_EQ(tp8["o_proj"].k, 1024);
  EXPECT_EQ(tp8["gate_up"].n, 2 * 28672 / 8);
  EXPECT_EQ(tp8["down"].k, 28672 / 8);
  EXPECT_EQ(tp8["lm_head"].n, 128256 / 8);
  EXPECT_EQ(tp8["lm_head"].tp, 8);
  EXPECT_FALSE(tp8["qkv"].Grouped());
  auto tp1 = ByOp("llama-3.3-70b", 1);
  EXPECT_EQ(tp1["qkv"].n, (64 + 2 * 8) * 128);
  EXPECT_EQ(tp1["lm_head"].n, 128256);
}

TEST(KernelShapes, KvHeadsAreReplicatedBelowTp) {
  // Qwen3-235B has 4 KV heads: at TP 8 each rank keeps one.
  auto tp8 = ByOp("qwen3-235b-a22b", 8);
  EXPECT_EQ(tp8["qkv"].n, (64 / 8 + 2 * 1) * 128);
}

TEST(KernelShapes, DeepSeekMla) {
  auto tp1 = ByOp("deepseek-r1", 1);
  EXPECT_EQ(tp1["q_a"].n, 1536);
  EXPECT_EQ(tp1["q_a"].k, 7168);
  EXPECT_EQ(tp1["q_b"].n, 128 * (128 + 64));
  EXPECT_EQ(tp1["q_b"].k, 1536);
  EXPECT_EQ(tp1["kv_a"].n, 512 + 64);
  EXPECT_EQ(tp1["kv_b"].n, 128 * (128 + 128));
  EXPECT_EQ(tp1["kv_b"].k, 512);
  EXPECT_EQ(tp1["o_proj"].n, 7168);
  EXPECT_EQ(tp1["o_proj"].k, 128 * 128);
  EXPECT_EQ(tp1["gate_up"].n, 2 * 18432);
  EXPECT_EQ(tp1["shared_gate_up"].n, 2 * 2048);
  EXPECT_EQ(tp1["expert_gate_up"].n, 2 * 2048);
  EXPECT_EQ(tp1["expert_gate_up"].local_experts, 256);
  EXPECT_EQ(tp1["expert_gate_up"].top_k, 8);
  EXPECT_EQ(tp1["expert_down"].k, 2048);
  EXPECT_EQ(tp1.count("expert_gate_up_ep"), 0u);
  auto tp8 = ByOp("deepseek-r1", 8);
  EXPECT_EQ(tp8["q_a"].n, 1536);  // the down-projections are replicated
  EXPECT_EQ(tp8["kv_a"].n, 576);
  EXPECT_EQ(tp8["q_b"].n, 16 * 192);
  EXPECT_EQ(tp8["kv_b"].n, 16 * 256);
  EXPECT_EQ(tp8["o_proj"].k, 16 * 128);
  EXPECT_EQ(tp8["expert_gate_up"].n, 2 * 256);
  EXPECT_EQ(tp8["expert_gate_up"].local_experts, 256);
  EXPECT_EQ(tp8["expert_gate_up_ep"].n, 2 * 2048);
  EXPECT_EQ(tp8["expert_gate_up_ep"].local_experts, 32);
  EXPECT_EQ(tp8["expert_down_ep"].k, 2048);
  EXPECT_EQ(tp8["lm_head"].n, 129280 / 8);
}

TEST(KernelShapes, MoeWithoutDenseLayersHasNoDenseFfn) {
  auto shapes = ByOp("gpt-oss-120b", 8);
  EXPECT_EQ(shapes.count("gate_up"), 0u);
  EXPECT_EQ(shapes.count("shared_gate_up"), 0u);
  EXPECT_EQ(shapes["expert_down"].k, 360);
}

TEST(KernelShapes, UniformRoutingSpreadsTokensOverExperts) {
  auto tp1 = ByOp("deepseek-r1", 1);
  // One token routed to 8 experts: 8 experts with one token each.
  ExpertLoad load = UniformExpertLoad(tp1["expert_gate_up"], 1);
  EXPECT_EQ(load.experts, 8);
  EXPECT_EQ(load.m, 1);
  // 64 tokens: 512 routes over 256 experts, two each.
  load = UniformExpertLoad(tp1["expert_gate_up"], 64);
  EXPECT_EQ(load.experts, 256);
  EXPECT_EQ(load.m, 2);
  // EP 8: a rank gets 1/8 of the routes over its 32 experts.
  auto tp8 = ByOp("deepseek-r1", 8);
  load = UniformExpertLoad(tp8["expert_gate_up_ep"], 8);
  EXPECT_EQ(load.experts, 8);
  EXPECT_EQ(load.m, 1);
  load = UniformExpertLoad(tp8["expert_gate_up_ep"], 8192);
  EXPECT_EQ(load.experts, 32);
  EXPECT_EQ(load.m, 8192 * 8 / 8 / 32);
  EXPECT_EQ(UniformExpertLoad(tp8["qkv_missing"], 8).experts, 0);
}

}  // namespace
}  // namespace infermark::perfmodel
