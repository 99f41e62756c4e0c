#include "gpu/probe/cuda_check.hpp"

#include "gpu/probe_abi.h"

namespace infermark::gpu::probe {

void CudaCheck(cudaError_t status, const char* call) {
  if (status == cudaSuccess) return;
  const bool no_device = status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver ||
                         status == cudaErrorInitializationError || status == cudaErrorCompatNotSupportedOnDevice ||
                         status == cudaErrorSystemDriverMismatch;
  throw ProbeError(
      no_device ? INFERMARK_PROBE_NO_DEVICE : INFERMARK_PROBE_CUDA_ERROR,
      std::string(call) + " failed: " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

void CublasCheck(cublasStatus_t status, const char* call) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw ProbeError(INFERMARK_PROBE_CUDA_ERROR, std::string(call) + " failed: " + cublasGetStatusName(status) + " (" +
                                                   cublasGetStatusString(status) + ")");
}

void LaunchCheck(const char* name) {
  CudaCheck(cudaGetLastError(), name);
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  if (bytes > 0) CudaCheck(cudaMalloc(&ptr_, bytes), "cudaMalloc");
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) cudaFree(ptr_);
}

}  // namespace infermark::gpu::probe
