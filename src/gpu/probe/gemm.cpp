#include "gpu/probe/gemm.hpp"

#include <algorithm>
#include <vector>

#include "gpu/probe/kernels.hpp"
#include "gpu/probe_abi.h"

namespace infermark::gpu::probe {

namespace {

constexpr std::size_t kAlign = 256;

std::size_t RoundUp(std::size_t bytes) {
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

std::size_t ElementBytes(const std::string& dtype) {
  return dtype == "fp8" ? 1 : 2;
}

void Fill(const std::string& dtype, void* data, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  if (dtype == "fp8") {
    FillFp8(data, count, seed, stream);
  } else {
    FillBf16(data, count, seed, stream);
  }
}

[[noreturn]] void Unsupported(const std::string& why) {
  throw ProbeError(INFERMARK_PROBE_CUDA_ERROR, why);
}

// cuBLASLt descriptors of one plain GEMM, destroyed with the object.
class LtPlan {
 public:
  LtPlan(const GemmContext& c, const GemmSpec& s) {
    const bool fp8 = s.dtype == "fp8";
    const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    CublasCheck(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    CublasCheck(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
                "cublasLtMatmulDescSetAttribute(TRANSA)");
    CublasCheck(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
                "cublasLtMatmulDescSetAttribute(TRANSB)");
    if (fp8) {
      const float* scale = c.unit_scale;
      CublasCheck(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale),
                  "cublasLtMatmulDescSetAttribute(A_SCALE_POINTER)");
      CublasCheck(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale, sizeof scale),
                  "cublasLtMatmulDescSetAttribute(B_SCALE_POINTER)");
    }
    // Column-major view of row-major Y[m×n] = X[m×k]·W[n×k]ᵀ: Yᵀ (n×m) = op(W) (n×k) · Xᵀ (k×m).
    const auto n = static_cast<std::uint64_t>(s.n), m = static_cast<std::uint64_t>(s.m),
               k = static_cast<std::uint64_t>(s.k);
    CublasCheck(cublasLtMatrixLayoutCreate(&a_, in, k, n, static_cast<std::int64_t>(k)),
                "cublasLtMatrixLayoutCreate(A)");
    CublasCheck(cublasLtMatrixLayoutCreate(&b_, in, k, m, static_cast<std::int64_t>(k)),
                "cublasLtMatrixLayoutCreate(B)");
    CublasCheck(cublasLtMatrixLayoutCreate(&d_, CUDA_R_16BF, n, m, static_cast<std::int64_t>(n)),
                "cublasLtMatrixLayoutCreate(D)");
    CublasCheck(cublasLtMatmulPreferenceCreate(&pref_), "cublasLtMatmulPreferenceCreate");
    const std::size_t workspace = c.workspace_bytes;
    CublasCheck(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                     sizeof workspace),
                "cublasLtMatmulPreferenceSetAttribute(MAX_WORKSPACE_BYTES)");
    int found = 0;
    const cublasStatus_t status =
        cublasLtMatmulAlgoGetHeuristic(c.lt, desc_, a_, b_, d_, d_, pref_, 1, &heuristic_, &found);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found == 0))
      Unsupported("cuBLASLt has no algorithm for " + s.dtype + " m=" + std::to_string(s.m) +
                  " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
    CublasCheck(status, "cublasLtMatmulAlgoGetHeuristic");
  }
  ~LtPlan() {
    if (pref_ != nullptr) cublasLtMatmulPreferenceDestroy(pref_);
    if (d_ != nullptr) cublasLtMatrixLayoutDestroy(d_);
    if (b_ != nullptr) cublasLtMatrixLayoutDestroy(b_);
    if (a_ != nullptr) cublasLtMatrixLayoutDestroy(a_);
    if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
  }
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;

  void Run(const GemmContext& c, const void* weight, const void* activation, void* out) const {
    const float alpha = 1.0f, beta = 0.0f;
    CublasCheck(cublasLtMatmul(c.lt, desc_, &alpha, weight, a_, activation, b_, &beta, out, d_, out, d_,
                               &heuristic_.algo, c.workspace, c.workspace_bytes, c.stream),
                "cublasLtMatmul");
  }

 private:
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
};

}  // namespace

void WeightArena::Prepare(const std::string& dtype, cudaStream_t stream) {
  if (dtype == dtype_) return;
  Fill(dtype, buffer_.get(), buffer_.bytes() / ElementBytes(dtype), 0xa5e7 + fills_++, stream);
  CudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  dtype_ = dtype;
}

