// GEMMs timed the way a serving engine runs them: the activation (m tokens × k) times a weight
// (n × k, row-major) into bf16, through cuBLASLt (bf16, or fp8 e4m3 in its "TN" layout) or as one
// grouped call over experts (cublasGemmGroupedBatchedEx, bf16). Weights rotate over copies in a
// large arena so that each call reads them from HBM, not from L2; every GEMM shares one activation
// and one output buffer, so that many can be set up at once and timed in interleaved rounds.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "gpu/probe/cuda_check.hpp"
#include "gpu/probe/timing.hpp"

namespace infermark::gpu::probe {

/// Random inputs for many GEMMs: one device allocation of weights and one of activations, filled for one
/// dtype at a time.
class WeightArena {
 public:
  /// Allocates `weight_bytes` and `activation_bytes` of device memory.
  WeightArena(std::size_t weight_bytes, std::size_t activation_bytes)
      : buffer_(weight_bytes), activations_(activation_bytes) {}
  /// Makes both hold random values of `dtype` (`bf16` or `fp8`), refilling when it changes.
  void Prepare(const std::string& dtype, cudaStream_t stream);
  /// The weights' base address.
  [[nodiscard]] char* base() const { return static_cast<char*>(buffer_.get()); }
  /// Their size.
  [[nodiscard]] std::size_t bytes() const { return buffer_.bytes(); }
  /// The activations' base address (every GEMM reads its activations from here).
  [[nodiscard]] char* activations() const { return static_cast<char*>(activations_.get()); }
  /// Their size.
  [[nodiscard]] std::size_t activation_bytes() const { return activations_.bytes(); }

 private:
  DeviceBuffer buffer_;
  DeviceBuffer activations_;
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
  WeightArena* arena = nullptr;       ///< Weights and activations.
  void* outputs = nullptr;            ///< Outputs every GEMM writes (bf16).
  std::size_t output_bytes = 0;       ///< Their size.
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

/// Bytes of the activations (first) and outputs (second) one call of `spec` uses, as GemmBench lays them out.
std::pair<std::size_t, std::size_t> GemmBuffers(const GemmSpec& spec);

class LtPlan;

/// One GEMM (or group) made ready to time: cuBLASLt descriptors with the heuristic's first algorithm,
/// pinned for every call; weight copies rotated beyond L2 (at least two, together at least 3× the L2, as
/// far as the arena holds them); the outputs poisoned, written by the warm-up calls and checked finite;
/// and its Batch (calls a multiple of the copies, a CUDA graph where capture works). The arena must hold
/// `spec.dtype` (WeightArena::Prepare) while the bench lives.
class GemmBench {
 public:
  /// Sets up and checks `spec`; throws ProbeError naming the call that failed or why the shape cannot run.
  GemmBench(const GemmContext& context, const GemmSpec& spec, const TimingPlan& plan);
  ~GemmBench();
  GemmBench(const GemmBench&) = delete;
  GemmBench& operator=(const GemmBench&) = delete;

  /// Weight copies rotated.
  [[nodiscard]] int copies() const { return copies_; }
  /// The cuBLASLt algorithm every call runs (`id:tile:stages:splitk:reduction:swizzle:custom:inner:cluster`),
  /// empty for grouped GEMMs (cuBLAS chooses those itself).
  [[nodiscard]] const std::string& algo() const { return algo_; }
  /// The batch to time.
  [[nodiscard]] Batch& batch() { return *batch_; }

 private:
  GemmContext context_;
  GemmSpec spec_;
  int copies_ = 0;
  std::size_t weight_stride_ = 0;
  std::size_t act_stride_ = 0;
  std::size_t out_stride_ = 0;
  std::string algo_;
  std::unique_ptr<LtPlan> lt_;
  std::unique_ptr<DeviceBuffer> pointers_;
  std::unique_ptr<Batch> batch_;

  [[nodiscard]] char* Weight(int copy, int problem) const;
  void CallGrouped(long i) const;
};

}  // namespace infermark::gpu::probe
