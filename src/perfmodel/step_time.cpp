#include "perfmodel/step_time.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/kernel_classes.hpp"

namespace infermark::perfmodel {

double CausalPairs(double cached, double chunk, double cap) {
  if (chunk <= 0) return 0;
  // Query i (0-based) of the chunk sees cached + i + 1 keys, at most cap.
  const double x0 = cached + 1, x1 = cached + chunk;
  if (cap <= 0 || x1 <= cap) return chunk * (x0 + x1) / 2;
  if (x0 >= cap) return chunk * cap;
  return (cap - x0 + 1) * (x0 + cap) / 2 + (x1 - cap) * cap;
}

void AddDecode(BatchShape& s, double context, double query_tokens, const ContextCaps& caps) {
  s.num_seqs += 1;
  s.decode_seqs += 1;
  s.decode_tokens += query_tokens;
  for (int c = 0; c < kAttentionClasses; ++c)
    s.decode_ctx[c] += caps.cap[c] > 0 ? std::min(context, caps.cap[c]) : context;
}

void AddPrefill(BatchShape& s, double cached, double chunk, const ContextCaps& caps) {
  s.num_seqs += 1;
  s.prefill_tokens += chunk;
  for (int c = 0; c < kAttentionClasses; ++c) {
    s.prefill_ctx[c] += caps.cap[c] > 0 ? std::min(cached + chunk, caps.cap[c]) : cached + chunk;
    s.prefill_pairs[c] += CausalPairs(cached, chunk, caps.cap[c]);
  }
}

StepTimeModel::StepTimeModel(const Deployment& d) {
  const ModelSpec& m = d.model;
  const ParamCounts p = CountParams(m);
  const ResolvedPrecision& q = d.precision;
  const HardwareSpec& hw = d.hardware;
  const AttentionSpec& a = m.attention;
  layers_ = m.layers;
  dense_layers_ = m.dense_layers;
  moe_layers_ = m.MoeLayers();
  const double sparse_layers = a.sparse.enabled ? m.layers - a.sparse.first_layer : 0;
  class_layers_[kWindowAttention] = a.sliding_layers;
  class_layers_[kSparseAttention] = sparse_layers;
  class_layers_[kFullAttention] = m.layers - a.sliding_layers - sparse_layers;
  caps_.cap[kWindowAttention] = a.sliding_window;
  caps_.cap[kSparseAttention] = a.sparse.enabled ? a.sparse.Budget() : 0;
  tp_ = d.tp;
  whole_batch_attention_ = d.framework.attention == AttentionScope::kWholeBatch;
  dp_ = d.dp_attention ? d.tp : 1;
  ep_ = d.ep;
  hidden_ = m.hidden;
  hbm_bw_ = hw.hbm_bytes_per_s;
  link_bw_ = hw.link_bytes_per_s;
  domain_ = hw.domain_gpus;
  scale_out_bw_ = hw.scale_out_bytes_per_s;
  scale_out_latency_ = hw.scale_out_latency_s;
  peak_bf16_ = hw.PeakFlops(ComputeDtype::kBf16);
  peak_expert_ = hw.PeakFlops(q.quant_compute);
  peak_dense_ = q.experts_only ? peak_bf16_ : peak_expert_;
  // 4-bit weights stream slower than their byte count says: unpacking, scale reads and tiles
  // sized for 8-bit kernels keep the GEMMs short of the bandwidth 8- and 16-bit weights reach
  // (measured: at batch 4, nvfp4/mxfp4 weights take ~1.6x the time per byte of fp8 ones).
  low_bit_experts_ = q.quant_bytes < 1.0;
  low_bit_dense_ = low_bit_experts_ && !q.experts_only;
  // Without native FP4 math (Hopper, MI300X/MI325X) 4-bit experts run through dequantizing MoE
  // kernels (Marlin, Triton), whose extra per-layer kernels show up as fixed time.
  weight_only_experts_ =
      low_bit_experts_ && hw.PeakFlops(q.quant_compute) == hw.flops_bf16 && q.quant_compute != ComputeDtype::kBf16;
  weight_only_dense_ = weight_only_experts_ && !q.experts_only;
  ar_latency_prior_ = hw.allreduce_latency_s;
  a2a_latency_prior_ = hw.alltoall_latency_s;

  const double dense_b = q.experts_only ? 2.0 : q.quant_bytes;
  const double tp_attn = d.dp_attention ? 1 : d.tp;
  // MLA's down-projections (q_a, kv_a) are replicated on every TP rank; the rest is split.
  double replicated = 0;
  if (a.kind == AttentionSpec::Kind::kMla)
    replicated = double(m.hidden) * (a.q_lora_rank + a.kv_lora_rank + a.qk_rope_head_dim);
  attn_weight_bytes_ = (replicated + (p.attention_per_layer - replicated) / tp_attn) * dense_b;
  attn_flops_per_token_ = 2 * p.attention_per_layer / tp_attn;
  const double heads_rank = a.heads / tp_attn;
  if (a.kind == AttentionSpec::Kind::kMla) {
    // The latent is replicated over TP; decode runs absorbed (QK over kv_lora + rope, PV over
    // kv_lora), prefill expanded (QK over nope + rope, PV over v_head_dim).
    const double latent = a.kv_lora_rank + a.qk_rope_head_dim;
    kv_bytes_per_token_[kFullAttention] = latent * q.kv_bytes;
    decode_flops_per_pair_ = 2 * heads_rank * (latent + a.kv_lora_rank);
    prefill_flops_per_pair_ = 2 * heads_rank * (a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim);
  } else {
    // With more GPUs than KV heads each GPU keeps a copy of one head.
    const double kv_heads_rank = std::max(1.0, std::floor(double(a.kv_heads) / tp_attn));
    kv_bytes_per_token_[kFullAttention] = 2 * kv_heads_rank * a.head_dim * q.kv_bytes;
    decode_flops_per_pair_ = 4 * heads_rank * a.head_dim;
    prefill_flops_per_pair_ = decode_flops_per_pair_;
  }
  kv_bytes_per_token_[kWindowAttention] = kv_bytes_per_token_[kFullAttention];
  kv_bytes_per_token_[kSparseAttention] = kv_bytes_per_token_[kFullAttention];
  if (a.sparse.enabled) {
    index_bytes_per_token_ = double(a.sparse.index_heads) * a.sparse.index_head_dim * q.kv_bytes;
    index_flops_per_pair_ = 2.0 * a.sparse.index_heads * a.sparse.index_head_dim;
  }
  ffn_weight_bytes_ = p.dense_ffn_per_layer * dense_b / d.tp;
  ffn_flops_per_token_ = 2 * p.dense_ffn_per_layer / d.tp;
  experts_ = m.moe.experts;
  active_ = m.moe.active;
  const double shards = d.ep > 1 ? d.ep : d.tp;
  expert_bytes_per_gpu_ = p.expert * q.quant_bytes / shards;
  expert_flops_per_token_ = 2 * active_ * p.expert / shards;
  shared_bytes_ = p.shared_per_layer * dense_b / d.tp;
  shared_flops_per_token_ = 2 * p.shared_per_layer / d.tp;
  router_bytes_ = p.router_per_layer * 2.0;
  lm_head_bytes_ = (m.tied_embeddings ? p.embedding : p.lm_head) * 2.0 / d.tp;
  lm_head_flops_per_seq_ = 2.0 * m.vocab * m.hidden / d.tp;
  // Weight-only experts' extra kernels are weight_only_moe_overhead_ratio's (MoeKernels).
  kernels_ = CountKernels(m, d.tp, d.dp_attention, false);
  spec_tokens_ = d.scheduler.spec_tokens;
  mtp_draft_ = spec_tokens_ > 0;
  eff_ = d.efficiency;
}

void StepTimeModel::SetEfficiency(const EfficiencyFactors& factors) {
  eff_ = factors;
}

double StepTimeModel::Roof(double bytes, double flops, double peak, double flops_fraction) const {
  return std::max(bytes / (eff_.hbm_bw_fraction * hbm_bw_), flops / (flops_fraction * peak));
}

double StepTimeModel::RoofAttention(double bytes, double flops) const {
  return std::max(bytes / (eff_.attention_bw_fraction * hbm_bw_), flops / (eff_.attention_flops_fraction * peak_bf16_));
}

double StepTimeModel::RoofWeights(double bytes, double flops, double peak, bool low_bit, bool weight_only,
                                  bool grouped) const {
  const double bw = eff_.hbm_bw_fraction * (low_bit ? eff_.low_bit_bw_efficiency : 1.0) *
                    (grouped && !low_bit ? eff_.grouped_bw_efficiency : 1.0) * hbm_bw_;
  const double fc = eff_.flops_fraction * (weight_only ? eff_.weight_only_flops_efficiency : 1.0);
  return std::max(bytes / bw, flops / (fc * peak));
}

double StepTimeModel::MoeKernels() const {
  return weight_only_experts_ ? kernels_.moe_ffn * eff_.weight_only_moe_overhead_ratio : kernels_.moe_ffn;
}

double StepTimeModel::AllReduce(double bytes) const {
  const double latency = eff_.allreduce_latency_us >= 0 ? eff_.allreduce_latency_us * 1e-6 : ar_latency_prior_;
  if (tp_ <= domain_) return latency + 2 * (tp_ - 1) / tp_ * bytes / (eff_.link_bw_fraction * link_bw_);
  // Reduce-scatter inside each domain, an all-reduce of each GPU's 1/domain shard with its peers
  // of the other domains over its own NIC, then all-gather inside the domain.
  const double domains = tp_ / domain_;
  const double inside = 2 * (domain_ - 1) / domain_ * bytes / (eff_.link_bw_fraction * link_bw_);
  const double across = 2 * (domains - 1) / domains * (bytes / domain_) / (eff_.link_bw_fraction * scale_out_bw_);
  return latency + 2 * scale_out_latency_ + inside + across;
}

double StepTimeModel::AllToAll(double bytes) const {
  const double latency = eff_.alltoall_latency_us >= 0 ? eff_.alltoall_latency_us * 1e-6 : a2a_latency_prior_;
  if (ep_ <= domain_) return 2 * latency + bytes / (eff_.link_bw_fraction * link_bw_);
  // Peers in the rank's own domain take (domain − 1)/(ep − 1) of the bytes over scale-up, the rest
  // cross the scale-out NIC at the same time: the slower side sets the time.
  const double inside = bytes * (domain_ - 1) / (ep_ - 1) / (eff_.link_bw_fraction * link_bw_);
  const double across = bytes * (ep_ - domain_) / (ep_ - 1) / (eff_.link_bw_fraction * scale_out_bw_);
  return 2 * (latency + scale_out_latency_) + std::max(inside, across);
}

double StepTimeModel::Seconds(const BatchShape& s) const {
  const double tokens = s.Tokens();
  if (tokens <= 0) return 0;
  const double attn_tokens = tokens / dp_;  // the busiest attention rank's share
  const double fc = eff_.flops_fraction;
  double t = 0;
  // Attention projections.
  t += layers_ * RoofWeights(attn_weight_bytes_, attn_flops_per_token_ * attn_tokens, peak_dense_, low_bit_dense_,
                             weight_only_dense_);
  // Attention core, per class: decode (memory-bound KV reads) and prefill (compute-bound) are
  // separate kernels in every framework's mixed batches.
  const double qd = s.decode_seqs > 0 ? s.decode_tokens / s.decode_seqs : 1;
  for (int c = 0; c < kAttentionClasses; ++c) {
    if (class_layers_[c] <= 0) continue;
    if (whole_batch_attention_) {
      // One masked SDPA per layer over the KV gathered out of the paged cache: the gather reads
      // and writes every key of the pass, the SDPA reads the copy (3 passes over the KV), and
      // every query token meets every gathered key, its own sequence's or not.
      const double keys = s.decode_ctx[c] + s.prefill_ctx[c];
      t += class_layers_[c] *
           RoofAttention(3 * kv_bytes_per_token_[c] * keys / dp_, decode_flops_per_pair_ * tokens * keys / dp_);
      continue;
    }
    double dec_bytes = kv_bytes_per_token_[c] * s.decode_ctx[c];
    double dec_flops = decode_flops_per_pair_ * qd * s.decode_ctx[c];
    double pre_bytes = kv_bytes_per_token_[c] * s.prefill_ctx[c];
    double pre_flops = prefill_flops_per_pair_ * s.prefill_pairs[c];
    if (c == kSparseAttention) {  // the index scores every past token
      dec_bytes += index_bytes_per_token_ * s.decode_ctx[kFullAttention];
      dec_flops += index_flops_per_pair_ * qd * s.decode_ctx[kFullAttention];
      pre_bytes += index_bytes_per_token_ * s.prefill_ctx[kFullAttention];
      pre_flops += index_flops_per_pair_ * s.prefill_pairs[kFullAttention];
    }
    double core = 0;
    if (s.decode_seqs > 0) core += RoofAttention(dec_bytes / dp_, dec_flops / dp_);
    if (s.prefill_tokens > 0) core += RoofAttention(pre_bytes / dp_, pre_flops / dp_);
    t += class_layers_[c] * core;
  }
  // Feed-forward: dense layers, then MoE layers (expert weights read only for experts some token
  // of the pass is routed to: E·(1 − (1 − k/E)^T) of them under uniform routing).
  if (dense_layers_ > 0)
    t += dense_layers_ *
         RoofWeights(ffn_weight_bytes_, ffn_flops_per_token_ * tokens, peak_dense_, low_bit_dense_, weight_only_dense_);
  if (moe_layers_ > 0) {
    const double touched = experts_ * (1 - std::pow(1 - active_ / experts_, tokens));
    const double bytes = touched * expert_bytes_per_gpu_ + shared_bytes_ + router_bytes_;
    const double flops = (expert_flops_per_token_ + shared_flops_per_token_) * tokens;
    t += moe_layers_ * RoofWeights(bytes, flops, peak_expert_, low_bit_experts_, weight_only_experts_, true);
  }
  // Logits for every sampling sequence.
  t += Roof(lm_head_bytes_, lm_head_flops_per_seq_ * s.num_seqs, peak_bf16_, fc);
  // Collectives.
  const double message = tokens * hidden_ * 2;  // bf16 activations
  if (dp_ > 1 && ep_ > 1) {
    const double dispatch = attn_tokens * active_ * hidden_ * 3 * (ep_ - 1) / ep_;  // fp8 out, bf16 back
    t += moe_layers_ * AllToAll(dispatch);
    t += dense_layers_ * AllReduce(message);
  } else if (dp_ > 1) {
    // Attention data-parallel, experts over TP: every rank gathers all ranks' tokens before a MoE
    // or dense FFN block and scatters the reduced outputs back after it, an all-reduce's traffic.
    t += (moe_layers_ + dense_layers_) * AllReduce(message);
  } else if (tp_ > 1) {
    t += layers_ * 2 * AllReduce(message);
  }
  // Draft passes of multi-token prediction: one extra layer and the logits, per draft token.
  if (mtp_draft_ && s.decode_seqs > 0) {
    const double n = s.decode_seqs;
    double layer =
        RoofWeights(attn_weight_bytes_, attn_flops_per_token_ * n / dp_, peak_dense_, low_bit_dense_,
                    weight_only_dense_) +
        RoofAttention(kv_bytes_per_token_[0] * s.decode_ctx[0] / dp_, decode_flops_per_pair_ * s.decode_ctx[0] / dp_);
    if (moe_layers_ > 0) {
      const double touched = experts_ * (1 - std::pow(1 - active_ / experts_, n));
      layer += RoofWeights(touched * expert_bytes_per_gpu_ + shared_bytes_,
                           (expert_flops_per_token_ + shared_flops_per_token_) * n, peak_expert_, low_bit_experts_,
                           weight_only_experts_, true);
    } else {
      layer +=
          RoofWeights(ffn_weight_bytes_, ffn_flops_per_token_ * n, peak_dense_, low_bit_dense_, weight_only_dense_);
    }
    layer += Roof(lm_head_bytes_, lm_head_flops_per_seq_ * n, peak_bf16_, fc);
    if (tp_ > 1 && dp_ == 1) layer += 2 * AllReduce(n * hidden_ * 2);
    const double draft_kernels = kernels_.attention + kernels_.collectives + kernels_.head +
                                 (moe_layers_ > 0 ? MoeKernels() : kernels_.dense_ffn);
    t += spec_tokens_ * (layer + eff_.kernel_overhead_us * draft_kernels * 1e-6);
  }
  // Fixed costs: per pass, per kernel launched (each layer's blocks launch a known number of
  // kernels: kernel_classes.cpp), per expert a MoE layer touches, and per sequence.
  double kernels = kernels_.per_step;
  if (moe_layers_ > 0) kernels += moe_layers_ * (MoeKernels() - kernels_.moe_ffn);
  double fixed_us = eff_.step_overhead_us + eff_.kernel_overhead_us * kernels + eff_.seq_overhead_us * s.num_seqs;
  if (moe_layers_ > 0 && eff_.expert_overhead_us > 0) {
    const double touched = experts_ * (1 - std::pow(1 - active_ / experts_, tokens));
    const double local = ep_ > 1 ? touched / ep_ : touched;  // under EP each GPU holds 1/ep of them
    fixed_us += eff_.expert_overhead_us * moe_layers_ * local;
  }
  t += fixed_us * 1e-6;
  return t;
}

}  // namespace infermark::perfmodel
