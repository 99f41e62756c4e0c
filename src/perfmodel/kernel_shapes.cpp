#include "perfmodel/kernel_shapes.hpp"

#include <algorithm>

namespace infermark::perfmodel {

namespace {

std::int64_t CeilDiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::vector<KernelShape> KernelShapes(const ModelSpec& model, int tp) {
  tp = std::max(tp, 1);
  std::vector<KernelShape> out;
  auto add = [&](const std::string& op, std::int64_t n, std::int64_t k, int experts = 0, int degree = 0) {
    KernelShape s;
    s.model = model.name;
    s.op = op;
    s.tp = degree > 0 ? degree : tp;
    s.n = n;
    s.k = k;
    s.local_experts = experts;
    s.top_k = experts > 0 ? model.moe.active : 0;
    out.push_back(std::move(s));
  };
  const std::int64_t h = model.hidden;
  const AttentionSpec& a = model.attention;
  if (a.kind == AttentionSpec::Kind::kMla) {
    const std::int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const std::int64_t heads = CeilDiv(a.heads, tp);
    if (a.q_lora_rank > 0) {
      add("q_a", a.q_lora_rank, h);
      add("q_b", heads * qk, a.q_lora_rank);
    } else {
      add("q", heads * qk, h);
    }
    add("kv_a", a.kv_lora_rank + a.qk_rope_head_dim, h);
    add("kv_b", heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank);
    add("o_proj", h, heads * a.v_head_dim);
  } else {
    const std::int64_t heads = CeilDiv(a.heads, tp);
    const std::int64_t kv_heads = std::max<std::int64_t>(1, CeilDiv(a.kv_heads, tp));
    add("qkv", (heads + 2 * kv_heads) * a.head_dim, h);
    add("o_proj", h, heads * a.head_dim);
  }
  if (model.dense_layers > 0 && model.dense_intermediate > 0) {
    const std::int64_t width = CeilDiv(model.dense_intermediate, tp);
    add("gate_up", 2 * width, h);
    add("down", h, width);
  }
  if (model.moe.experts > 0) {
    if (model.moe.shared_intermediate > 0) {
      const std::int64_t width = CeilDiv(model.moe.shared_intermediate, tp);
      add("shared_gate_up", 2 * width, h);
      add("shared_down", h, width);
    }
    const std::int64_t width = CeilDiv(model.moe.expert_intermediate, tp);
    add("expert_gate_up", 2 * width, h, model.moe.experts);
    add("expert_down", h, width, model.moe.experts);
    if (tp > 1) {
      const int local = static_cast<int>(CeilDiv(model.moe.experts, tp));
      add("expert_gate_up_ep", 2 * std::int64_t{model.moe.expert_intermediate}, h, local);
      add("expert_down_ep", h, model.moe.expert_intermediate, local);
    }
  }
  add("lm_head", CeilDiv(model.vocab, tp), h);
  return out;
}

ExpertLoad UniformExpertLoad(const KernelShape& shape, std::int64_t tokens) {
  ExpertLoad load;
  if (!shape.Grouped() || tokens <= 0) return load;
  const bool ep = shape.op.ends_with("_ep");
  const std::int64_t routes = tokens * std::max(shape.top_k, 1);
  const std::int64_t local_routes = ep ? CeilDiv(routes, shape.tp) : routes;
  load.experts = static_cast<int>(std::min<std::int64_t>(shape.local_experts, local_routes));
  load.m = CeilDiv(local_routes, load.experts);
  return load;
}

}  // namespace infermark::perfmodel