GemmTiming TimeGemm(const GemmContext& c, const GemmSpec& s, const TimingPlan& base, std::uint64_t seed) {
  if (s.dtype != "bf16" && s.dtype != "fp8") Unsupported("unknown dtype '" + s.dtype + "'");
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.n % 16 != 0 || s.k % 16 != 0)
    Unsupported("bad shape m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k));
  const bool grouped = s.experts > 0;
  if (grouped && s.dtype != "bf16") Unsupported("cublasGemmGroupedBatchedEx takes no fp8 operands (bf16 only)");
  const int problems = std::max(s.experts, 1);
  const std::size_t elem = ElementBytes(s.dtype);
  const auto m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n), k = static_cast<std::size_t>(s.k);
  const std::size_t weight_stride = RoundUp(n * k * elem);
  const std::size_t copy_bytes = weight_stride * static_cast<std::size_t>(problems);
  if (copy_bytes > c.arena->bytes())
    Unsupported("weights of one call (" + std::to_string(copy_bytes >> 20) + " MiB) exceed the weight arena (" +
                std::to_string(c.arena->bytes() >> 20) + " MiB)");
  // At least four copies, and enough to cover three times the L2, as far as the arena holds them.
  std::size_t wanted = std::max<std::size_t>(4, (3 * c.l2_bytes + copy_bytes - 1) / copy_bytes);
  const int copies = static_cast<int>(std::min(wanted, c.arena->bytes() / copy_bytes));
  c.arena->Prepare(s.dtype, c.stream);

  const std::size_t act_stride = RoundUp(m * k * elem), out_stride = RoundUp(m * n * 2);
  DeviceBuffer activations(act_stride * static_cast<std::size_t>(problems));
  DeviceBuffer outputs(out_stride * static_cast<std::size_t>(problems));
  Fill(s.dtype, activations.get(), activations.bytes() / elem, seed, c.stream);
  CudaCheck(cudaMemsetAsync(outputs.get(), 0xff, outputs.bytes(), c.stream), "cudaMemsetAsync");
  auto weight = [&](int copy, int problem) {
    return c.arena->base() +
           (static_cast<std::size_t>(copy) * static_cast<std::size_t>(problems) + static_cast<std::size_t>(problem)) *
               weight_stride;
  };
  char* act = static_cast<char*>(activations.get());
  char* out = static_cast<char*>(outputs.get());

  TimingPlan plan = base;
  plan.min_calls = copies;
  GemmTiming result;
  result.copies = copies;
  if (!grouped) {
    const LtPlan lt(c, s);
    result.timing =
        TimeCalls(c.stream, plan, [&](long i) { lt.Run(c, weight(static_cast<int>(i % copies), 0), act, out); });
  } else {
    // Device arrays of pointers, one set per copy: A (weights), B (activations), C (outputs).
    const auto total = static_cast<std::size_t>(copies) * static_cast<std::size_t>(problems);
    std::vector<const void*> a(total), b(total);
    std::vector<void*> d(total);
    for (int cp = 0; cp < copies; ++cp) {
      for (int p = 0; p < problems; ++p) {
        const std::size_t at =
            static_cast<std::size_t>(cp) * static_cast<std::size_t>(problems) + static_cast<std::size_t>(p);
        a[at] = weight(cp, p);
        b[at] = act + static_cast<std::size_t>(p) * act_stride;
        d[at] = out + static_cast<std::size_t>(p) * out_stride;
      }
    }
    DeviceBuffer pointers(3 * total * sizeof(void*));
    auto** table = static_cast<void**>(pointers.get());
    CudaCheck(cudaMemcpy(table, a.data(), total * sizeof(void*), cudaMemcpyHostToDevice), "cudaMemcpy");
    CudaCheck(cudaMemcpy(table + total, b.data(), total * sizeof(void*), cudaMemcpyHostToDevice), "cudaMemcpy");
    CudaCheck(cudaMemcpy(table + 2 * total, d.data(), total * sizeof(void*), cudaMemcpyHostToDevice), "cudaMemcpy");
    const cublasOperation_t ta[1] = {CUBLAS_OP_T}, tb[1] = {CUBLAS_OP_N};
    const int mm[1] = {static_cast<int>(s.n)}, nn[1] = {static_cast<int>(s.m)}, kk[1] = {static_cast<int>(s.k)};
    const int lda[1] = {static_cast<int>(s.k)}, ldb[1] = {static_cast<int>(s.k)}, ldc[1] = {static_cast<int>(s.n)};
    const float alpha[1] = {1.0f}, beta[1] = {0.0f};
    const int group_size[1] = {problems};
    result.timing = TimeCalls(c.stream, plan, [&](long i) {
      const std::size_t first = static_cast<std::size_t>(i % copies) * static_cast<std::size_t>(problems);
      CublasCheck(cublasGemmGroupedBatchedEx(
                      c.blas, ta, tb, mm, nn, kk, alpha, const_cast<const void* const*>(table + first), CUDA_R_16BF,
                      lda, const_cast<const void* const*>(table + total + first), CUDA_R_16BF, ldb, beta,
                      table + 2 * total + first, CUDA_R_16BF, ldc, 1, group_size, CUBLAS_COMPUTE_32F),
                  "cublasGemmGroupedBatchedEx");
    });
  }
  CudaCheck(cudaStreamSynchronize(c.stream), "cudaStreamSynchronize");
  // Every output was poisoned with NaN before the first call: each must now hold a finite value.
  for (int p = 0; p < problems; ++p) {
    const std::size_t bad = CountNonFiniteBf16(out + static_cast<std::size_t>(p) * out_stride, m * n, c.stream);
    if (bad > 0)
      Unsupported(std::to_string(bad) + " of " + std::to_string(m * n) + " outputs are not finite after the GEMM");
  }
  return result;
}

}  // namespace infermark::gpu::probe
