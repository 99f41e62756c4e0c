// SGLang's default --mem-fraction-static: the share of a GPU's memory its weights and KV pool may
// take, the rest left for activations and CUDA graphs. SGLang derives it at start-up from the
// memory the GPU reports and the deployment (server_args.py, ServerArgs._handle_gpu_memory_settings):
// a reserve in MiB for the prefill activations (1.5 per token of the chunked-prefill size, which
// grows with the GPU's memory), the CUDA graphs (2 per batch size captured), constant metadata
// (512), large TP groups (1,024 per 8 ranks), attention data-parallel padding and a draft model,
// at least 10 GiB on GPUs over 60 GiB; the fraction is (memory − reserve) / memory, to 3 decimals.
#pragma once

namespace infermark::perfmodel {

/// The deployment facts SGLang's default depends on.
struct SglangMemoryInputs {
  double gpu_bytes = 0;       ///< Memory the GPU reports (HardwareSpec::memory_bytes).
  int tp = 1;                 ///< Tensor-parallel ranks.
  bool dp_attention = false;  ///< --enable-dp-attention (its DP size is the TP size).
  bool speculative = false;   ///< A draft model or MTP head (EAGLE-style speculative decoding).
};

/// SGLang's default mem-fraction-static for `in`, e.g. 0.855 on a B200 (183,359 MiB) at TP 4.
double SglangDefaultMemFractionStatic(const SglangMemoryInputs& in);

}  // namespace infermark::perfmodel
