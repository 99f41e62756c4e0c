#include "perfmodel/sglang_memory.hpp"

#include <algorithm>
#include <cmath>

namespace infermark::perfmodel {

double SglangDefaultMemFractionStatic(const SglangMemoryInputs& in) {
  const double gpu_mib = in.gpu_bytes / (1024.0 * 1024.0);
  constexpr double kGiB = 1024;  // in MiB
  // The chunked-prefill size and the largest CUDA-graph batch SGLang picks for this memory class.
  int chunk = 16384;
  int graph_bs = 512;
  if (gpu_mib < 20 * kGiB) {
    chunk = 2048;
    graph_bs = 8;
  } else if (gpu_mib < 35 * kGiB) {
    chunk = 2048;
    graph_bs = in.tp < 4 ? 24 : 80;
  } else if (gpu_mib < 60 * kGiB) {
    chunk = 4096;
    graph_bs = in.tp < 4 ? 32 : 160;
  } else if (gpu_mib < 160 * kGiB) {
    chunk = 8192;
    graph_bs = in.tp < 4 ? 256 : 512;
  }
  double reserve = 512 + std::max(chunk, 2048) * 1.5 + graph_bs * 2.0 + in.tp / 8.0 * kGiB;
  if (in.dp_attention) {
    reserve += graph_bs * in.tp * 3.0;
    if (graph_bs > 300) reserve += graph_bs * in.tp * 1.5;
  }
  if (gpu_mib > 60 * kGiB) reserve = std::max(reserve, 10 * kGiB);
  if (in.speculative) reserve += 2 * kGiB;
  return std::round((gpu_mib - reserve) / gpu_mib * 1000) / 1000;
}

}  // namespace infermark::perfmodel
