// NCCL opened at run time (dlopen): the probe has no build dependency on NCCL. The few types and
// functions it calls are declared here with the values of NCCL's stable C interface (nccl.h, 2.x).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace infermark::gpu::probe {

/// NCCL's ncclComm_t: an opaque communicator of one rank.
using NcclComm = struct ncclComm*;

/// NCCL's ncclDataType_t values used here.
enum NcclType : int { kNcclInt8 = 0, kNcclBfloat16 = 9 };

/// NCCL's ncclRedOp_t value used here.
enum NcclOp : int { kNcclSum = 0 };

/// The NCCL functions the collective tests call, resolved from one libnccl.so.2.
class Nccl {
 public:
  /// dlopens `path` and resolves every function; throws ProbeError (bad request) naming the path and
  /// dlerror's message when the library or a symbol is missing.
  explicit Nccl(const std::string& path);
  /// Leaves the library loaded: NCCL keeps threads and CUDA state past its communicators.
  ~Nccl() = default;
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;

  /// The library's version, `2.27.7`.
  [[nodiscard]] std::string Version() const;
  /// The path it was opened from.
  [[nodiscard]] const std::string& path() const { return path_; }

  /// Throws ProbeError naming `call` and NCCL's message when `result` is not ncclSuccess.
  void Check(int result, const char* call) const;

  int (*GetVersion)(int*) = nullptr;                         ///< ncclGetVersion.
  const char* (*GetErrorString)(int) = nullptr;              ///< ncclGetErrorString.
  int (*CommInitAll)(NcclComm*, int, const int*) = nullptr;  ///< ncclCommInitAll.
  int (*CommDestroy)(NcclComm) = nullptr;                    ///< ncclCommDestroy.
  int (*GroupStart)() = nullptr;                             ///< ncclGroupStart.
  int (*GroupEnd)() = nullptr;                               ///< ncclGroupEnd.
  int (*AllReduce)(const void*, void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;  ///< ncclAllReduce.
  int (*AllGather)(const void*, void*, std::size_t, int, NcclComm, cudaStream_t) = nullptr;       ///< ncclAllGather.
  int (*ReduceScatter)(const void*, void*, std::size_t, int, int, NcclComm,
                       cudaStream_t) = nullptr;                                       ///< ncclReduceScatter.
  int (*Send)(const void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;  ///< ncclSend.
  int (*Recv)(void*, std::size_t, int, int, NcclComm, cudaStream_t) = nullptr;        ///< ncclRecv.

 private:
  void* handle_ = nullptr;
  std::string path_;
};

}  // namespace infermark::gpu::probe
