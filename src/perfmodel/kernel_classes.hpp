// Kernel classes and kernel counts: which kinds of GPU kernel a deployment's forward pass runs
// (GQA or MLA attention, sliding windows, dense or fine-grained MoE, shared experts, 4-bit or
// 8-bit GEMMs, collectives) and how many kernels one decode step launches. The step-time model
// charges its fixed costs per kernel launched, so an architecture with more, smaller kernels
// per layer (MLA, fine-grained MoE) pays for them without a fitted factor of its own; and
// `predict` names the classes no calibration point exercised (docs/engine-model.md, "Fixed
// costs" and "What the model cannot know").
#pragma once

#include <string>
#include <vector>

#include "perfmodel/deployment.hpp"
#include "perfmodel/model_spec.hpp"
#include "perfmodel/quantization.hpp"

namespace infermark::perfmodel {

/// Kernels one decode step launches on each GPU, by where they run.
struct KernelCounts {
  double attention = 0;    ///< Per attention block (norm, projections, rotary, cache write, attention).
  double dense_ffn = 0;    ///< Per dense feed-forward block.
  double moe_ffn = 0;      ///< Per MoE feed-forward block (router, top-k, permute, grouped GEMMs, combine).
  double collectives = 0;  ///< Per layer: all-reduces or dispatch/combine.
  double head = 0;         ///< Once per step: final norm, logits, sampling.
  double per_step = 0;     ///< The whole step: layers × their blocks + head.
};

/// Counts the kernels of one decode step for `model` at TP `tp` (collectives when `tp` > 1),
/// with attention data-parallel `dp_attention` and 4-bit weights run weight-only when
/// `weight_only_moe` (extra dequantizing kernels).
KernelCounts CountKernels(const ModelSpec& model, int tp, bool dp_attention, bool weight_only_moe);

/// The kernel classes a deployment exercises, as stable names (`attention.gqa`, `attention.mla`,
/// `attention.sliding_window`, `attention.sparse`, `ffn.dense`, `moe.coarse`, `moe.fine_grained`,
/// `moe.shared_experts`, `gemm.fp8`, `gemm.fp4_native`, `gemm.4bit_weight_only`, `gemm.bf16`,
/// `spec.mtp`), sorted.
std::vector<std::string> KernelClassesOf(const ModelSpec& model, const ResolvedPrecision& precision, bool native_fp4,
                                         bool mtp);

/// The classes of `wanted` that `covered` lacks, in `wanted`'s order.
std::vector<std::string> MissingClasses(const std::vector<std::string>& wanted,
                                        const std::vector<std::string>& covered);

/// The kernel classes `deployment` exercises.
std::vector<std::string> KernelClassesOf(const Deployment& deployment);

/// The classes of `deployment` that no point of its calibrated profile exercised (all of them when
/// it runs on priors): what its prediction extrapolates to.
std::vector<std::string> UnmeasuredKernelClasses(const Deployment& deployment);

/// A one-line warning naming the unmeasured classes ("" when every class was measured).
std::string TransferWarning(const Deployment& deployment);

/// A short human description of a class name (`attention.mla` → "MLA attention").
std::string DescribeKernelClass(const std::string& name);

}  // namespace infermark::perfmodel
