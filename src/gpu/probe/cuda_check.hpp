// Errors of the probe library: every CUDA and cuBLAS return code is checked, and a failure names
// the call and the library's own message.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace infermark::gpu::probe {

/// A failed CUDA or cuBLAS call; `code` is an INFERMARK_PROBE_* result code.
class ProbeError : public std::runtime_error {
 public:
  /// `message` names the call and the error.
  ProbeError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  /// The INFERMARK_PROBE_* code the run returns.
  [[nodiscard]] int code() const { return code_; }

 private:
  int code_;
};

/// Throws ProbeError naming `call` when `status` is not cudaSuccess.
void CudaCheck(cudaError_t status, const char* call);
/// Throws ProbeError naming `call` when `status` is not CUBLAS_STATUS_SUCCESS.
void CublasCheck(cublasStatus_t status, const char* call);
/// Checks the last launch (cudaGetLastError) of the kernel `name`.
void LaunchCheck(const char* name);

/// Device memory freed when destroyed.
class DeviceBuffer {
 public:
  /// Allocates `bytes` with cudaMalloc (0 bytes: no allocation).
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  /// The device address.
  [[nodiscard]] void* get() const { return ptr_; }
  /// The size in bytes.
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace infermark::gpu::probe
