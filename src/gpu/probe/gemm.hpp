// GEMMs timed the way a serving engine runs them: the activation (m tokens × k) times a weight
// (n × k, row-major) into bf16, through cuBLASLt (bf16, or fp8 e4m3 in its "TN" layout) or as one
// grouped call over experts (cublasGemmGroupedBatchedEx, bf16). Weights rotate over copies in a
// large arena so that each call reads them from HBM, not from L2.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "gpu/probe/cuda_check.hpp"
#include "gpu/probe/timing.hpp"

namespace infermark::gpu::probe {

/// Random weights for many GEMMs: one device allocation filled for one dtype at a time.
class WeightArena {
 public:
  /// Allocates `bytes` of device memory.
  explicit WeightArena(std::size_t bytes) : buffer_(bytes) {}
  /// Makes the arena hold random values of `dtype` (`bf16` or `fp8`), refilling when it changes.
  void Prepare(const std::string& dtype, cudaStream_t stream);
  /// The arena's base address.
  [[nodiscard]] char* base() const { return static_cast<char*>(buffer_.get()); }
  /// Its size.
  [[nodiscard]] std::size_t bytes() const { return buffer_.bytes(); }

 private:
  DeviceBuffer buffer_;
  std::string dtype_;
  std::uint64_t fills_ = 0;
};

/// Libraries and scratch space the GEMMs share.
struct GemmContext {
  cudaStream_t stream = nullptr;      ///< Stream every call runs on.
  cublasLtHandle_t lt = nullptr;      ///< cuBLASLt handle.
  cublasHandle_t blas = nullptr;      ///< cuBLAS handle (grouped GEMMs).
  void* workspace = nullptr;          ///< Workspace for either library.
  std::size_t workspace_bytes = 0;    ///< Its size.
  const float* unit_scale = nullptr;  ///< A device float 1.0 (fp8 scale pointers).
  WeightArena* arena = nullptr;       ///< Weights.
  std::size_t l2_bytes = 0;           ///< The GPU's L2 size (copies cover at least 3× this).
};

/// One GEMM (or group) to time; n and k already padded to multiples of 16.
struct GemmSpec {
  std::string dtype;   ///< `bf16` or `fp8`.
  std::int64_t m = 0;  ///< Tokens (per expert for a group).
  std::int64_t n = 0;  ///< Output features.
  std::int64_t k = 0;  ///< Input features.
  int experts = 0;     ///< Problems in a grouped call (0: one plain GEMM).
};

/// What timing one GEMM gave.
struct GemmTiming {
  Timing timing;   ///< Per call.
  int copies = 0;  ///< Weight copies rotated.
};

/// Times `spec`; throws ProbeError naming the call that failed or why the shape cannot run.
GemmTiming TimeGemm(const GemmContext& context, const GemmSpec& spec, const TimingPlan& plan, std::uint64_t seed);

}  // namespace infermark::gpu::probe
