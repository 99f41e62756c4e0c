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

std::string Shape(const GemmSpec& s) {
  return s.dtype + " m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
         (s.experts > 0 ? " experts=" + std::to_string(s.experts) : "");
}

template <typename T>
T AlgoConfig(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attribute) {
  T value{};
  std::size_t written = 0;
  CublasCheck(cublasLtMatmulAlgoConfigGetAttribute(&algo, attribute, &value, sizeof value, &written),
              "cublasLtMatmulAlgoConfigGetAttribute");
  return value;
}

}  // namespace

// cuBLASLt descriptors of one plain GEMM and the algorithm every call runs, destroyed with the object.
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
      Unsupported("cuBLASLt has no algorithm for " + Shape(s));
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

  // The algorithm's configuration, `id:tile:stages:splitk:reduction:swizzle:custom:inner:cluster`.
  [[nodiscard]] std::string Algo() const {
    const cublasLtMatmulAlgo_t& a = heuristic_.algo;
    return std::to_string(AlgoConfig<std::int32_t>(a, CUBLASLT_ALGO_CONFIG_ID)) + ":" +
           std::to_string(AlgoConfig<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_TILE_ID)) + ":" +
           std::to_string(AlgoConfig<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_STAGES_ID)) + ":" +
           std::to_string(AlgoConfig<std::int32_t>(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM)) + ":" +
           std::to_string(AlgoConfig<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME)) + ":" +
           std::to_string(AlgoConfig<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING)) + ":" +
           std::to_string(AlgoConfig<std::uint32_t>(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION)) + ":" +
           std::to_string(AlgoConfig<std::uint16_t>(a, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID)) + ":" +
           std::to_string(AlgoConfig<std::uint16_t>(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID));
  }

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

void WeightArena::Prepare(const std::string& dtype, cudaStream_t stream) {
  if (dtype == dtype_) return;
  Fill(dtype, buffer_.get(), buffer_.bytes() / ElementBytes(dtype), 0xa5e7 + fills_, stream);
  Fill(dtype, activations_.get(), activations_.bytes() / ElementBytes(dtype), 0x3c1d + fills_, stream);
  ++fills_;
  CudaCheck(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  dtype_ = dtype;
}

std::pair<std::size_t, std::size_t> GemmBuffers(const GemmSpec& s) {
  const auto problems = static_cast<std::size_t>(std::max(s.experts, 1));
  const auto m = static_cast<std::size_t>(std::max<std::int64_t>(s.m, 0)),
             n = static_cast<std::size_t>(std::max<std::int64_t>(s.n, 0)),
             k = static_cast<std::size_t>(std::max<std::int64_t>(s.k, 0));
  return {RoundUp(m * k * ElementBytes(s.dtype)) * problems, RoundUp(m * n * 2) * problems};
}

GemmBench::GemmBench(const GemmContext& c, const GemmSpec& s, const TimingPlan& base) : context_(c), spec_(s) {
  if (s.dtype != "bf16" && s.dtype != "fp8") Unsupported("unknown dtype '" + s.dtype + "'");
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.n % 16 != 0 || s.k % 16 != 0) Unsupported("bad shape " + Shape(s));
  const bool grouped = s.experts > 0;
  if (grouped && s.dtype != "bf16") Unsupported("cublasGemmGroupedBatchedEx takes no fp8 operands (bf16 only)");
  const int problems = std::max(s.experts, 1);
  const std::size_t elem = ElementBytes(s.dtype);
  const auto m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n), k = static_cast<std::size_t>(s.k);
  weight_stride_ = RoundUp(n * k * elem);
  act_stride_ = RoundUp(m * k * elem);
  out_stride_ = RoundUp(m * n * 2);
  const std::size_t copy_bytes = weight_stride_ * static_cast<std::size_t>(problems);
  if (copy_bytes > c.arena->bytes())
    Unsupported("weights of one call (" + std::to_string(copy_bytes >> 20) + " MiB) exceed the weight arena (" +
                std::to_string(c.arena->bytes() >> 20) + " MiB)");
  const auto [act_bytes, out_bytes] = GemmBuffers(s);
  if (act_bytes > c.arena->activation_bytes() || out_bytes > c.output_bytes)
    Unsupported("activations or outputs of " + Shape(s) + " exceed the shared buffers");
  // At least two copies, and enough to cover three times the L2, as far as the arena holds them: a copy
  // is read again only after the others have pushed it out of L2.
  const std::size_t wanted = std::max<std::size_t>(2, (3 * c.l2_bytes + copy_bytes - 1) / copy_bytes);
  copies_ = static_cast<int>(std::min(wanted, c.arena->bytes() / copy_bytes));
  c.arena->Prepare(s.dtype, c.stream);
  CudaCheck(cudaMemsetAsync(c.outputs, 0xff, out_bytes, c.stream), "cudaMemsetAsync");

  TimingPlan plan = base;
  plan.call_multiple = copies_;
  char* act = c.arena->activations();
  char* out = static_cast<char*>(c.outputs);
  if (!grouped) {
    lt_ = std::make_unique<LtPlan>(c, s);
    algo_ = lt_->Algo();
    batch_ = std::make_unique<Batch>(c.stream, plan, [this, act, out](long i) {
      lt_->Run(context_, Weight(static_cast<int>(i % copies_), 0), act, out);
    });
  } else {
    // Device arrays of pointers, one set per copy: A (weights), B (activations), C (outputs).
    const auto total = static_cast<std::size_t>(copies_) * static_cast<std::size_t>(problems);
    std::vector<const void*> a(total), b(total);
    std::vector<void*> d(total);
    for (int cp = 0; cp < copies_; ++cp) {
      for (int p = 0; p < problems; ++p) {
        const std::size_t at =
            static_cast<std::size_t>(cp) * static_cast<std::size_t>(problems) + static_cast<std::size_t>(p);
        a[at] = Weight(cp, p);
        b[at] = act + static_cast<std::size_t>(p) * act_stride_;
        d[at] = out + static_cast<std::size_t>(p) * out_stride_;
      }
    }
    pointers_ = std::make_unique<DeviceBuffer>(3 * total * sizeof(void*));
    auto** table = static_cast<void**>(pointers_->get());
    CudaCheck(cudaMemcpy(table, a.data(), total * sizeof(void*), cudaMemcpyHostToDevice), "cudaMemcpy");
    CudaCheck(cudaMemcpy(table + total, b.data(), total * sizeof(void*), cudaMemcpyHostToDevice), "cudaMemcpy");
    CudaCheck(cudaMemcpy(table + 2 * total, d.data(), total * sizeof(void*), cudaMemcpyHostToDevice), "cudaMemcpy");
    batch_ = std::make_unique<Batch>(c.stream, plan, [this](long i) { CallGrouped(i); });
  }
  CudaCheck(cudaStreamSynchronize(c.stream), "cudaStreamSynchronize");
  // Every output was poisoned with NaN before the warm-up calls: each must now hold a finite value.
  for (int p = 0; p < problems; ++p) {
    const std::size_t bad = CountNonFiniteBf16(out + static_cast<std::size_t>(p) * out_stride_, m * n, c.stream);
    if (bad > 0)
      Unsupported(std::to_string(bad) + " of " + std::to_string(m * n) + " outputs are not finite after the GEMM");
  }
}

