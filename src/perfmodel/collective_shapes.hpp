// The collectives a built-in model exchanges over its GPUs, at the message sizes `infermark gpu
// probe --collectives` times, and the step-time model's cost of each: tensor-parallel all-reduces,
// the all-gather and reduce-scatter around MoE layers under data-parallel attention, the logits'
// all-gather, and expert-parallel dispatch and combine (all-to-all). Sizes follow nccl-tests'
// convention (docs/engine-model.md, "Collectives").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfmodel/efficiency.hpp"
#include "perfmodel/hardware.hpp"
#include "perfmodel/model_spec.hpp"

namespace infermark::perfmodel {

/// One collective of one model at one batch.
struct CollectiveShape {
  std::string model;        ///< Model name.
  std::string use;          ///< `tp_all_reduce`, `dp_all_gather`, `dp_reduce_scatter`, `logits_all_gather`,
                            ///< `ep_dispatch` or `ep_combine`.
  std::string op;           ///< NCCL collective: `all_reduce`, `all_gather`, `reduce_scatter` or `all_to_all`.
  std::string phase;        ///< `decode` or `prefill`.
  std::int64_t tokens = 0;  ///< Tokens of the message: the step's (TP), the data-parallel group's (gather,
                            ///< scatter), one rank's (dispatch, combine), sequences (logits).
  std::int64_t bytes = 0;   ///< all_reduce: the buffer; all_gather: the gathered output; reduce_scatter: the
                            ///< input; all_to_all: what one rank sends in all.
  int per_step = 0;         ///< Calls per forward pass (per layer times the layers that run it).
};

/// The collectives of `model` at each decode batch (one token per sequence) and at one prefill of
/// `prefill_tokens` tokens: bf16 activations (hidden × 2 bytes per token), fp8 dispatch (hidden bytes
/// per routed token), bf16 combine, bf16 logits. MoE-only uses are left out for dense models; the
/// logits are gathered for the last token of each sequence only (one sequence in prefill).
std::vector<CollectiveShape> CollectiveShapes(const ModelSpec& model, const std::vector<std::int64_t>& decode_batches,
                                              std::int64_t prefill_tokens);

/// NCCL's bus-bandwidth factor (nccl-tests): bus bandwidth = bytes / seconds × factor; 2(n−1)/n for
/// all_reduce, (n−1)/n for the others; 0 for one GPU.
double BusFactor(const std::string& op, int gpus);

/// Seconds the step-time model gives one `op` of `bytes` over `gpus` GPUs of `hardware` with
/// `factors`: latency + bytes × BusFactor / (link_bw_fraction × scale-up bandwidth), the latency the
/// calibrated one or else the hardware's prior; 0 for one GPU; a negative number for the collectives
/// the model does not cost (all_gather, reduce_scatter).
double ModelCollectiveSeconds(const HardwareSpec& hardware, const EfficiencyFactors& factors, const std::string& op,
                              int gpus, double bytes);

}  // namespace infermark::perfmodel
