// The step-time model: how long one forward pass of a batch takes on one deployment. A roofline
// per operator (weight and KV bytes against HBM bandwidth, FLOPs against tensor peak, each at an
// achievable fraction), plus collectives and fixed overheads. Formulas: docs/engine-model.md.
#pragma once

#include "perfmodel/deployment.hpp"
#include "perfmodel/kernel_classes.hpp"

namespace infermark::perfmodel {

/// Attention classes whose KV reads differ: full attention, sliding-window layers (capped at the
/// window) and block-sparse layers (capped at their budget; their index reads the full context).
enum AttentionClass { kFullAttention = 0, kWindowAttention = 1, kSparseAttention = 2, kAttentionClasses = 3 };

/// The aggregate shape of one forward pass: what the step time depends on. Sums over sequences,
/// so the scheduler can keep it in O(1) per sequence.
struct BatchShape {
  double num_seqs = 0;                                  ///< Sequences in the pass (each samples at least one token).
  double decode_seqs = 0;                               ///< Of which in decode.
  double decode_tokens = 0;                             ///< Tokens processed for decoding sequences (drafts included).
  double prefill_tokens = 0;                            ///< Prompt tokens processed (chunks).
  double decode_ctx[kAttentionClasses] = {0, 0, 0};     ///< KV tokens decode queries read, per class.
  double prefill_ctx[kAttentionClasses] = {0, 0, 0};    ///< KV tokens prefill chunks touch, per class.
  double prefill_pairs[kAttentionClasses] = {0, 0, 0};  ///< Causal query-key pairs of prefill chunks.

  /// All tokens processed.
  [[nodiscard]] double Tokens() const { return decode_tokens + prefill_tokens; }
};

/// Context caps of the attention classes (0 = uncapped) for one model.
struct ContextCaps {
  double cap[kAttentionClasses] = {0, 0, 0};  ///< Full: 0; window: window size; sparse: budget.
};

/// Adds one decoding sequence whose queries (`query_tokens`, 1 + drafts) see `context` tokens.
void AddDecode(BatchShape& shape, double context, double query_tokens, const ContextCaps& caps);

/// Adds a prefill chunk of `chunk` tokens on top of `cached` tokens already in the KV cache.
void AddPrefill(BatchShape& shape, double cached, double chunk, const ContextCaps& caps);

/// Query-key pairs of a causal chunk of `chunk` queries after `cached` tokens, each query seeing
/// at most `cap` keys (0 = no cap).
double CausalPairs(double cached, double chunk, double cap);

/// Time of one forward pass for a deployment. Construction does the arithmetic that does not
/// depend on the batch; `Seconds` is a dozen roofline terms.
class StepTimeModel {
 public:
  /// Builds the model for `deployment` with its efficiency factors.
  explicit StepTimeModel(const Deployment& deployment);

  /// Replaces the efficiency factors (calibration re-times traces with many candidates).
  void SetEfficiency(const EfficiencyFactors& factors);
  /// The factors in force.
  [[nodiscard]] const EfficiencyFactors& efficiency() const { return eff_; }

  /// Seconds one forward pass of `shape` takes (draft-model passes included when speculating).
  [[nodiscard]] double Seconds(const BatchShape& shape) const;

  /// Context caps of this model's attention classes.
  [[nodiscard]] const ContextCaps& caps() const { return caps_; }
  /// Query tokens per decoding sequence per step (1 + draft tokens).
  [[nodiscard]] double decode_query_tokens() const { return 1.0 + spec_tokens_; }

 private:
  [[nodiscard]] double Roof(double bytes, double flops, double peak, double flops_fraction) const;
  // A roofline for attention over the KV cache (its own bandwidth and FLOP fractions).
  [[nodiscard]] double RoofAttention(double bytes, double flops) const;
  // A roofline for GEMMs over weights; 4-bit weights stream at a lower fraction.
  [[nodiscard]] double RoofWeights(double bytes, double flops, double peak, bool low_bit, bool weight_only,
                                   bool grouped = false) const;
  // A ring all-reduce of `bytes` over the TP group; hierarchical (scale-up, then scale-out over
  // each GPU's NIC) when the group spans several scale-up domains.
  [[nodiscard]] double AllReduce(double bytes) const;
  // Expert-parallel dispatch and combine of one MoE layer: `bytes` leave each rank, spread evenly
  // over the other ranks; the share bound for other domains crosses the scale-out NICs.
  [[nodiscard]] double AllToAll(double bytes) const;
  // Kernel units of one MoE block (weight-only 4-bit experts scale them).
  [[nodiscard]] double MoeKernels() const;

  // Deployment constants.
  double layers_ = 0, dense_layers_ = 0, moe_layers_ = 0;
  double class_layers_[kAttentionClasses] = {0, 0, 0};
  double tp_ = 1, dp_ = 1, ep_ = 1;
  double hidden_ = 0;
  double hbm_bw_ = 0, link_bw_ = 0;
  double domain_ = 8, scale_out_bw_ = 0, scale_out_latency_ = 0;  // a group beyond one domain
  double peak_dense_ = 0, peak_expert_ = 0, peak_bf16_ = 0;
  double ar_latency_prior_ = 0, a2a_latency_prior_ = 0;
  // Per layer, per GPU.
  double attn_weight_bytes_ = 0, attn_flops_per_token_ = 0;
  double kv_bytes_per_token_[kAttentionClasses] = {0, 0, 0};
  double index_bytes_per_token_ = 0, index_flops_per_pair_ = 0;
  double decode_flops_per_pair_ = 0, prefill_flops_per_pair_ = 0;
  double ffn_weight_bytes_ = 0, ffn_flops_per_token_ = 0;
  double experts_ = 0, active_ = 0, expert_bytes_per_gpu_ = 0, expert_flops_per_token_ = 0;
  double shared_bytes_ = 0, shared_flops_per_token_ = 0, router_bytes_ = 0;
  double lm_head_bytes_ = 0, lm_head_flops_per_seq_ = 0;
  bool low_bit_experts_ = false, low_bit_dense_ = false;  // 4-bit weights
  bool weight_only_experts_ = false;                      // 4-bit experts without native FP4 math
  bool weight_only_dense_ = false;                        // 4-bit dense weights without native FP4 math
  double spec_tokens_ = 0;
  bool mtp_draft_ = false;
  bool whole_batch_attention_ = false;  // AttentionScope::kWholeBatch
  KernelCounts kernels_;
  ContextCaps caps_;
  EfficiencyFactors eff_;
};

}  // namespace infermark::perfmodel
