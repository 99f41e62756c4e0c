// Accelerators as data: memory, bandwidth, peak math rates and scale-up links, read from
// data/engine/hardware.yaml so that a new GPU is a YAML entry, not code.
#pragma once

#include <string>
#include <vector>

namespace infermark::perfmodel {

/// The math rate a GEMM runs at.
enum class ComputeDtype { kBf16, kFp8, kFp4, kInt4 };

/// Parses "bf16", "fp8", "fp4", "int4"; throws std::invalid_argument otherwise.
ComputeDtype ParseComputeDtype(const std::string& text);

/// One GPU model (per-GPU figures).
struct HardwareSpec {
  std::string name;                  ///< Catalog key, e.g. `mi355x`.
  std::string vendor;                ///< `nvidia` or `amd`.
  std::string description;           ///< Human-readable name.
  std::vector<std::string> aliases;  ///< Other names (runner labels) that select it.
  double hbm_bytes = 0;              ///< HBM capacity, bytes (the datasheet's).
  /// Memory the driver reports per GPU (nvidia-smi memory.total), which the serving frameworks
  /// take as the GPU's total; `hbm_bytes` where the file gives none.
  double memory_bytes = 0;
  double hbm_bytes_per_s = 0;        ///< Peak HBM bandwidth, bytes/s.
  double flops_bf16 = 0;             ///< Dense bf16 tensor peak, FLOP/s.
  double flops_fp8 = 0;              ///< Dense fp8 tensor peak (0 = not native).
  double flops_fp4 = 0;              ///< Dense fp4 tensor peak (0 = not native).
  double flops_int4 = 0;             ///< Dense int4 tensor peak (0 = not native).
  std::string fp4_format;            ///< `nvfp4`, `mxfp4` or `none`.
  double link_bytes_per_s = 0;       ///< Scale-up bandwidth per GPU per direction, bytes/s.
  int domain_gpus = 8;               ///< GPUs in one scale-up domain.
  double allreduce_latency_s = 0;    ///< Prior start latency of one small all-reduce.
  double alltoall_latency_s = 0;     ///< Prior start latency of one all-to-all.
  double host_link_bytes_per_s = 0;  ///< Link to host memory per GPU per direction (KV offloading), bytes/s.
  std::string host_link_kind;        ///< `pcie5-x16`, `pcie6-x16` or `nvlink-c2c`.
  double scale_out_bytes_per_s = 0;  ///< Scale-out (inter-node RDMA) NIC per GPU per direction, bytes/s.
  double scale_out_latency_s = 0;    ///< Prior completion latency of one RDMA write over the scale-out network.
  std::string scale_out_kind;        ///< `rdma-400g` or `rdma-800g`.

  /// Peak rate for `dtype`, falling back to bf16 when the hardware has no native unit for it
  /// (weight-only quantization dequantizes to bf16).
  [[nodiscard]] double PeakFlops(ComputeDtype dtype) const;
};

/// Reads every entry of a hardware file; throws InputError listing every problem (file:line).
std::vector<HardwareSpec> LoadHardwareFile(const std::string& path);

}  // namespace infermark::perfmodel
