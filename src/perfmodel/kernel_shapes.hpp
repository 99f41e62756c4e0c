// The GEMMs one rank of a built-in model runs per layer (and the lm_head), at a tensor- or
// expert-parallel degree: the shapes `infermark gpu probe` times, derived from a ModelSpec.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfmodel/model_spec.hpp"

namespace infermark::perfmodel {

/// One weight matrix of one rank: the activation (m tokens × k) times its transpose (k → n).
struct KernelShape {
  std::string model;      ///< Model name.
  std::string op;         ///< `qkv`, `o_proj`, `q_a`, `q_b`, `kv_a`, `kv_b`, `gate_up`, `down`, `shared_gate_up`,
                          ///< `shared_down`, `lm_head`, `expert_gate_up`, `expert_down` (experts split by TP),
                          ///< `expert_gate_up_ep`, `expert_down_ep` (whole experts spread by EP).
  int tp = 1;             ///< Parallel degree (TP, or EP for the `_ep` ops).
  std::int64_t n = 0;     ///< Output features of this rank.
  std::int64_t k = 0;     ///< Input features of this rank.
  int local_experts = 0;  ///< Expert ops: routed experts this rank holds (0 = a plain GEMM).
  int top_k = 0;          ///< Expert ops: experts each token is routed to.

  /// Whether this is a grouped (per-expert) GEMM.
  [[nodiscard]] bool Grouped() const { return local_experts > 0; }
};

/// A grouped GEMM under uniform routing: how many experts a batch touches and tokens per expert.
struct ExpertLoad {
  int experts = 0;     ///< Experts of this rank that get at least one token.
  std::int64_t m = 0;  ///< Tokens per touched expert (rounded up).
};

/// The shapes one rank runs at parallel degree `tp` (1 or more): attention projections (MLA: q_a,
/// q_b, kv_a, kv_b, o_proj; GQA: qkv with KV heads replicated when fewer than `tp`, o_proj), the
/// dense and shared-expert FFN, the vocabulary-parallel lm_head, and for MoE models the routed
/// experts both split by TP and spread by EP. Sizes that do not divide are rounded up.
std::vector<KernelShape> KernelShapes(const ModelSpec& model, int tp);

/// Uniform routing of `tokens` tokens (the batch one rank's attention runs) over an expert op:
/// tokens·top_k routes, 1/tp of them to this rank under EP, spread over min(local experts, routes).
ExpertLoad UniformExpertLoad(const KernelShape& shape, std::int64_t tokens);

}  // namespace infermark::perfmodel