GemmBench::~GemmBench() = default;

char* GemmBench::Weight(int copy, int problem) const {
  const auto problems = static_cast<std::size_t>(std::max(spec_.experts, 1));
  return context_.arena->base() +
         (static_cast<std::size_t>(copy) * problems + static_cast<std::size_t>(problem)) * weight_stride_;
}

void GemmBench::CallGrouped(long i) const {
  const auto problems = static_cast<std::size_t>(spec_.experts);
  const auto total = static_cast<std::size_t>(copies_) * problems;
  auto** table = static_cast<void**>(pointers_->get());
  const std::size_t first = static_cast<std::size_t>(i % copies_) * problems;
  const cublasOperation_t ta[1] = {CUBLAS_OP_T}, tb[1] = {CUBLAS_OP_N};
  const int mm[1] = {static_cast<int>(spec_.n)}, nn[1] = {static_cast<int>(spec_.m)},
            kk[1] = {static_cast<int>(spec_.k)};
  const int lda[1] = {static_cast<int>(spec_.k)}, ldb[1] = {static_cast<int>(spec_.k)},
            ldc[1] = {static_cast<int>(spec_.n)};
  const float alpha[1] = {1.0f}, beta[1] = {0.0f};
  const int group_size[1] = {spec_.experts};
  CublasCheck(cublasGemmGroupedBatchedEx(
                  context_.blas, ta, tb, mm, nn, kk, alpha, const_cast<const void* const*>(table + first), CUDA_R_16BF,
                  lda, const_cast<const void* const*>(table + total + first), CUDA_R_16BF, ldb, beta,
                  table + 2 * total + first, CUDA_R_16BF, ldc, 1, group_size, CUBLAS_COMPUTE_32F),
              "cublasGemmGroupedBatchedEx");
}

}  // namespace infermark::gpu::probe
