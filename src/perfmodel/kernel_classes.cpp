#include "perfmodel/kernel_classes.hpp"

#include <algorithm>
#include <map>

namespace infermark::perfmodel {

namespace {

// Kernels per block in a CUDA-graph decode step, counted off the decoder layers of vLLM and
// SGLang (the order of their forward passes; fused ops count once):
//   GQA attention: fused residual-add + RMSNorm, QKV GEMM, rotary embedding, KV-cache write,
//     attention (plus the split-KV reduction of flash decoding), output GEMM.
//   MLA attention (absorbed decode): fused residual-add + RMSNorm, fused q_a/kv_a GEMM, q_a
//     RMSNorm, kv_a RMSNorm, q_b GEMM, the W_UK batched GEMM, rotary embedding, latent-cache
//     write, MLA attention (plus its split-KV reduction), the W_UV batched GEMM, output GEMM.
//   Dense FFN: fused residual-add + RMSNorm, gate/up GEMM, SiLU-and-multiply, down GEMM.
//   MoE FFN: fused residual-add + RMSNorm, router GEMM, top-k (grouped top-k with score bias
//     counts two), token alignment/permutation, the two grouped GEMMs with the activation
//     between them, and the weighted combine; shared experts add their own gate/up GEMM,
//     activation and down GEMM, and the add that merges them.
//   Sparse attention adds the index projection, index scoring and block top-k.
//   Collectives: one all-reduce after attention and one after the FFN under TP; dispatch and
//     combine per MoE layer plus one all-reduce-equivalent per dense layer under DP-attention.
//   Head: final RMSNorm, logits GEMM, sampling (argmax/top-p, two kernels).
constexpr double kGqaAttention = 7;
constexpr double kMlaAttention = 13;
constexpr double kSparseIndex = 3;
constexpr double kDenseFfn = 4;
constexpr double kMoeCore = 5;
constexpr double kGroupedTopK = 1;
constexpr double kSharedExperts = 4;
constexpr double kWeightOnlyDequant = 2;
constexpr double kHead = 4;

bool FineGrained(const MoeSpec& moe) {
  return moe.experts > 0 && moe.active >= 6;
}

}  // namespace

KernelCounts CountKernels(const ModelSpec& m, int tp, bool dp_attention, bool weight_only_moe) {
  KernelCounts k;
  k.attention = m.attention.kind == AttentionSpec::Kind::kMla ? kMlaAttention : kGqaAttention;
  k.dense_ffn = kDenseFfn;
  if (m.moe.experts > 0) {
    k.moe_ffn = kMoeCore + (FineGrained(m.moe) ? kGroupedTopK : 0) + (m.moe.shared_experts > 0 ? kSharedExperts : 0) +
                (weight_only_moe ? kWeightOnlyDequant : 0);
  }
  if (tp > 1) k.collectives = 2;
  if (dp_attention && m.moe.experts > 0) k.collectives = 2;
  k.head = kHead;
  const double sparse_layers = m.attention.sparse.enabled ? m.layers - m.attention.sparse.first_layer : 0;
  const double moe_layers = m.MoeLayers();
  const double dense_layers = m.layers - moe_layers;
  k.per_step = m.layers * (k.attention + k.collectives) + sparse_layers * kSparseIndex + dense_layers * k.dense_ffn +
               moe_layers * k.moe_ffn + k.head;
  return k;
}

std::vector<std::string> KernelClassesOf(const ModelSpec& m, const ResolvedPrecision& q, bool native_fp4, bool mtp) {
  std::vector<std::string> out;
  out.push_back(m.attention.kind == AttentionSpec::Kind::kMla ? "attention.mla" : "attention.gqa");
  if (m.attention.sliding_layers > 0) out.push_back("attention.sliding_window");
  if (m.attention.sparse.enabled) out.push_back("attention.sparse");
  if (m.layers - m.MoeLayers() > 0) out.push_back("ffn.dense");
  if (m.moe.experts > 0) {
    out.push_back(FineGrained(m.moe) ? "moe.fine_grained" : "moe.coarse");
    if (m.moe.shared_experts > 0) out.push_back("moe.shared_experts");
  }
  if (q.quant_bytes >= 2.0) {
    out.push_back("gemm.bf16");
  } else if (q.quant_bytes >= 1.0) {
    out.push_back("gemm.fp8");
  } else {
    out.push_back(native_fp4 ? "gemm.fp4_native" : "gemm.4bit_weight_only");
  }
  if (mtp) out.push_back("spec.mtp");
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> MissingClasses(const std::vector<std::string>& wanted,
                                        const std::vector<std::string>& covered) {
  std::vector<std::string> out;
  for (const auto& c : wanted)
    if (std::find(covered.begin(), covered.end(), c) == covered.end()) out.push_back(c);
  return out;
}

std::vector<std::string> KernelClassesOf(const Deployment& d) {
  const bool native_fp4 = d.precision.quant_compute == ComputeDtype::kFp4 && d.hardware.flops_fp4 > 0;
  return KernelClassesOf(d.model, d.precision, native_fp4, d.scheduler.spec_tokens > 0);
}

std::vector<std::string> UnmeasuredKernelClasses(const Deployment& d) {
  return MissingClasses(KernelClassesOf(d), d.calibrated_classes);
}

std::string TransferWarning(const Deployment& d) {
  const std::vector<std::string> missing = UnmeasuredKernelClasses(d);
  if (missing.empty()) return "";
  std::string list;
  for (const auto& c : missing) list += (list.empty() ? "" : ", ") + DescribeKernelClass(c) + " [" + c + "]";
  std::string out = d.model.name + " on " + d.hardware.name + " (" + d.framework.name + "): ";
  out += d.calibrated_classes.empty()
             ? "no calibrated profile; the factors are priors, and no measured point exercised "
             : "no calibration point exercised ";
  out += list + "; these terms are extrapolated (held-out error on unseen architectures: docs/engine-model.md)";
  return out;
}

std::string DescribeKernelClass(const std::string& name) {
  static const std::map<std::string, std::string> names = {
      {"attention.gqa", "grouped-query attention"},
      {"attention.mla", "multi-head latent attention (MLA)"},
      {"attention.sliding_window", "sliding-window attention"},
      {"attention.sparse", "block-sparse attention with an index"},
      {"ffn.dense", "dense feed-forward GEMMs"},
      {"moe.coarse", "MoE with few active experts (top-k < 6)"},
      {"moe.fine_grained", "fine-grained MoE (top-k >= 6 small experts)"},
      {"moe.shared_experts", "shared experts beside routed ones"},
      {"gemm.bf16", "bf16 GEMMs"},
      {"gemm.fp8", "fp8 GEMMs"},
      {"gemm.fp4_native", "native fp4 GEMMs"},
      {"gemm.4bit_weight_only", "4-bit weight-only (dequantizing) GEMMs"},
      {"spec.mtp", "multi-token-prediction drafts"},
  };
  const auto it = names.find(name);
  return it == names.end() ? name : it->second;
}

}  // namespace infermark::perfmodel
